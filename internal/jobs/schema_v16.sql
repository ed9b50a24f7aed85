-- Version 16: what a job that failed on its workload's schema found
-- (Job.SchemaFailure: the workload.SchemaError's kind, its workload, and
-- the workload whose schema the database holds instead), so that a front
-- end reading the job words it as the one that ran it; '' for every other
-- job, and for jobs stored before it was recorded.
ALTER TABLE job ADD COLUMN schema_error TEXT NOT NULL DEFAULT '';
ALTER TABLE job ADD COLUMN schema_error_workload TEXT NOT NULL DEFAULT '';
ALTER TABLE job ADD COLUMN schema_error_holds TEXT NOT NULL DEFAULT '';
