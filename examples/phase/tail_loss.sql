/* sweep_tail_loss.toml: completion times of the finished transfers, all seeds pooled.
     ccsim query results/sweep_tail_loss "$(cat examples/phase/tail_loss.sql)" */
SELECT send_overhead AS noise, count(DISTINCT seed) AS seeds, count(*) AS transfers,
       round(avg(completion_s) * 1e3, 1) AS mean_ms,
       round(quantile_cont(completion_s, 0.5) * 1e3, 1) AS p50_ms,
       round(quantile_cont(completion_s, 0.9) * 1e3, 1) AS p90_ms,
       round(quantile_cont(completion_s, 0.99) * 1e3, 1) AS p99_ms,
       sum(timeouts) AS timeouts, sum(retransmits) AS retransmits
FROM flows WHERE completed GROUP BY send_overhead, send_overhead_s ORDER BY send_overhead_s
