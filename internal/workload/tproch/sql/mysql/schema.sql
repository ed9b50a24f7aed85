-- The TPROC-H tables for MariaDB and MySQL: each differs from the base,
-- ../schema.sql (datatypes explained there), by its primary key. InnoDB
-- clusters rows on the primary key, so the keys are declared here and the
-- loader inserts in key order; the secondary indexes (indexes.sql) are built
-- after the load. The storage engine is the session's default_storage_engine.

-- name: region
-- differs: InnoDB clusters rows on the primary key, so it is declared with the table, before the load
CREATE TABLE region (
  r_regionkey integer NOT NULL,
  r_name      char(25) NOT NULL,
  r_comment   varchar(152) NOT NULL,
  PRIMARY KEY (r_regionkey)
);

-- name: nation
-- differs: InnoDB clusters rows on the primary key, so it is declared with the table, before the load
CREATE TABLE nation (
  n_nationkey integer NOT NULL,
  n_name      char(25) NOT NULL,
  n_regionkey integer NOT NULL,
  n_comment   varchar(152) NOT NULL,
  PRIMARY KEY (n_nationkey)
);

-- name: supplier
-- differs: InnoDB clusters rows on the primary key, so it is declared with the table, before the load
CREATE TABLE supplier (
  s_suppkey   integer NOT NULL,
  s_name      char(25) NOT NULL,
  s_address   varchar(40) NOT NULL,
  s_nationkey integer NOT NULL,
  s_phone     char(15) NOT NULL,
  s_acctbal   decimal(15,2) NOT NULL,
  s_comment   varchar(101) NOT NULL,
  PRIMARY KEY (s_suppkey)
);

-- name: customer
-- differs: InnoDB clusters rows on the primary key, so it is declared with the table, before the load
CREATE TABLE customer (
  c_custkey    integer NOT NULL,
  c_name       varchar(25) NOT NULL,
  c_address    varchar(40) NOT NULL,
  c_nationkey  integer NOT NULL,
  c_phone      char(15) NOT NULL,
  c_acctbal    decimal(15,2) NOT NULL,
  c_mktsegment char(10) NOT NULL,
  c_comment    varchar(117) NOT NULL,
  PRIMARY KEY (c_custkey)
);

-- name: part
-- differs: InnoDB clusters rows on the primary key, so it is declared with the table, before the load
CREATE TABLE part (
  p_partkey     integer NOT NULL,
  p_name        varchar(55) NOT NULL,
  p_mfgr        char(25) NOT NULL,
  p_brand       char(10) NOT NULL,
  p_type        varchar(25) NOT NULL,
  p_size        integer NOT NULL,
  p_container   char(10) NOT NULL,
  p_retailprice decimal(15,2) NOT NULL,
  p_comment     varchar(23) NOT NULL,
  PRIMARY KEY (p_partkey)
);

-- name: partsupp
-- differs: InnoDB clusters rows on the primary key, so it is declared with the table, before the load
CREATE TABLE partsupp (
  ps_partkey    integer NOT NULL,
  ps_suppkey    integer NOT NULL,
  ps_availqty   integer NOT NULL,
  ps_supplycost decimal(15,2) NOT NULL,
  ps_comment    varchar(199) NOT NULL,
  PRIMARY KEY (ps_partkey, ps_suppkey)
);

-- name: orders
-- differs: InnoDB clusters rows on the primary key, so it is declared with the table, before the load
CREATE TABLE orders (
  o_orderkey      bigint NOT NULL,
  o_custkey       integer NOT NULL,
  o_orderstatus   char(1) NOT NULL,
  o_totalprice    decimal(15,2) NOT NULL,
  o_orderdate     date NOT NULL,
  o_orderpriority char(15) NOT NULL,
  o_clerk         char(15) NOT NULL,
  o_shippriority  integer NOT NULL,
  o_comment       varchar(79) NOT NULL,
  PRIMARY KEY (o_orderkey)
);

-- name: lineitem
-- differs: InnoDB clusters rows on the primary key, so it is declared with the table, before the load
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
  l_comment       varchar(44) NOT NULL,
  PRIMARY KEY (l_orderkey, l_linenumber)
);
