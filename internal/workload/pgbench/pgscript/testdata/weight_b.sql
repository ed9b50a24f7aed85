\set v random(1, 1000000)
\set w random(1, 10)
INSERT INTO log (client, k, v) VALUES (:client_id, 'b', ':v :w');
