-- a retried transaction draws again what it drew on its failed try:
-- flaky() fails one attempt in five with a serialization failure and
-- one in five with a deadlock, never twice in a row
\set r random(1, 1000000)
BEGIN;
INSERT INTO log (client, k, v) VALUES (:client_id, 'r', ':r');
SELECT flaky();
\set s random(1, 1000000)
INSERT INTO log (client, k, v) VALUES (:client_id, 's', ':s');
END;
