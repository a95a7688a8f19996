/* sweep_tail_loss.toml, paired: the same transfer (seed, flow) with and without noise. Per seed,
   the mean change of completion time; its mean over the 5 seeds with the 95% half-width; and the
   share of transfers whose completion time moved by more than 1 ms.
     ccsim query results/sweep_tail_loss "$(cat examples/phase/tail_loss_paired.sql)" */
WITH t AS (SELECT send_overhead, send_overhead_s, seed, flow, completion_s FROM flows WHERE completed),
base AS (SELECT seed, flow, completion_s AS c0 FROM t WHERE send_overhead_s = 0),
per_seed AS (
  SELECT send_overhead, send_overhead_s, seed, avg(completion_s - c0) AS d,
         count(*) FILTER (WHERE abs(completion_s - c0) > 0.001) AS changed, count(*) AS n
  FROM t JOIN base USING (seed, flow) GROUP BY ALL)
SELECT send_overhead AS noise, round(avg(d) * 1e3, 2) AS mean_diff_ms,
       round(2.776 * stddev_samp(d) / sqrt(count(*)) * 1e3, 2) AS ci95_ms,
       round(100.0 * sum(changed) / sum(n), 1) AS pct_changed_over_1ms
FROM per_seed GROUP BY send_overhead, send_overhead_s ORDER BY send_overhead_s
