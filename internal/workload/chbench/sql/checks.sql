-- CH-benCHmark's conditions on its added tables, each a query returning the
-- rows that break it (none when it holds). The first comment line is the
-- condition's description.

-- name: supplier keys
-- SU_SUPPKEY is within 0 … 9,999, what mod(S_W_ID * S_I_ID, 10000) gives
SELECT su_suppkey FROM supplier WHERE su_suppkey < 0 OR su_suppkey > 9999

-- name: supplier nations
-- every supplier's SU_NATIONKEY is a nation
SELECT su_suppkey FROM supplier WHERE su_nationkey NOT IN (SELECT n_nationkey FROM nation)

-- name: nation regions
-- every nation's N_REGIONKEY is a region
SELECT n_nationkey FROM nation WHERE n_regionkey NOT IN (SELECT r_regionkey FROM region)

-- name: customer nations
-- overridden: sqlite (unicode, not ascii)
-- every customer's nation (the code of C_STATE's first character) exists
SELECT c_w_id, c_d_id, c_id FROM customer
WHERE ascii(substr(c_state, 1, 1)) NOT IN (SELECT n_nationkey FROM nation)
