-- Version 16: a placeholder of this branch (another change takes version
-- 16 at the same time; the lead renumbers at merge). It changes nothing.
SELECT 1;
