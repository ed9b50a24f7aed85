-- The five TPROC-C transactions as client-side statements for MariaDB and
-- MySQL (--mode sql), and the one-call forms of the stored procedures in
-- procs.sql (--mode procs). Money crosses the client boundary as integer
-- cents: the statements convert.
--
-- Parameters are numbered ($1, $2, …) as in the PostgreSQL file; the driver
-- rewrites them to ? once per statement. Neither server has UPDATE …
-- RETURNING, so a statement that updates a row and returns columns of it is
-- two here: <name>, a SELECT … FOR UPDATE that locks the row and returns what
-- RETURNING would (post-update values computed where they differ), and
-- <name>_update, the UPDATE, with the same parameters.

-- name: neword_warehouse
SELECT w_tax FROM warehouse WHERE w_id = $1

-- name: neword_district
SELECT d_tax, d_next_o_id FROM district WHERE d_w_id = $1 AND d_id = $2 FOR UPDATE

-- name: neword_district_update
UPDATE district SET d_next_o_id = d_next_o_id + 1 WHERE d_w_id = $1 AND d_id = $2

-- name: neword_customer
SELECT c_discount, c_last, c_credit FROM customer
 WHERE c_w_id = $1 AND c_d_id = $2 AND c_id = $3

-- name: neword_insert_order
INSERT INTO orders (o_id, o_d_id, o_w_id, o_c_id, o_entry_d, o_carrier_id, o_ol_cnt, o_all_local)
VALUES ($1, $2, $3, $4, NOW(), NULL, $5, $6)

-- name: neword_insert_new_order
INSERT INTO new_order (no_o_id, no_d_id, no_w_id) VALUES ($1, $2, $3)

-- name: neword_item
SELECT CAST(i_price * 100 AS SIGNED), i_name, i_data FROM item WHERE i_id = $1

-- name: neword_stock
-- $3 quantity ordered, $4 1 if the supplying warehouse is remote, $5 district (picks S_DIST_xx)
SELECT CASE WHEN s_quantity >= $3 + 10 THEN s_quantity - $3 ELSE s_quantity - $3 + 91 END, s_data,
       CASE $5 WHEN 1 THEN s_dist_01 WHEN 2 THEN s_dist_02 WHEN 3 THEN s_dist_03 WHEN 4 THEN s_dist_04
               WHEN 5 THEN s_dist_05 WHEN 6 THEN s_dist_06 WHEN 7 THEN s_dist_07 WHEN 8 THEN s_dist_08
               WHEN 9 THEN s_dist_09 ELSE s_dist_10 END
  FROM stock WHERE s_w_id = $1 AND s_i_id = $2 FOR UPDATE

-- name: neword_stock_update
UPDATE stock
   SET s_quantity = CASE WHEN s_quantity >= $3 + 10 THEN s_quantity - $3 ELSE s_quantity - $3 + 91 END,
       s_ytd = s_ytd + $3,
       s_order_cnt = s_order_cnt + 1,
       s_remote_cnt = s_remote_cnt + $4
 WHERE s_w_id = $1 AND s_i_id = $2

-- name: neword_insert_order_line
INSERT INTO order_line (ol_o_id, ol_d_id, ol_w_id, ol_number, ol_i_id, ol_supply_w_id,
                        ol_delivery_d, ol_quantity, ol_amount, ol_dist_info)
VALUES ($1, $2, $3, $4, $5, $6, NULL, $7, $8 * 0.01, $9)

-- name: payment_warehouse
SELECT w_name, w_street_1, w_street_2, w_city, w_state, w_zip FROM warehouse WHERE w_id = $1 FOR UPDATE

-- name: payment_warehouse_update
UPDATE warehouse SET w_ytd = w_ytd + $2 * 0.01 WHERE w_id = $1

-- name: payment_district
SELECT d_name, d_street_1, d_street_2, d_city, d_state, d_zip FROM district
 WHERE d_w_id = $1 AND d_id = $2 FOR UPDATE

-- name: payment_district_update
UPDATE district SET d_ytd = d_ytd + $3 * 0.01 WHERE d_w_id = $1 AND d_id = $2

-- name: customer_by_name
-- Payment and Order-Status by last name: all matches ordered by first name;
-- the client takes the row at position ceil(n/2).
SELECT c_id FROM customer WHERE c_w_id = $1 AND c_d_id = $2 AND c_last = $3 ORDER BY c_first

