-- \if branches, \sleep forms, \gset and \aset
\set x random(1, 6)
\if :x = 1
  \set br 10
\elif :x <= 3
  \if :x = 2
    \set br 20
  \else
    \set br 30
  \endif
\elif :x = 4
  \set br 40
\else
  \set br 50 + random(1, 3)
\endif
\if false
  \set never random(1, 100)
\endif
\sleep 1 ms
\set us 100
\sleep :us us
\sleep 0
\sleep 200us
SELECT :x * 2 AS twice, :x + 1 AS succ \gset
SELECT :x AS a1 \; SELECT :x * 10 AS a2 \aset
SELECT 7 AS pv, NULL AS pn
\gset p_
SELECT 1 AS none WHERE false \aset q_
\set after random(1, 1000) + :twice
INSERT INTO log (client, k, v) VALUES (:client_id, 'x', ':x'), (:client_id, 'br', ':br'),
  (:client_id, 'gset', ':twice :succ :a1 :a2 :p_pv [:p_pn]'), (:client_id, 'after', ':after');
