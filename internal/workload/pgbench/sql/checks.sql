-- The sums the check compares: every tpcb-like transaction adds its delta
-- to one account, one teller and one branch and records it in the history,
-- so the four sums are equal after any number of committed ones (all zero
-- after the build). The same text runs on every database.

-- name: accounts
SELECT coalesce(sum(abalance), 0) FROM pgbench_accounts;

-- name: tellers
SELECT coalesce(sum(tbalance), 0) FROM pgbench_tellers;

-- name: branches
SELECT coalesce(sum(bbalance), 0) FROM pgbench_branches;

-- name: history
SELECT coalesce(sum(delta), 0) FROM pgbench_history;
