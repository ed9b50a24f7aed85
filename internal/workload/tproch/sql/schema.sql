-- TPROC-H tables, in load order (tables.go), as PostgreSQL and DuckDB create
-- them: no keys here. PostgreSQL bulk-COPYs into bare heaps, then builds the
-- primary keys and indexes once each after the load (postgres/indexes.sql).
-- DuckDB gets no keys or indexes (duckdb/indexes.sql): it scans columnar
-- segments with zone maps and joins by hashing, so the queries need none.
-- MariaDB/MySQL declare the primary key in the table (mysql/schema.sql);
-- each table's "-- overridden:" line (taken out before it runs) says so.
-- Datatypes follow the specification's (clause 1.3): decimal is
-- DECIMAL(15,2), fixed text CHAR(n), variable text VARCHAR(n), dates DATE,
-- integers INTEGER. Identifiers are INTEGER except the order keys: orders
-- are sparse (4 x the row count), so o_orderkey/l_orderkey outgrow 32 bits
-- from SF 358 and are BIGINT; the other keys fit in INTEGER up to SF 10,000
-- (p_partkey = SF x 200,000 is the first to overflow, above SF 10,737).
-- Every column is NOT NULL. Names and column order are those of tables.go.
-- DuckDB stores CHAR(n) as VARCHAR (no padding); comparisons are the same.

-- name: region
-- overridden: mysql (primary key in the table)
CREATE TABLE region (
  r_regionkey integer NOT NULL,
  r_name      char(25) NOT NULL,
  r_comment   varchar(152) NOT NULL
);

-- name: nation
-- overridden: mysql (primary key in the table)
CREATE TABLE nation (
  n_nationkey integer NOT NULL,
  n_name      char(25) NOT NULL,
  n_regionkey integer NOT NULL,
  n_comment   varchar(152) NOT NULL
);

-- name: supplier
-- overridden: mysql (primary key in the table)
CREATE TABLE supplier (
  s_suppkey   integer NOT NULL,
  s_name      char(25) NOT NULL,
  s_address   varchar(40) NOT NULL,
  s_nationkey integer NOT NULL,
  s_phone     char(15) NOT NULL,
  s_acctbal   decimal(15,2) NOT NULL,
  s_comment   varchar(101) NOT NULL
);

-- name: customer
-- overridden: mysql (primary key in the table)
CREATE TABLE customer (
  c_custkey    integer NOT NULL,
  c_name       varchar(25) NOT NULL,
  c_address    varchar(40) NOT NULL,
  c_nationkey  integer NOT NULL,
  c_phone      char(15) NOT NULL,
  c_acctbal    decimal(15,2) NOT NULL,
  c_mktsegment char(10) NOT NULL,
  c_comment    varchar(117) NOT NULL
);

-- name: part
-- overridden: mysql (primary key in the table)
CREATE TABLE part (
  p_partkey     integer NOT NULL,
  p_name        varchar(55) NOT NULL,
  p_mfgr        char(25) NOT NULL,
  p_brand       char(10) NOT NULL,
  p_type        varchar(25) NOT NULL,
  p_size        integer NOT NULL,
  p_container   char(10) NOT NULL,
  p_retailprice decimal(15,2) NOT NULL,
  p_comment     varchar(23) NOT NULL
);

-- name: partsupp
-- overridden: mysql (primary key in the table)
CREATE TABLE partsupp (
  ps_partkey    integer NOT NULL,
  ps_suppkey    integer NOT NULL,
  ps_availqty   integer NOT NULL,
  ps_supplycost decimal(15,2) NOT NULL,
  ps_comment    varchar(199) NOT NULL
);

-- name: orders
-- overridden: mysql (primary key in the table)
CREATE TABLE orders (
  o_orderkey      bigint NOT NULL,
  o_custkey       integer NOT NULL,
  o_orderstatus   char(1) NOT NULL,
  o_totalprice    decimal(15,2) NOT NULL,
  o_orderdate     date NOT NULL,
  o_orderpriority char(15) NOT NULL,
  o_clerk         char(15) NOT NULL,
  o_shippriority  integer NOT NULL,
  o_comment       varchar(79) NOT NULL
);

-- name: lineitem
-- overridden: mysql (primary key in the table)
CREATE TABLE lineitem (
  l_orderkey      bigint NOT NULL,
  l_partkey       integer NOT NULL,
  l_suppkey       integer NOT NULL,
  l_linenumber    integer NOT NULL,
  l_quantity      decimal(15,2) NOT NULL,
  l_extendedprice decimal(15,2) NOT NULL,
  l_discount      decimal(15,2) NOT NULL,
  l_tax           decimal(15,2) NOT NULL,
  l_returnflag    char(1) NOT NULL,
  l_linestatus    char(1) NOT NULL,
  l_shipdate      date NOT NULL,
  l_commitdate    date NOT NULL,
  l_receiptdate   date NOT NULL,
  l_shipinstruct  char(25) NOT NULL,
  l_shipmode      char(10) NOT NULL,
  l_comment       varchar(44) NOT NULL
);
