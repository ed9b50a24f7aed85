-- The five TPROC-C transactions as PL/pgSQL functions for --mode procs: one
-- round trip per transaction, called as a single autocommit statement. Each
-- follows the profile in the reference sheet (§7); money parameters are
-- integer cents.

-- name: sledge_neword
-- New-Order, set-based: the same reads and writes as the profile's loop over
-- the lines, in four statements instead of five plus three per line. The
-- lines statement reads every item, updates every stock row and inserts every
-- order line at once, in line order (the generator sorts the items, so stock
-- rows are locked in item order). An invalid (unused) item has no ITEM row,
-- so the join skips its line: all valid lines are processed first, then
-- SQLSTATE SLIIV aborts the statement and the whole transaction really rolls
-- back (no order, no D_NEXT_O_ID increment, no stock change).
CREATE OR REPLACE FUNCTION sledge_neword(
  p_w_id integer, p_d_id integer, p_c_id integer, p_all_local integer,
  p_i_ids integer[], p_supply_w_ids integer[], p_quantities integer[])
RETURNS numeric LANGUAGE plpgsql AS $$
DECLARE
  v_ol_cnt   integer := cardinality(p_i_ids);
  v_w_tax    numeric;
  v_d_tax    numeric;
  v_o_id     integer;
  v_discount numeric;
  v_last     varchar(16);
  v_credit   char(2);
  v_done     integer;
  v_total    numeric;
  v_bad      integer;
BEGIN
  SELECT w_tax, c_discount, c_last, c_credit INTO v_w_tax, v_discount, v_last, v_credit
    FROM warehouse, customer
   WHERE w_id = p_w_id AND c_w_id = p_w_id AND c_d_id = p_d_id AND c_id = p_c_id;
  UPDATE district SET d_next_o_id = d_next_o_id + 1
   WHERE d_w_id = p_w_id AND d_id = p_d_id
  RETURNING d_tax, d_next_o_id - 1 INTO v_d_tax, v_o_id;
  WITH o AS (
    INSERT INTO orders (o_id, o_d_id, o_w_id, o_c_id, o_entry_d, o_carrier_id, o_ol_cnt, o_all_local)
    VALUES (v_o_id, p_d_id, p_w_id, p_c_id, now(), NULL, v_ol_cnt, p_all_local))
  INSERT INTO new_order (no_o_id, no_d_id, no_w_id) VALUES (v_o_id, p_d_id, p_w_id);
  WITH l AS (
    SELECT l.n, l.i_id, l.w_id, l.qty, i.i_price, i.i_name, i.i_data
      FROM unnest(p_i_ids, p_supply_w_ids, p_quantities) WITH ORDINALITY AS l(i_id, w_id, qty, n)
      JOIN item i ON i.i_id = l.i_id),
  s AS (
    UPDATE stock
       SET s_quantity = CASE WHEN s_quantity >= l.qty + 10
                             THEN s_quantity - l.qty
                             ELSE s_quantity - l.qty + 91 END,
           s_ytd = s_ytd + l.qty,
           s_order_cnt = s_order_cnt + 1,
           s_remote_cnt = s_remote_cnt + CASE WHEN l.w_id <> p_w_id THEN 1 ELSE 0 END
      FROM l
     WHERE s_w_id = l.w_id AND s_i_id = l.i_id
    RETURNING l.n, l.i_id, l.w_id, l.qty, l.qty * l.i_price AS amount, l.i_name, s_quantity,
           CASE WHEN strpos(l.i_data, 'ORIGINAL') > 0 AND strpos(s_data, 'ORIGINAL') > 0
                THEN 'B' ELSE 'G' END AS brand,
           CASE p_d_id WHEN 1 THEN s_dist_01 WHEN 2 THEN s_dist_02 WHEN 3 THEN s_dist_03 WHEN 4 THEN s_dist_04
                       WHEN 5 THEN s_dist_05 WHEN 6 THEN s_dist_06 WHEN 7 THEN s_dist_07 WHEN 8 THEN s_dist_08
                       WHEN 9 THEN s_dist_09 ELSE s_dist_10 END AS dist),
  ol AS (
    INSERT INTO order_line (ol_o_id, ol_d_id, ol_w_id, ol_number, ol_i_id, ol_supply_w_id,
                            ol_delivery_d, ol_quantity, ol_amount, ol_dist_info)
    SELECT v_o_id, p_d_id, p_w_id, n, i_id, w_id, NULL, qty, amount, dist FROM s
    RETURNING ol_amount)
  SELECT count(*), coalesce(sum(ol_amount), 0) INTO v_done, v_total FROM ol;
  IF v_done < v_ol_cnt THEN
    SELECT x INTO v_bad FROM unnest(p_i_ids) AS x
     WHERE NOT EXISTS (SELECT FROM item WHERE i_id = x) LIMIT 1;
    IF v_bad IS NOT NULL THEN
      RAISE EXCEPTION 'item number % is not valid', v_bad USING ERRCODE = 'SLIIV';
    END IF;
    RAISE EXCEPTION 'New-Order %/%: % of % lines found their stock row', p_w_id, p_d_id, v_done, v_ol_cnt;
  END IF;
  RETURN round(v_total * (1 - v_discount) * (1 + v_w_tax + v_d_tax), 2);
