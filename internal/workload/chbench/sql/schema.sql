-- The three tables CH-benCHmark adds to the TPROC-C schema (Cole et al.,
-- "The mixed workload CH-benCHmark", DBTest 2011), one statement per table,
-- named after it. They are small (10,000, 62 and 5 rows) and never written
-- by the transactions, so their keys are declared up front. The same text
-- runs on PostgreSQL, MariaDB/MySQL and SQLite.
--
-- NATION's keys are the character codes of '0'-'9', 'A'-'Z' and 'a'-'z'
-- (48-57, 65-90, 97-122): a customer's nation is the code of the first
-- character of C_STATE, and SUPPLIER's keys 0-9999 are what a stock row's
-- mod(S_W_ID * S_I_ID, 10000) gives.

-- name: region
CREATE TABLE region (
  r_regionkey smallint NOT NULL,
  r_name      char(55) NOT NULL,
  r_comment   varchar(152) NOT NULL,
  PRIMARY KEY (r_regionkey)
);

-- name: nation
CREATE TABLE nation (
  n_nationkey smallint NOT NULL,
  n_name      char(25) NOT NULL,
  n_regionkey smallint NOT NULL,
  n_comment   varchar(152) NOT NULL,
  PRIMARY KEY (n_nationkey)
);

-- name: supplier
CREATE TABLE supplier (
  su_suppkey   integer NOT NULL,
  su_name      char(25) NOT NULL,
  su_address   varchar(40) NOT NULL,
  su_nationkey smallint NOT NULL,
  su_phone     char(15) NOT NULL,
  su_acctbal   numeric(12,2) NOT NULL,
  su_comment   varchar(101) NOT NULL,
  PRIMARY KEY (su_suppkey)
);
