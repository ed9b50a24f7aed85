-- The five TPROC-C transactions as stored procedures for MariaDB and MySQL
-- (--mode procs): one round trip per transaction. Each procedure runs its own
-- transaction (START TRANSACTION … COMMIT) and hands its outputs back as a
-- result set, so no second query fetches OUT values. Any error rolls the
-- whole transaction back before it reaches the client: without that handler
-- a failed statement (a lock wait timeout, say) would leave the transaction
-- open and the next call's START TRANSACTION would commit half of it.
--
-- Item lists arrive as comma-separated text (the driver sends integer slices
-- that way). Money parameters are integer cents. String literals use single
-- quotes only: sessions run with ANSI_QUOTES.

-- name: drop_neword
DROP PROCEDURE IF EXISTS sledge_neword;

-- name: sledge_neword
-- New-Order, set-based: the same reads and writes as the profile's loop over
-- the lines, in seven statements instead of five plus five per line. The lines
-- are a JSON_TABLE over the item list (in line order; the generator sorts the
-- items, so stock rows are locked in item order) with each line's supply
-- warehouse and quantity picked from the other two lists by position. One
-- statement reads the lines' items, one updates their stock rows, one inserts
-- the order lines with the stock's S_DIST_xx. An invalid (unused) item has no
-- ITEM row, so the joins skip its line: all valid lines are processed first,
-- then SQLSTATE SLIIV is signalled and the handler rolls the transaction back
-- (no order, no D_NEXT_O_ID increment, no stock change).
CREATE PROCEDURE sledge_neword(
  p_w_id INT, p_d_id INT, p_c_id INT, p_all_local INT,
  p_i_ids TEXT, p_supply_w_ids TEXT, p_quantities TEXT)
