-- Version 15: how far the server-wide TPM may stray from the window's own
-- commits (metrics.RunResult.ServerTPMMargin, ± per minute); NULL where the
-- server's TPM is, and for runs stored before it was computed.
ALTER TABLE job_result ADD COLUMN server_tpm_margin REAL;
