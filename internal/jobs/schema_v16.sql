-- Version 16: a placeholder of this branch (i29-export) for the version
-- another branch adds at the same time; renumbered at merge. It changes
-- nothing.
SELECT 1;
