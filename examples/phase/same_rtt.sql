/* sweep_same_rtt.toml: the larger over the smaller of the two flows' goodputs (20 s warm-up),
   mean with its 95% half-width (20 seeds), median, largest, and the runs above 1.5.
     ccsim query results/sweep_same_rtt "$(cat examples/phase/same_rtt.sql)" */
WITH per_flow AS (
  SELECT rtt, algorithm, send_overhead, send_overhead_s, seed, flow, avg(rate_bps) AS bps
  FROM series WHERE t_s > 20 GROUP BY ALL
), per_run AS (
  SELECT rtt, algorithm, send_overhead, send_overhead_s, seed, max(bps) / min(bps) AS ratio
  FROM per_flow GROUP BY ALL
)
SELECT rtt, algorithm, send_overhead AS noise, count(*) AS n,
       round(avg(ratio), 2) AS mean, round(2.093 * stddev_samp(ratio) / sqrt(count(*)), 2) AS ci95,
       round(median(ratio), 2) AS median, round(max(ratio), 2) AS max,
       count(*) FILTER (WHERE ratio > 1.5) AS above_1_5
FROM per_run GROUP BY rtt, algorithm, send_overhead, send_overhead_s
ORDER BY rtt, algorithm DESC, send_overhead_s