BEGIN
  DECLARE v_ol_cnt INT DEFAULT LENGTH(p_i_ids) - LENGTH(REPLACE(p_i_ids, ',', '')) + 1;
  DECLARE v_w_tax, v_d_tax, v_discount DECIMAL(4,4);
  DECLARE v_o_id INT;
  DECLARE v_last VARCHAR(16);
  DECLARE v_credit CHAR(2);
  DECLARE v_items, v_done INT;
  DECLARE v_total DECIMAL(12,2);
  DECLARE EXIT HANDLER FOR SQLEXCEPTION BEGIN ROLLBACK; RESIGNAL; END;

  START TRANSACTION;
  SELECT w_tax, c_discount, c_last, c_credit INTO v_w_tax, v_discount, v_last, v_credit
    FROM warehouse, customer
   WHERE w_id = p_w_id AND c_w_id = p_w_id AND c_d_id = p_d_id AND c_id = p_c_id;
  SELECT d_tax, d_next_o_id INTO v_d_tax, v_o_id FROM district
   WHERE d_w_id = p_w_id AND d_id = p_d_id FOR UPDATE;
  UPDATE district SET d_next_o_id = d_next_o_id + 1 WHERE d_w_id = p_w_id AND d_id = p_d_id;
  INSERT INTO orders (o_id, o_d_id, o_w_id, o_c_id, o_entry_d, o_carrier_id, o_ol_cnt, o_all_local)
  VALUES (v_o_id, p_d_id, p_w_id, p_c_id, NOW(), NULL, v_ol_cnt, p_all_local);
  INSERT INTO new_order (no_o_id, no_d_id, no_w_id) VALUES (v_o_id, p_d_id, p_w_id);
  -- The lines' items (each read whole from the clustered index): how many
  -- exist, and the amounts' total from I_PRICE.
  SELECT COUNT(*), SUM(l_qty * i_price) INTO v_items, v_total
    FROM (SELECT jt.n, jt.l_i_id,
                 CAST(SUBSTRING_INDEX(SUBSTRING_INDEX(p_supply_w_ids, ',', jt.n), ',', -1) AS SIGNED) AS l_w_id,
                 CAST(SUBSTRING_INDEX(SUBSTRING_INDEX(p_quantities, ',', jt.n), ',', -1) AS SIGNED) AS l_qty
            FROM JSON_TABLE(CONCAT('[', p_i_ids, ']'), '$[*]' COLUMNS (n FOR ORDINALITY, l_i_id INT PATH '$')) jt) l
    JOIN item ON i_id = l_i_id;
  UPDATE stock
    JOIN (SELECT jt.n, jt.l_i_id,
                 CAST(SUBSTRING_INDEX(SUBSTRING_INDEX(p_supply_w_ids, ',', jt.n), ',', -1) AS SIGNED) AS l_w_id,
                 CAST(SUBSTRING_INDEX(SUBSTRING_INDEX(p_quantities, ',', jt.n), ',', -1) AS SIGNED) AS l_qty
            FROM JSON_TABLE(CONCAT('[', p_i_ids, ']'), '$[*]' COLUMNS (n FOR ORDINALITY, l_i_id INT PATH '$')) jt) l ON s_w_id = l_w_id AND s_i_id = l_i_id
    JOIN item ON i_id = l_i_id
     SET s_quantity = CASE WHEN s_quantity >= l_qty + 10
                           THEN s_quantity - l_qty
                           ELSE s_quantity - l_qty + 91 END,
         s_ytd = s_ytd + l_qty,
         s_order_cnt = s_order_cnt + 1,
         s_remote_cnt = s_remote_cnt + CASE WHEN l_w_id <> p_w_id THEN 1 ELSE 0 END;
  INSERT INTO order_line (ol_o_id, ol_d_id, ol_w_id, ol_number, ol_i_id, ol_supply_w_id,
                          ol_delivery_d, ol_quantity, ol_amount, ol_dist_info)
  SELECT v_o_id, p_d_id, p_w_id, n, l_i_id, l_w_id, NULL, l_qty, l_qty * i_price,
         CASE p_d_id WHEN 1 THEN s_dist_01 WHEN 2 THEN s_dist_02 WHEN 3 THEN s_dist_03 WHEN 4 THEN s_dist_04
                     WHEN 5 THEN s_dist_05 WHEN 6 THEN s_dist_06 WHEN 7 THEN s_dist_07 WHEN 8 THEN s_dist_08
                     WHEN 9 THEN s_dist_09 ELSE s_dist_10 END
    FROM (SELECT jt.n, jt.l_i_id,
                 CAST(SUBSTRING_INDEX(SUBSTRING_INDEX(p_supply_w_ids, ',', jt.n), ',', -1) AS SIGNED) AS l_w_id,
                 CAST(SUBSTRING_INDEX(SUBSTRING_INDEX(p_quantities, ',', jt.n), ',', -1) AS SIGNED) AS l_qty
            FROM JSON_TABLE(CONCAT('[', p_i_ids, ']'), '$[*]' COLUMNS (n FOR ORDINALITY, l_i_id INT PATH '$')) jt) l
    JOIN item ON i_id = l_i_id
    JOIN stock ON s_w_id = l_w_id AND s_i_id = l_i_id;
  SET v_done = ROW_COUNT();
  IF v_items < v_ol_cnt THEN
    SIGNAL SQLSTATE 'SLIIV' SET MESSAGE_TEXT = 'item number is not valid';
  END IF;
  IF v_done < v_ol_cnt THEN
    SIGNAL SQLSTATE 'SLNOS' SET MESSAGE_TEXT = 'an order line found no stock row';
  END IF;
  COMMIT;
  SELECT ROUND(v_total * (1 - v_discount) * (1 + v_w_tax + v_d_tax), 2) AS total;
END;

-- name: drop_payment
DROP PROCEDURE IF EXISTS sledge_payment;

-- name: sledge_payment
-- Payment. p_c_last NULL selects the customer by number (p_c_id), otherwise by
-- last name: the row at position ceil(n/2) of the matches ordered by C_FIRST.
CREATE PROCEDURE sledge_payment(
  p_w_id INT, p_d_id INT, p_c_w_id INT, p_c_d_id INT,
  p_c_id INT, p_c_last VARCHAR(16), p_amount_cents INT)
