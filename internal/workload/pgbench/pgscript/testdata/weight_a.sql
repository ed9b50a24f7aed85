\set v random(1, 1000000)
INSERT INTO log (client, k, v) VALUES (:client_id, 'a', ':v');
