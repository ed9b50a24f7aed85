-- New-Order through sledge_neword, with inputs drawn like Sledge's (NURand
-- item and customer ids, 5–15 lines, quantities 1–10). Not drawn here: the 1%
-- invalid item (pgbench ends a client on any error other than serialization
-- or deadlock) and the 1% remote lines (pgbench cannot redraw duplicates).
\set w_id :client_id % :W + 1
\set d_id random(1, 10)
\set c_id ((random(0, 1023) | random(1, 3000)) + :c_cid) % 3000 + 1
\set ol_cnt random(5, 15)
\set i1 ((random(0, 8191) | random(1, 100000)) + :c_iid) % 100000 + 1
\set i2 ((random(0, 8191) | random(1, 100000)) + :c_iid) % 100000 + 1
\set i3 ((random(0, 8191) | random(1, 100000)) + :c_iid) % 100000 + 1
\set i4 ((random(0, 8191) | random(1, 100000)) + :c_iid) % 100000 + 1
\set i5 ((random(0, 8191) | random(1, 100000)) + :c_iid) % 100000 + 1
\set i6 ((random(0, 8191) | random(1, 100000)) + :c_iid) % 100000 + 1
\set i7 ((random(0, 8191) | random(1, 100000)) + :c_iid) % 100000 + 1
\set i8 ((random(0, 8191) | random(1, 100000)) + :c_iid) % 100000 + 1
\set i9 ((random(0, 8191) | random(1, 100000)) + :c_iid) % 100000 + 1
\set i10 ((random(0, 8191) | random(1, 100000)) + :c_iid) % 100000 + 1
\set i11 ((random(0, 8191) | random(1, 100000)) + :c_iid) % 100000 + 1
\set i12 ((random(0, 8191) | random(1, 100000)) + :c_iid) % 100000 + 1
\set i13 ((random(0, 8191) | random(1, 100000)) + :c_iid) % 100000 + 1
\set i14 ((random(0, 8191) | random(1, 100000)) + :c_iid) % 100000 + 1
\set i15 ((random(0, 8191) | random(1, 100000)) + :c_iid) % 100000 + 1
\set q1 random(1, 10)
\set q2 random(1, 10)
\set q3 random(1, 10)
\set q4 random(1, 10)
\set q5 random(1, 10)
\set q6 random(1, 10)
\set q7 random(1, 10)
\set q8 random(1, 10)
\set q9 random(1, 10)
\set q10 random(1, 10)
\set q11 random(1, 10)
\set q12 random(1, 10)
\set q13 random(1, 10)
\set q14 random(1, 10)
\set q15 random(1, 10)
SELECT sledge_neword(:w_id, :d_id, :c_id, 1,
  (ARRAY[:i1::int, :i2::int, :i3::int, :i4::int, :i5::int, :i6::int, :i7::int, :i8::int, :i9::int, :i10::int, :i11::int, :i12::int, :i13::int, :i14::int, :i15::int])[1 : :ol_cnt::int],
  array_fill(:w_id::int, ARRAY[:ol_cnt::int]),
  (ARRAY[:q1::int, :q2::int, :q3::int, :q4::int, :q5::int, :q6::int, :q7::int, :q8::int, :q9::int, :q10::int, :q11::int, :q12::int, :q13::int, :q14::int, :q15::int])[1 : :ol_cnt::int]);
