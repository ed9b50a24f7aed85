-- Delivery through sledge_delivery.
\set w_id :client_id % :W + 1
\set carrier random(1, 10)
SELECT sledge_delivery(:w_id, :carrier);
