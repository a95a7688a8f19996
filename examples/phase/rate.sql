/* sweep_rate.toml: as ratio.sql per bottleneck rate (10 seeds, t for 9 degrees of freedom), with
   the two flows' total goodput as a share of the bottleneck rate (utilization).
     ccsim query results/sweep_rate "$(cat examples/phase/rate.sql)" */
WITH per_run AS (
  SELECT bottleneck_rate, bottleneck_rate_bps, algorithm, send_overhead, send_overhead_s, seed, run_id,
         avg(rate_bps) FILTER (WHERE flow = 0) / avg(rate_bps) FILTER (WHERE flow = 1) AS ratio,
         sum(rate_bps) / count(DISTINCT t_s) AS total_bps
  FROM series WHERE t_s > 20 GROUP BY ALL
), queue AS (
  SELECT run_id, avg(queue_pkts) AS q_pkts FROM queues WHERE link = 0 AND t_s > 20 GROUP BY run_id
), joined AS (
  SELECT p.*, q.q_pkts * 1040 * 8 / p.bottleneck_rate_bps * 1e3 AS q_ms FROM per_run p JOIN queue q USING (run_id)
)
SELECT bottleneck_rate AS rate, algorithm, send_overhead AS noise, count(*) AS n,
       round(avg(ratio), 2) AS mean, round(2.262 * stddev_samp(ratio) / sqrt(count(*)), 2) AS ci95,
       round(exp(avg(ln(ratio))), 2) AS geomean, round(min(ratio), 2) AS min, round(max(ratio), 2) AS max,
       count(*) FILTER (WHERE ratio > ((80 + q_ms) / (20 + q_ms)) ^ 2) AS above_bound,
       round(avg(total_bps) / bottleneck_rate_bps, 3) AS utilization, round(avg(q_ms), 1) AS q_ms
FROM joined GROUP BY bottleneck_rate, bottleneck_rate_bps, algorithm, send_overhead, send_overhead_s
ORDER BY bottleneck_rate_bps, algorithm DESC, send_overhead_s
