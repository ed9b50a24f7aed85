-- The twelve consistency conditions of the specification (3.3.2.1–3.3.2.12)
-- for MariaDB and MySQL. Each query returns the rows that violate its condition;
-- the checker counts them. The first comment line of each block is the
-- condition's description. Money is DECIMAL: compared exactly.

-- name: c1
-- W_YTD = sum(D_YTD) for every warehouse
SELECT w.w_id FROM warehouse w
  JOIN (SELECT d_w_id, SUM(d_ytd) s FROM district GROUP BY d_w_id) d ON d.d_w_id = w.w_id
 WHERE w.w_ytd <> d.s

-- name: c2
-- D_NEXT_O_ID - 1 = max(O_ID) = max(NO_O_ID) for every district
SELECT d.d_w_id, d.d_id FROM district d
  JOIN (SELECT o_w_id, o_d_id, MAX(o_id) m FROM orders GROUP BY o_w_id, o_d_id) o
    ON o.o_w_id = d.d_w_id AND o.o_d_id = d.d_id
  LEFT JOIN (SELECT no_w_id, no_d_id, MAX(no_o_id) m FROM new_order GROUP BY no_w_id, no_d_id) n
    ON n.no_w_id = d.d_w_id AND n.no_d_id = d.d_id
 WHERE d.d_next_o_id - 1 <> o.m OR (n.m IS NOT NULL AND d.d_next_o_id - 1 <> n.m)

-- name: c2_empty
-- districts without undelivered orders (a warning for condition 2, not a violation)
SELECT d.d_w_id, d.d_id FROM district d
 WHERE NOT EXISTS (SELECT 1 FROM new_order n WHERE n.no_w_id = d.d_w_id AND n.no_d_id = d.d_id)

-- name: c3
-- max(NO_O_ID) - min(NO_O_ID) + 1 = number of NEW-ORDER rows for every district
SELECT no_w_id, no_d_id FROM new_order GROUP BY no_w_id, no_d_id
HAVING MAX(no_o_id) - MIN(no_o_id) + 1 <> COUNT(*)

-- name: c4
-- sum(O_OL_CNT) = number of ORDER-LINE rows for every district
SELECT o.w, o.d FROM (SELECT o_w_id w, o_d_id d, SUM(o_ol_cnt) s FROM orders GROUP BY 1, 2) o
  LEFT JOIN (SELECT ol_w_id w, ol_d_id d, COUNT(*) c FROM order_line GROUP BY 1, 2) l
    ON l.w = o.w AND l.d = o.d
 WHERE l.c IS NULL OR o.s <> l.c

-- name: c5
-- O_CARRIER_ID is NULL exactly for the orders that have a NEW-ORDER row
SELECT o.o_w_id, o.o_d_id, o.o_id FROM orders o
  LEFT JOIN new_order n ON n.no_w_id = o.o_w_id AND n.no_d_id = o.o_d_id AND n.no_o_id = o.o_id
 WHERE (o.o_carrier_id IS NULL) <> (n.no_o_id IS NOT NULL)
UNION ALL
SELECT n.no_w_id, n.no_d_id, n.no_o_id FROM new_order n
 WHERE NOT EXISTS (SELECT 1 FROM orders o WHERE o.o_w_id = n.no_w_id AND o.o_d_id = n.no_d_id
                   AND o.o_id = n.no_o_id)

-- name: c6
-- O_OL_CNT = number of ORDER-LINE rows for every order
-- (lines counted per order first: one pass over the key instead of a probe per order)
SELECT o.o_w_id, o.o_d_id, o.o_id FROM orders o
  LEFT JOIN (SELECT ol_w_id, ol_d_id, ol_o_id, COUNT(*) n FROM order_line GROUP BY 1, 2, 3) l
    ON l.ol_w_id = o.o_w_id AND l.ol_d_id = o.o_d_id AND l.ol_o_id = o.o_id
 WHERE o.o_ol_cnt <> COALESCE(l.n, 0)

-- name: c7
-- OL_DELIVERY_D is NULL exactly when the order's O_CARRIER_ID is NULL
SELECT l.ol_w_id, l.ol_d_id, l.ol_o_id, l.ol_number FROM order_line l
  JOIN orders o ON o.o_w_id = l.ol_w_id AND o.o_d_id = l.ol_d_id AND o.o_id = l.ol_o_id
 WHERE (l.ol_delivery_d IS NULL) <> (o.o_carrier_id IS NULL)

-- name: c8
-- W_YTD = sum(H_AMOUNT) for every warehouse
SELECT w.w_id FROM warehouse w
  LEFT JOIN (SELECT h_w_id, SUM(h_amount) s FROM history GROUP BY h_w_id) h ON h.h_w_id = w.w_id
 WHERE w.w_ytd <> COALESCE(h.s, 0)

-- name: c9
-- D_YTD = sum(H_AMOUNT) for every district
SELECT d.d_w_id, d.d_id FROM district d
  LEFT JOIN (SELECT h_w_id, h_d_id, SUM(h_amount) s FROM history GROUP BY h_w_id, h_d_id) h
    ON h.h_w_id = d.d_w_id AND h.h_d_id = d.d_id
 WHERE d.d_ytd <> COALESCE(h.s, 0)

-- name: c10
-- C_BALANCE = sum(delivered OL_AMOUNT) - sum(H_AMOUNT) for every customer
SELECT c.c_w_id, c.c_d_id, c.c_id FROM customer c
  LEFT JOIN (SELECT o.o_w_id w, o.o_d_id d, o.o_c_id c, SUM(l.ol_amount) s
               FROM orders o JOIN order_line l
                 ON l.ol_w_id = o.o_w_id AND l.ol_d_id = o.o_d_id AND l.ol_o_id = o.o_id
              WHERE l.ol_delivery_d IS NOT NULL GROUP BY 1, 2, 3) ol
    ON ol.w = c.c_w_id AND ol.d = c.c_d_id AND ol.c = c.c_id
  LEFT JOIN (SELECT h_c_w_id w, h_c_d_id d, h_c_id c, SUM(h_amount) s FROM history GROUP BY 1, 2, 3) h
    ON h.w = c.c_w_id AND h.d = c.c_d_id AND h.c = c.c_id
 WHERE c.c_balance <> COALESCE(ol.s, 0) - COALESCE(h.s, 0)

-- name: c11
-- count(ORDER) - count(NEW-ORDER) = 2100 for every district
SELECT o.w, o.d FROM (SELECT o_w_id w, o_d_id d, COUNT(*) c FROM orders GROUP BY 1, 2) o
  LEFT JOIN (SELECT no_w_id w, no_d_id d, COUNT(*) c FROM new_order GROUP BY 1, 2) n
    ON n.w = o.w AND n.d = o.d
 WHERE o.c - COALESCE(n.c, 0) <> 2100

-- name: c12
-- C_BALANCE + C_YTD_PAYMENT = sum(delivered OL_AMOUNT) for every customer
SELECT c.c_w_id, c.c_d_id, c.c_id FROM customer c
  LEFT JOIN (SELECT o.o_w_id w, o.o_d_id d, o.o_c_id c, SUM(l.ol_amount) s
               FROM orders o JOIN order_line l
                 ON l.ol_w_id = o.o_w_id AND l.ol_d_id = o.o_d_id AND l.ol_o_id = o.o_id
              WHERE l.ol_delivery_d IS NOT NULL GROUP BY 1, 2, 3) ol
    ON ol.w = c.c_w_id AND ol.d = c.c_d_id AND ol.c = c.c_id
 WHERE c.c_balance + c.c_ytd_payment <> COALESCE(ol.s, 0)
