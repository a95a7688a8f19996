/* sweep_long.toml (300 s, 10 seeds): as ratio.sql, with a 60 s warm-up and t for 9 degrees of freedom.
     ccsim query results/sweep_long "$(cat examples/phase/ratio_long.sql)" */
WITH per_run AS (
  SELECT algorithm, send_overhead, send_overhead_s, seed, run_id,
         avg(rate_bps) FILTER (WHERE flow = 0) / avg(rate_bps) FILTER (WHERE flow = 1) AS ratio
  FROM series WHERE t_s > 60 GROUP BY ALL
), queue AS (
  SELECT run_id, avg(queue_pkts) * 0.0832 AS q_ms FROM queues WHERE link = 0 AND t_s > 60 GROUP BY run_id
), joined AS (
  SELECT p.*, ((80 + q.q_ms) / (20 + q.q_ms)) ^ 2 AS sync_bound FROM per_run p JOIN queue q USING (run_id)
)
SELECT algorithm, send_overhead AS noise, count(*) AS n,
       round(avg(ratio), 2) AS mean, round(2.262 * stddev_samp(ratio) / sqrt(count(*)), 2) AS ci95,
       round(exp(avg(ln(ratio))), 2) AS geomean, round(min(ratio), 2) AS min, round(max(ratio), 2) AS max,
       round(avg(sync_bound), 2) AS sync_bound, count(*) FILTER (WHERE ratio > sync_bound) AS above_bound
FROM joined GROUP BY algorithm, send_overhead, send_overhead_s ORDER BY algorithm DESC, send_overhead_s
