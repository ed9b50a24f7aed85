-- Payment through sledge_payment: 85% home customers, 60% selected by last
-- name (NURand(255) number turned into syllables by the server).
\set w_id :client_id % :W + 1
\set d_id random(1, 10)
\set x random(1, 100)
\if :x <= 85 or :W = 1
\set c_w_id :w_id
\set c_d_id :d_id
\else
\set c_w_id (:w_id + random(0, :W - 2)) % :W + 1
\set c_d_id random(1, 10)
\endif
\set y random(1, 100)
\set c_id ((random(0, 1023) | random(1, 3000)) + :c_cid) % 3000 + 1
\set n ((random(0, 255) | random(0, 999)) + :c_last) % 1000
\set n1 :n / 100 + 1
\set n2 :n / 10 % 10 + 1
\set n3 :n % 10 + 1
\set amount random(100, 500000)
SELECT sledge_payment(:w_id, :d_id, :c_w_id, :c_d_id, :c_id,
  CASE WHEN :y::int <= 60 THEN (ARRAY['BAR','OUGHT','ABLE','PRI','PRES','ESE','ANTI','CALLY','ATION','EING'])[:n1::int] || (ARRAY['BAR','OUGHT','ABLE','PRI','PRES','ESE','ANTI','CALLY','ATION','EING'])[:n2::int] || (ARRAY['BAR','OUGHT','ABLE','PRI','PRES','ESE','ANTI','CALLY','ATION','EING'])[:n3::int] END,
  :amount);