END
$$;

-- name: sledge_payment
-- Payment. p_c_last NULL selects the customer by number (p_c_id), otherwise by
-- last name: the row at position ceil(n/2) of the matches ordered by C_FIRST.
CREATE OR REPLACE FUNCTION sledge_payment(
  p_w_id integer, p_d_id integer, p_c_w_id integer, p_c_d_id integer,
  p_c_id integer, p_c_last varchar, p_amount_cents integer)
RETURNS integer LANGUAGE plpgsql AS $$
DECLARE
  v_amount  numeric := p_amount_cents * 0.01;
  v_w_name  varchar(10);
  v_d_name  varchar(10);
  v_c_id    integer := p_c_id;
  v_credit  char(2);
BEGIN
  UPDATE warehouse SET w_ytd = w_ytd + v_amount WHERE w_id = p_w_id
  RETURNING w_name INTO v_w_name;
  UPDATE district SET d_ytd = d_ytd + v_amount WHERE d_w_id = p_w_id AND d_id = p_d_id
  RETURNING d_name INTO v_d_name;
  IF p_c_last IS NOT NULL THEN
    SELECT (array_agg(c_id ORDER BY c_first))[(count(*)::integer + 1) / 2] INTO v_c_id
      FROM customer WHERE c_w_id = p_c_w_id AND c_d_id = p_c_d_id AND c_last = p_c_last;
    IF v_c_id IS NULL THEN
      RAISE EXCEPTION 'no customer named % in warehouse % district %', p_c_last, p_c_w_id, p_c_d_id;
    END IF;
  END IF;
  UPDATE customer
     SET c_balance = c_balance - v_amount,
         c_ytd_payment = c_ytd_payment + v_amount,
         c_payment_cnt = c_payment_cnt + 1
   WHERE c_w_id = p_c_w_id AND c_d_id = p_c_d_id AND c_id = v_c_id
  RETURNING c_credit INTO v_credit;
  IF v_credit = 'BC' THEN
    UPDATE customer
       SET c_data = substr(v_c_id || ' ' || p_c_d_id || ' ' || p_c_w_id || ' ' || p_d_id || ' ' ||
                           p_w_id || ' ' || v_amount || ' | ' || c_data, 1, 500)
     WHERE c_w_id = p_c_w_id AND c_d_id = p_c_d_id AND c_id = v_c_id;
  END IF;
  INSERT INTO history (h_c_id, h_c_d_id, h_c_w_id, h_d_id, h_w_id, h_date, h_amount, h_data)
  VALUES (v_c_id, p_c_d_id, p_c_w_id, p_d_id, p_w_id, now(), v_amount, v_w_name || '    ' || v_d_name);
  RETURN v_c_id;
END
$$;

-- name: sledge_ostat
-- Order-Status: the customer's latest order and its lines, returned as rows.
CREATE OR REPLACE FUNCTION sledge_ostat(
  p_w_id integer, p_d_id integer, p_c_id integer, p_c_last varchar)
RETURNS TABLE (ol_i_id integer, ol_supply_w_id integer, ol_quantity smallint,
               ol_amount numeric, ol_delivery_d timestamp)
LANGUAGE plpgsql AS $$
DECLARE
  v_c_id    integer := p_c_id;
  v_balance numeric;
  v_first   varchar(16);
  v_middle  char(2);
  v_last    varchar(16);
  v_o_id    integer;
  v_entry   timestamp;
  v_carrier smallint;
