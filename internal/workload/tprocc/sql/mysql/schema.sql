-- TPROC-C tables for MariaDB and MySQL, in load order. InnoDB tables are
-- clustered on their primary key, so the keys are declared up front and every
-- load stream inserts in key order; the secondary indexes (indexes.sql) are
-- built after the load, one sorted build each. The storage engine is the
-- session's default_storage_engine (InnoDB unless --engine says otherwise).
-- Money columns are exact DECIMAL; consistency checks compare them exactly.
-- Sessions run with ANSI_QUOTES: "key" is a quoted identifier.

-- name: sledge_meta
CREATE TABLE sledge_meta (
  "key" varchar(64) PRIMARY KEY,
  value text NOT NULL
);

-- name: item
CREATE TABLE item (
  i_id    integer NOT NULL,
  i_im_id integer NOT NULL,
  i_name  varchar(24) NOT NULL,
  i_price decimal(5,2) NOT NULL,
  i_data  varchar(50) NOT NULL,
  PRIMARY KEY (i_id)
);

-- name: warehouse
CREATE TABLE warehouse (
  w_id       integer NOT NULL,
  w_name     varchar(10) NOT NULL,
  w_street_1 varchar(20) NOT NULL,
  w_street_2 varchar(20) NOT NULL,
  w_city     varchar(20) NOT NULL,
  w_state    char(2) NOT NULL,
  w_zip      char(9) NOT NULL,
  w_tax      decimal(4,4) NOT NULL,
  w_ytd      decimal(12,2) NOT NULL,
  PRIMARY KEY (w_id)
);

-- name: district
CREATE TABLE district (
  d_id        smallint NOT NULL,
  d_w_id      integer NOT NULL,
  d_name      varchar(10) NOT NULL,
  d_street_1  varchar(20) NOT NULL,
  d_street_2  varchar(20) NOT NULL,
  d_city      varchar(20) NOT NULL,
  d_state     char(2) NOT NULL,
  d_zip       char(9) NOT NULL,
  d_tax       decimal(4,4) NOT NULL,
  d_ytd       decimal(12,2) NOT NULL,
  d_next_o_id integer NOT NULL,
  PRIMARY KEY (d_w_id, d_id)
);

-- name: customer
CREATE TABLE customer (
  c_id           integer NOT NULL,
  c_d_id         smallint NOT NULL,
  c_w_id         integer NOT NULL,
  c_first        varchar(16) NOT NULL,
  c_middle       char(2) NOT NULL,
  c_last         varchar(16) NOT NULL,
  c_street_1     varchar(20) NOT NULL,
  c_street_2     varchar(20) NOT NULL,
  c_city         varchar(20) NOT NULL,
  c_state        char(2) NOT NULL,
  c_zip          char(9) NOT NULL,
  c_phone        char(16) NOT NULL,
  c_since        datetime NOT NULL,
  c_credit       char(2) NOT NULL,
  c_credit_lim   decimal(12,2) NOT NULL,
  c_discount     decimal(4,4) NOT NULL,
  c_balance      decimal(12,2) NOT NULL,
  c_ytd_payment  decimal(12,2) NOT NULL,
  c_payment_cnt  integer NOT NULL,
  c_delivery_cnt integer NOT NULL,
  c_data         varchar(500) NOT NULL,
  PRIMARY KEY (c_w_id, c_d_id, c_id)
);

-- name: history
CREATE TABLE history (
  h_c_id   integer NOT NULL,
  h_c_d_id smallint NOT NULL,
  h_c_w_id integer NOT NULL,
  h_d_id   smallint NOT NULL,
  h_w_id   integer NOT NULL,
  h_date   datetime NOT NULL,
  h_amount decimal(6,2) NOT NULL,
  h_data   varchar(24) NOT NULL
);

-- name: orders
CREATE TABLE orders (
  o_id         integer NOT NULL,
  o_d_id       smallint NOT NULL,
  o_w_id       integer NOT NULL,
  o_c_id       integer NOT NULL,
  o_entry_d    datetime NOT NULL,
  o_carrier_id smallint,
  o_ol_cnt     smallint NOT NULL,
  o_all_local  smallint NOT NULL,
  PRIMARY KEY (o_w_id, o_d_id, o_id)
);

-- name: new_order
CREATE TABLE new_order (
  no_o_id integer NOT NULL,
  no_d_id smallint NOT NULL,
  no_w_id integer NOT NULL,
  PRIMARY KEY (no_w_id, no_d_id, no_o_id)
);

-- name: order_line
CREATE TABLE order_line (
  ol_o_id        integer NOT NULL,
  ol_d_id        smallint NOT NULL,
  ol_w_id        integer NOT NULL,
  ol_number      smallint NOT NULL,
  ol_i_id        integer NOT NULL,
  ol_supply_w_id integer NOT NULL,
  ol_delivery_d  datetime,
  ol_quantity    smallint NOT NULL,
  ol_amount      decimal(6,2) NOT NULL,
  ol_dist_info   char(24) NOT NULL,
  PRIMARY KEY (ol_w_id, ol_d_id, ol_o_id, ol_number)
);

-- name: stock
CREATE TABLE stock (
  s_i_id       integer NOT NULL,
  s_w_id       integer NOT NULL,
  s_quantity   smallint NOT NULL,
  s_dist_01    char(24) NOT NULL,
  s_dist_02    char(24) NOT NULL,
  s_dist_03    char(24) NOT NULL,
  s_dist_04    char(24) NOT NULL,
  s_dist_05    char(24) NOT NULL,
  s_dist_06    char(24) NOT NULL,
  s_dist_07    char(24) NOT NULL,
  s_dist_08    char(24) NOT NULL,
  s_dist_09    char(24) NOT NULL,
  s_dist_10    char(24) NOT NULL,
  s_ytd        integer NOT NULL,
  s_order_cnt  integer NOT NULL,
  s_remote_cnt integer NOT NULL,
  s_data       varchar(50) NOT NULL,
  PRIMARY KEY (s_w_id, s_i_id)
);
