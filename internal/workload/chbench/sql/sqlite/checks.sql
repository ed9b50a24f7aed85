-- The checks whose SQLite text differs from the base, ../checks.sql.

-- name: customer nations
-- differs: SQLite has unicode(), not ascii()
-- every customer's nation (the code of C_STATE's first character) exists
SELECT c_w_id, c_d_id, c_id FROM customer
WHERE unicode(substr(c_state, 1, 1)) NOT IN (SELECT n_nationkey FROM nation)
