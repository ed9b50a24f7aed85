-- extended and prepared modes: :variables become parameters
\set x random(1, 100000)
\set d :x / 3.0
\set n NULL
\startpipeline
INSERT INTO log (client, k, v) VALUES (:client_id, 'x', :x);
INSERT INTO log (client, k, v) VALUES (:client_id, 'd', :d), (:client_id, 'n', :n);
\endpipeline
SELECT :x::int % 7 AS m \gset
INSERT INTO log (client, k, v) VALUES (:client_id, 'm', :m), (:client_id, 'cast', :x::text || '::' || :d);