-- name: payment_customer
SELECT c_first, c_middle, c_last, c_street_1, c_street_2, c_city, c_state, c_zip, c_phone,
       c_since, c_credit, c_credit_lim, c_discount, CAST((c_balance - $4 * 0.01) * 100 AS SIGNED)
  FROM customer WHERE c_w_id = $1 AND c_d_id = $2 AND c_id = $3 FOR UPDATE

-- name: payment_customer_update
UPDATE customer
   SET c_balance = c_balance - $4 * 0.01,
       c_ytd_payment = c_ytd_payment + $4 * 0.01,
       c_payment_cnt = c_payment_cnt + 1
 WHERE c_w_id = $1 AND c_d_id = $2 AND c_id = $3

-- name: payment_customer_data
-- Bad-credit customers: the payment's details go in front of C_DATA, kept to 500 characters.
UPDATE customer SET c_data = SUBSTRING(CONCAT($4, c_data), 1, 500)
 WHERE c_w_id = $1 AND c_d_id = $2 AND c_id = $3

-- name: payment_insert_history
INSERT INTO history (h_c_id, h_c_d_id, h_c_w_id, h_d_id, h_w_id, h_date, h_amount, h_data)
VALUES ($1, $2, $3, $4, $5, NOW(), $6 * 0.01, $7)

-- name: ostat_customer
SELECT c_balance, c_first, c_middle, c_last FROM customer
 WHERE c_w_id = $1 AND c_d_id = $2 AND c_id = $3

-- name: ostat_last_order
SELECT o_id, o_entry_d, o_carrier_id FROM orders
 WHERE o_w_id = $1 AND o_d_id = $2 AND o_c_id = $3
 ORDER BY o_id DESC LIMIT 1

-- name: ostat_order_lines
SELECT ol_i_id, ol_supply_w_id, ol_quantity, ol_amount, ol_delivery_d FROM order_line
 WHERE ol_w_id = $1 AND ol_d_id = $2 AND ol_o_id = $3

-- name: delivery_oldest_new_order
-- The district's oldest undelivered order. FOR UPDATE: a concurrent Delivery
-- of the same warehouse waits here instead of delivering the same order.
SELECT no_o_id FROM new_order WHERE no_w_id = $1 AND no_d_id = $2
 ORDER BY no_o_id LIMIT 1 FOR UPDATE

-- name: delivery_delete_new_order
DELETE FROM new_order WHERE no_w_id = $1 AND no_d_id = $2 AND no_o_id = $3

-- name: delivery_order
SELECT o_c_id FROM orders WHERE o_w_id = $1 AND o_d_id = $2 AND o_id = $3 FOR UPDATE

-- name: delivery_order_update
UPDATE orders SET o_carrier_id = $4 WHERE o_w_id = $1 AND o_d_id = $2 AND o_id = $3

-- name: delivery_order_lines
-- Each line's amount in cents; the client adds them up.
SELECT CAST(ol_amount * 100 AS SIGNED) FROM order_line
 WHERE ol_w_id = $1 AND ol_d_id = $2 AND ol_o_id = $3 FOR UPDATE

-- name: delivery_order_lines_update
UPDATE order_line SET ol_delivery_d = NOW() WHERE ol_w_id = $1 AND ol_d_id = $2 AND ol_o_id = $3

-- name: delivery_customer
UPDATE customer SET c_balance = c_balance + $4 * 0.01, c_delivery_cnt = c_delivery_cnt + 1
 WHERE c_w_id = $1 AND c_d_id = $2 AND c_id = $3

-- name: slev_next_o_id
SELECT d_next_o_id FROM district WHERE d_w_id = $1 AND d_id = $2

-- name: slev_low_stock
SELECT COUNT(DISTINCT s_i_id) FROM order_line
  JOIN stock ON s_w_id = ol_w_id AND s_i_id = ol_i_id
 WHERE ol_w_id = $1 AND ol_d_id = $2 AND ol_o_id >= $3 - 20 AND ol_o_id < $3
   AND s_quantity < $4

-- name: proc_neword
CALL sledge_neword($1, $2, $3, $4, $5, $6, $7)

-- name: proc_payment
CALL sledge_payment($1, $2, $3, $4, $5, $6, $7)

-- name: proc_ostat
CALL sledge_ostat($1, $2, $3, $4)

-- name: proc_delivery
CALL sledge_delivery($1, $2)

-- name: proc_slev
CALL sledge_slev($1, $2, $3)
