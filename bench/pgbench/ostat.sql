-- Order-Status through sledge_ostat: 60% by last name.
\set w_id :client_id % :W + 1
\set d_id random(1, 10)
\set y random(1, 100)
\set c_id ((random(0, 1023) | random(1, 3000)) + :c_cid) % 3000 + 1
\set n ((random(0, 255) | random(0, 999)) + :c_last) % 1000
\set n1 :n / 100 + 1
\set n2 :n / 10 % 10 + 1
\set n3 :n % 10 + 1
SELECT * FROM sledge_ostat(:w_id, :d_id, :c_id,
  CASE WHEN :y::int <= 60 THEN (ARRAY['BAR','OUGHT','ABLE','PRI','PRES','ESE','ANTI','CALLY','ATION','EING'])[:n1::int] || (ARRAY['BAR','OUGHT','ABLE','PRI','PRES','ESE','ANTI','CALLY','ATION','EING'])[:n2::int] || (ARRAY['BAR','OUGHT','ABLE','PRI','PRES','ESE','ANTI','CALLY','ATION','EING'])[:n3::int] END);
