-- every random function, logged in draw order
\set u1 random(1, 10)
\set u2 random(-4611686018427387903, 4611686018427387903)
\set u3 random(5, 5)
\set u4 random(0, 1)
\set e1 random_exponential(1, 1000, 2.5)
\set e2 random_exponential(-50, 50, 0.1)
\set g1 random_gaussian(1, 1000, 2.0)
\set g2 random_gaussian(1, 100000, 5)
\set z1 random_zipfian(1, 1000, 1.07)
\set z2 random_zipfian(1, 10, 2.5)
\set z3 random_zipfian(1000, 1000000, 1.5)
\set p1 permute(:u1, 10)
\set p2 permute(:u2, 1000003, :random_seed)
\set p3 permute(-7, 3, 42)
\set p4 permute(:e1, 1)
\set p5 permute(:z3, 9223372036854775807, -5)
INSERT INTO log (client, k, v) VALUES
  (:client_id, 'u1', ':u1'), (:client_id, 'u2', ':u2'), (:client_id, 'u3', ':u3'),
  (:client_id, 'u4', ':u4'), (:client_id, 'e1', ':e1'), (:client_id, 'e2', ':e2'),
  (:client_id, 'g1', ':g1'), (:client_id, 'g2', ':g2'), (:client_id, 'z1', ':z1'),
  (:client_id, 'z2', ':z2'), (:client_id, 'z3', ':z3'), (:client_id, 'p1', ':p1'),
  (:client_id, 'p2', ':p2'), (:client_id, 'p3', ':p3'), (:client_id, 'p4', ':p4'),
  (:client_id, 'p5', ':p5'), (:client_id, 'seeds', ':random_seed :default_seed :scale');
