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
-- New-Order. An invalid (unused) item id signals SQLSTATE SLIIV; the handler
-- rolls the transaction back first (no order, no D_NEXT_O_ID increment).
CREATE PROCEDURE sledge_neword(
  p_w_id INT, p_d_id INT, p_c_id INT, p_all_local INT,
  p_i_ids TEXT, p_supply_w_ids TEXT, p_quantities TEXT)
BEGIN
  DECLARE v_ol_cnt INT DEFAULT LENGTH(p_i_ids) - LENGTH(REPLACE(p_i_ids, ',', '')) + 1;
  DECLARE v_i INT DEFAULT 1;
  DECLARE v_w_tax, v_d_tax, v_discount DECIMAL(4,4);
  DECLARE v_o_id INT;
  DECLARE v_last VARCHAR(16);
  DECLARE v_credit CHAR(2);
  DECLARE v_i_id, v_supply_w_id, v_quantity, v_s_qty INT;
  DECLARE v_price DECIMAL(5,2);
  DECLARE v_name VARCHAR(24);
  DECLARE v_i_data, v_s_data VARCHAR(50);
  DECLARE v_dist CHAR(24);
  DECLARE v_amount DECIMAL(6,2);
  DECLARE v_total DECIMAL(12,2) DEFAULT 0;
  DECLARE EXIT HANDLER FOR SQLEXCEPTION BEGIN ROLLBACK; RESIGNAL; END;

  START TRANSACTION;
  SELECT w_tax INTO v_w_tax FROM warehouse WHERE w_id = p_w_id;
  SELECT d_tax, d_next_o_id INTO v_d_tax, v_o_id FROM district
   WHERE d_w_id = p_w_id AND d_id = p_d_id FOR UPDATE;
  UPDATE district SET d_next_o_id = d_next_o_id + 1 WHERE d_w_id = p_w_id AND d_id = p_d_id;
  SELECT c_discount, c_last, c_credit INTO v_discount, v_last, v_credit
    FROM customer WHERE c_w_id = p_w_id AND c_d_id = p_d_id AND c_id = p_c_id;
  INSERT INTO orders (o_id, o_d_id, o_w_id, o_c_id, o_entry_d, o_carrier_id, o_ol_cnt, o_all_local)
  VALUES (v_o_id, p_d_id, p_w_id, p_c_id, NOW(), NULL, v_ol_cnt, p_all_local);
  INSERT INTO new_order (no_o_id, no_d_id, no_w_id) VALUES (v_o_id, p_d_id, p_w_id);
  WHILE v_i <= v_ol_cnt DO
    SET v_i_id = CAST(SUBSTRING_INDEX(SUBSTRING_INDEX(p_i_ids, ',', v_i), ',', -1) AS SIGNED);
    SET v_supply_w_id = CAST(SUBSTRING_INDEX(SUBSTRING_INDEX(p_supply_w_ids, ',', v_i), ',', -1) AS SIGNED);
    SET v_quantity = CAST(SUBSTRING_INDEX(SUBSTRING_INDEX(p_quantities, ',', v_i), ',', -1) AS SIGNED);
    SET v_price = NULL;
    SELECT i_price, i_name, i_data INTO v_price, v_name, v_i_data FROM item WHERE i_id = v_i_id;
    IF v_price IS NULL THEN
      SIGNAL SQLSTATE 'SLIIV' SET MESSAGE_TEXT = 'item number is not valid';
    END IF;
    SELECT s_quantity, s_data,
           CASE p_d_id WHEN 1 THEN s_dist_01 WHEN 2 THEN s_dist_02 WHEN 3 THEN s_dist_03 WHEN 4 THEN s_dist_04
                       WHEN 5 THEN s_dist_05 WHEN 6 THEN s_dist_06 WHEN 7 THEN s_dist_07 WHEN 8 THEN s_dist_08
                       WHEN 9 THEN s_dist_09 ELSE s_dist_10 END
      INTO v_s_qty, v_s_data, v_dist
      FROM stock WHERE s_w_id = v_supply_w_id AND s_i_id = v_i_id FOR UPDATE;
    UPDATE stock
       SET s_quantity = CASE WHEN s_quantity >= v_quantity + 10
                             THEN s_quantity - v_quantity
                             ELSE s_quantity - v_quantity + 91 END,
           s_ytd = s_ytd + v_quantity,
           s_order_cnt = s_order_cnt + 1,
           s_remote_cnt = s_remote_cnt + CASE WHEN v_supply_w_id <> p_w_id THEN 1 ELSE 0 END
     WHERE s_w_id = v_supply_w_id AND s_i_id = v_i_id;
    SET v_amount = v_quantity * v_price;
    INSERT INTO order_line (ol_o_id, ol_d_id, ol_w_id, ol_number, ol_i_id, ol_supply_w_id,
                            ol_delivery_d, ol_quantity, ol_amount, ol_dist_info)
    VALUES (v_o_id, p_d_id, p_w_id, v_i, v_i_id, v_supply_w_id, NULL, v_quantity, v_amount, v_dist);
    SET v_total = v_total + v_amount;
    SET v_i = v_i + 1;
  END WHILE;
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
-- below the threshold.
CREATE PROCEDURE sledge_slev(p_w_id INT, p_d_id INT, p_threshold INT)
BEGIN
  DECLARE v_next, v_low INT;
  DECLARE EXIT HANDLER FOR SQLEXCEPTION BEGIN ROLLBACK; RESIGNAL; END;

  START TRANSACTION READ ONLY;
  SELECT d_next_o_id INTO v_next FROM district WHERE d_w_id = p_w_id AND d_id = p_d_id;
  SELECT COUNT(DISTINCT s_i_id) INTO v_low
    FROM order_line JOIN stock ON s_w_id = ol_w_id AND s_i_id = ol_i_id
   WHERE ol_w_id = p_w_id AND ol_d_id = p_d_id AND ol_o_id >= v_next - 20 AND ol_o_id < v_next
     AND s_quantity < p_threshold;
  COMMIT;
  SELECT v_low AS low_stock;
END;