BEGIN
  DECLARE v_amount DECIMAL(6,2) DEFAULT p_amount_cents / 100;
  DECLARE v_w_name, v_d_name VARCHAR(10);
  DECLARE v_c_id INT DEFAULT p_c_id;
  DECLARE v_n, v_skip INT;
  DECLARE v_credit CHAR(2);
  DECLARE EXIT HANDLER FOR SQLEXCEPTION BEGIN ROLLBACK; RESIGNAL; END;

  START TRANSACTION;
  SELECT w_name INTO v_w_name FROM warehouse WHERE w_id = p_w_id FOR UPDATE;
  UPDATE warehouse SET w_ytd = w_ytd + v_amount WHERE w_id = p_w_id;
  SELECT d_name INTO v_d_name FROM district WHERE d_w_id = p_w_id AND d_id = p_d_id FOR UPDATE;
  UPDATE district SET d_ytd = d_ytd + v_amount WHERE d_w_id = p_w_id AND d_id = p_d_id;
  IF p_c_last IS NOT NULL THEN
    SELECT COUNT(*) INTO v_n FROM customer
     WHERE c_w_id = p_c_w_id AND c_d_id = p_c_d_id AND c_last = p_c_last;
    IF v_n = 0 THEN
      SIGNAL SQLSTATE 'SLNOC' SET MESSAGE_TEXT = 'no customer with that last name';
    END IF;
    SET v_skip = (v_n - 1) DIV 2;
    SELECT c_id INTO v_c_id FROM customer
     WHERE c_w_id = p_c_w_id AND c_d_id = p_c_d_id AND c_last = p_c_last
     ORDER BY c_first LIMIT v_skip, 1;
  END IF;
  SELECT c_credit INTO v_credit FROM customer
   WHERE c_w_id = p_c_w_id AND c_d_id = p_c_d_id AND c_id = v_c_id FOR UPDATE;
  UPDATE customer
     SET c_balance = c_balance - v_amount,
         c_ytd_payment = c_ytd_payment + v_amount,
         c_payment_cnt = c_payment_cnt + 1
   WHERE c_w_id = p_c_w_id AND c_d_id = p_c_d_id AND c_id = v_c_id;
  IF v_credit = 'BC' THEN
    UPDATE customer
       SET c_data = SUBSTRING(CONCAT(v_c_id, ' ', p_c_d_id, ' ', p_c_w_id, ' ', p_d_id, ' ',
                                     p_w_id, ' ', v_amount, ' | ', c_data), 1, 500)
     WHERE c_w_id = p_c_w_id AND c_d_id = p_c_d_id AND c_id = v_c_id;
  END IF;
  INSERT INTO history (h_c_id, h_c_d_id, h_c_w_id, h_d_id, h_w_id, h_date, h_amount, h_data)
  VALUES (v_c_id, p_c_d_id, p_c_w_id, p_d_id, p_w_id, NOW(), v_amount, CONCAT(v_w_name, '    ', v_d_name));
  COMMIT;
  SELECT v_c_id AS c_id;
END;

-- name: drop_ostat
DROP PROCEDURE IF EXISTS sledge_ostat;

-- name: sledge_ostat
-- Order-Status: the customer, then the latest order's lines as a result set.
CREATE PROCEDURE sledge_ostat(p_w_id INT, p_d_id INT, p_c_id INT, p_c_last VARCHAR(16))
BEGIN
  DECLARE v_c_id INT DEFAULT p_c_id;
  DECLARE v_n, v_skip INT;
  DECLARE v_balance DECIMAL(12,2);
  DECLARE v_first, v_last VARCHAR(16);
  DECLARE v_middle CHAR(2);
  DECLARE v_o_id INT;
  DECLARE v_entry DATETIME;
  DECLARE v_carrier INT;
  DECLARE EXIT HANDLER FOR SQLEXCEPTION BEGIN ROLLBACK; RESIGNAL; END;

  START TRANSACTION READ ONLY;
  IF p_c_last IS NOT NULL THEN
    SELECT COUNT(*) INTO v_n FROM customer
     WHERE c_w_id = p_w_id AND c_d_id = p_d_id AND c_last = p_c_last;
    IF v_n = 0 THEN
      SIGNAL SQLSTATE 'SLNOC' SET MESSAGE_TEXT = 'no customer with that last name';
    END IF;
    SET v_skip = (v_n - 1) DIV 2;
    SELECT c_id INTO v_c_id FROM customer
     WHERE c_w_id = p_w_id AND c_d_id = p_d_id AND c_last = p_c_last
     ORDER BY c_first LIMIT v_skip, 1;
  END IF;
  SELECT c_balance, c_first, c_middle, c_last INTO v_balance, v_first, v_middle, v_last
    FROM customer WHERE c_w_id = p_w_id AND c_d_id = p_d_id AND c_id = v_c_id;
  SELECT o_id, o_entry_d, o_carrier_id INTO v_o_id, v_entry, v_carrier
    FROM orders WHERE o_w_id = p_w_id AND o_d_id = p_d_id AND o_c_id = v_c_id
   ORDER BY o_id DESC LIMIT 1;
  SELECT ol_i_id, ol_supply_w_id, ol_quantity, ol_amount, ol_delivery_d
    FROM order_line WHERE ol_w_id = p_w_id AND ol_d_id = p_d_id AND ol_o_id = v_o_id;
  COMMIT;
