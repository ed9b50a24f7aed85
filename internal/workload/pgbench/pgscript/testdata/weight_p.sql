-- for the extended and prepared modes (no :variable in quotes)
\set v random(1, 1000000)
INSERT INTO log (client, k, v) VALUES (:client_id, 'p', :v);
