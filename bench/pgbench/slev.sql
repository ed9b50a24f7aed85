-- Stock-Level through sledge_slev, each client with a fixed district.
\set w_id :client_id % :W + 1
\set d_id :client_id / :W % 10 + 1
\set threshold random(10, 20)
SELECT sledge_slev(:w_id, :d_id, :threshold);