END;

-- name: drop_delivery
DROP PROCEDURE IF EXISTS sledge_delivery;

-- name: sledge_delivery
-- Delivery of the oldest undelivered order in each of the warehouse's ten
-- districts, in one transaction. Returns how many districts had an order to
-- deliver (the rest were skipped).
CREATE PROCEDURE sledge_delivery(p_w_id INT, p_carrier_id INT)
BEGIN
  DECLARE v_d INT DEFAULT 1;
  DECLARE v_o_id, v_c_id INT;
  DECLARE v_amount DECIMAL(12,2);
  DECLARE v_delivered INT DEFAULT 0;
  DECLARE EXIT HANDLER FOR SQLEXCEPTION BEGIN ROLLBACK; RESIGNAL; END;

  START TRANSACTION;
  WHILE v_d <= 10 DO
    SET v_o_id = NULL;
    SELECT no_o_id INTO v_o_id FROM new_order
     WHERE no_w_id = p_w_id AND no_d_id = v_d
     ORDER BY no_o_id LIMIT 1 FOR UPDATE;
    IF v_o_id IS NOT NULL THEN
      DELETE FROM new_order WHERE no_w_id = p_w_id AND no_d_id = v_d AND no_o_id = v_o_id;
      SELECT o_c_id INTO v_c_id FROM orders
       WHERE o_w_id = p_w_id AND o_d_id = v_d AND o_id = v_o_id FOR UPDATE;
      UPDATE orders SET o_carrier_id = p_carrier_id
       WHERE o_w_id = p_w_id AND o_d_id = v_d AND o_id = v_o_id;
      SELECT COALESCE(SUM(ol_amount), 0) INTO v_amount FROM order_line
       WHERE ol_w_id = p_w_id AND ol_d_id = v_d AND ol_o_id = v_o_id FOR UPDATE;
      UPDATE order_line SET ol_delivery_d = NOW()
       WHERE ol_w_id = p_w_id AND ol_d_id = v_d AND ol_o_id = v_o_id;
      UPDATE customer SET c_balance = c_balance + v_amount, c_delivery_cnt = c_delivery_cnt + 1
       WHERE c_w_id = p_w_id AND c_d_id = v_d AND c_id = v_c_id;
      SET v_delivered = v_delivered + 1;
    END IF;
    SET v_d = v_d + 1;
  END WHILE;
  COMMIT;
  SELECT v_delivered AS delivered;
END;

-- name: drop_slev
DROP PROCEDURE IF EXISTS sledge_slev;

-- name: sledge_slev
-- Stock-Level: distinct items of the district's last 20 orders whose stock is
-- below the threshold, in one statement (the district row bounds the order
-- range inside the join).
CREATE PROCEDURE sledge_slev(p_w_id INT, p_d_id INT, p_threshold INT)
BEGIN
  DECLARE v_low INT;
  DECLARE EXIT HANDLER FOR SQLEXCEPTION BEGIN ROLLBACK; RESIGNAL; END;

  START TRANSACTION READ ONLY;
  SELECT COUNT(DISTINCT s_i_id) INTO v_low
    FROM district
    JOIN order_line ON ol_w_id = d_w_id AND ol_d_id = d_id
                   AND ol_o_id >= d_next_o_id - 20 AND ol_o_id < d_next_o_id
    JOIN stock ON s_w_id = ol_w_id AND s_i_id = ol_i_id
   WHERE d_w_id = p_w_id AND d_id = p_d_id AND s_quantity < p_threshold;
  COMMIT;
  SELECT v_low AS low_stock;
END;
