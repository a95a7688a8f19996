/* sweep_same_rtt_long.toml (300 s, 80 ms, 10 seeds): as same_rtt.sql with a 60 s warm-up and t
   for 9 degrees of freedom.
     ccsim query results/sweep_same_rtt_long "$(cat examples/phase/same_rtt_long.sql)" */
WITH per_flow AS (
  SELECT algorithm, send_overhead, send_overhead_s, seed, flow, avg(rate_bps) AS bps
  FROM series WHERE t_s > 60 GROUP BY ALL
), per_run AS (
  SELECT algorithm, send_overhead, send_overhead_s, seed, max(bps) / min(bps) AS ratio
  FROM per_flow GROUP BY ALL
)
SELECT algorithm, send_overhead AS noise, count(*) AS n,
       round(avg(ratio), 2) AS mean, round(2.262 * stddev_samp(ratio) / sqrt(count(*)), 2) AS ci95,
       round(median(ratio), 2) AS median, round(max(ratio), 2) AS max,
       count(*) FILTER (WHERE ratio > 1.5) AS above_1_5
FROM per_run GROUP BY algorithm, send_overhead, send_overhead_s
ORDER BY algorithm DESC, send_overhead_s
