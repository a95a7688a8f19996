/* sweep_one_flow.toml: a lone flow's goodput and mean RTT over the whole run, mean over 5 seeds
   with the 95% half-width (t for 4 degrees of freedom), and its retransmissions.
     ccsim query results/sweep_one_flow "$(cat examples/phase/one_flow.sql)" */
SELECT rtt, algorithm, send_overhead AS noise, count(*) AS n,
       round(avg(goodput_bps) / 1e6, 2) AS goodput_mbps,
       round(2.776 * stddev_samp(goodput_bps) / sqrt(count(*)) / 1e6, 2) AS ci95,
       round(avg(mean_rtt_s) * 1e3, 1) AS mean_rtt_ms,
       round(2.776 * stddev_samp(mean_rtt_s) / sqrt(count(*)) * 1e3, 1) AS rtt_ci95,
       round(avg(retransmits), 0) AS retransmits
FROM flows GROUP BY rtt, algorithm, send_overhead, send_overhead_s
ORDER BY rtt, algorithm DESC, send_overhead_s