BEGIN
  IF p_c_last IS NOT NULL THEN
    SELECT (array_agg(c.c_id ORDER BY c.c_first))[(count(*)::integer + 1) / 2] INTO v_c_id
      FROM customer c WHERE c.c_w_id = p_w_id AND c.c_d_id = p_d_id AND c.c_last = p_c_last;
    IF v_c_id IS NULL THEN
      RAISE EXCEPTION 'no customer named % in warehouse % district %', p_c_last, p_w_id, p_d_id;
    END IF;
  END IF;
  SELECT c.c_balance, c.c_first, c.c_middle, c.c_last INTO v_balance, v_first, v_middle, v_last
    FROM customer c WHERE c.c_w_id = p_w_id AND c.c_d_id = p_d_id AND c.c_id = v_c_id;
  SELECT o.o_id, o.o_entry_d, o.o_carrier_id INTO v_o_id, v_entry, v_carrier
    FROM orders o WHERE o.o_w_id = p_w_id AND o.o_d_id = p_d_id AND o.o_c_id = v_c_id
   ORDER BY o.o_id DESC LIMIT 1;
  RETURN QUERY
    SELECT l.ol_i_id, l.ol_supply_w_id, l.ol_quantity, l.ol_amount, l.ol_delivery_d
      FROM order_line l WHERE l.ol_w_id = p_w_id AND l.ol_d_id = p_d_id AND l.ol_o_id = v_o_id;
END
$$;

-- name: sledge_delivery
-- Delivery of the oldest undelivered order in each of the warehouse's ten
-- districts, in one transaction. Returns how many districts had an order to
-- deliver (the rest were skipped).
CREATE OR REPLACE FUNCTION sledge_delivery(p_w_id integer, p_carrier_id integer)
RETURNS integer LANGUAGE plpgsql AS $$
DECLARE
  v_o_id      integer;
  v_c_id      integer;
  v_amount    numeric;
  v_delivered integer := 0;
BEGIN
  FOR d IN 1 .. 10 LOOP
    SELECT no_o_id INTO v_o_id FROM new_order
     WHERE no_w_id = p_w_id AND no_d_id = d
     ORDER BY no_o_id LIMIT 1 FOR UPDATE;
    CONTINUE WHEN NOT FOUND;
    DELETE FROM new_order WHERE no_w_id = p_w_id AND no_d_id = d AND no_o_id = v_o_id;
    UPDATE orders SET o_carrier_id = p_carrier_id
     WHERE o_w_id = p_w_id AND o_d_id = d AND o_id = v_o_id
    RETURNING o_c_id INTO v_c_id;
    WITH delivered AS (
      UPDATE order_line SET ol_delivery_d = now()
       WHERE ol_w_id = p_w_id AND ol_d_id = d AND ol_o_id = v_o_id
      RETURNING ol_amount)
    SELECT coalesce(sum(ol_amount), 0) INTO v_amount FROM delivered;
    UPDATE customer SET c_balance = c_balance + v_amount, c_delivery_cnt = c_delivery_cnt + 1
     WHERE c_w_id = p_w_id AND c_d_id = d AND c_id = v_c_id;
    v_delivered := v_delivered + 1;
  END LOOP;
  RETURN v_delivered;
END
$$;

-- name: sledge_slev
-- Stock-Level: distinct items of the district's last 20 orders whose stock is
-- below the threshold, in one statement (the district row bounds the order
-- range inside the join).
CREATE OR REPLACE FUNCTION sledge_slev(p_w_id integer, p_d_id integer, p_threshold integer)
RETURNS integer LANGUAGE plpgsql AS $$
DECLARE
  v_low integer;
BEGIN
  SELECT count(DISTINCT s_i_id) INTO v_low
    FROM district
    JOIN order_line ON ol_w_id = d_w_id AND ol_d_id = d_id
                   AND ol_o_id >= d_next_o_id - 20 AND ol_o_id < d_next_o_id
    JOIN stock ON s_w_id = ol_w_id AND s_i_id = ol_i_id
   WHERE d_w_id = p_w_id AND d_id = p_d_id AND s_quantity < p_threshold;
  RETURN v_low;
END
$$;
