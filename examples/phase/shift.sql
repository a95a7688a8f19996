/* sweep_shift.toml: geometric mean over the 5 seeds of the short/long goodput ratio (20 s
   warm-up) for each shift of the long flow's base RTT, and the range over all shifts and seeds.
     ccsim query results/sweep_shift "$(cat examples/phase/shift.sql)" */
WITH per_run AS (
  SELECT algorithm, send_overhead, send_overhead_s, long_rtt, seed,
         avg(rate_bps) FILTER (WHERE flow = 0) / avg(rate_bps) FILTER (WHERE flow = 1) AS ratio
  FROM series WHERE t_s > 20 GROUP BY ALL
)
SELECT algorithm, send_overhead AS noise,
       round(exp(avg(ln(ratio)) FILTER (WHERE long_rtt = '80000us')), 2) AS shift_0,
       round(exp(avg(ln(ratio)) FILTER (WHERE long_rtt = '80020us')), 2) AS shift_20us,
       round(exp(avg(ln(ratio)) FILTER (WHERE long_rtt = '80040us')), 2) AS shift_40us,
       round(exp(avg(ln(ratio)) FILTER (WHERE long_rtt = '80060us')), 2) AS shift_60us,
       round(min(ratio), 2) AS min, round(max(ratio), 2) AS max, count(*) AS runs
FROM per_run GROUP BY algorithm, send_overhead, send_overhead_s ORDER BY algorithm DESC, send_overhead_s
