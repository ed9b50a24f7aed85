# One query set by one virtual user, started through tclpy.eval('vurun') as
# HammerDB 6's Python samples start it; the job id kept in $TMP.
import os

tmpdir = os.environ['TMP']
print("SETTING CONFIGURATION")
dbset('db', 'pg')
dbset('bm', 'TPC-H')  # HammerDB's older name (a TPC trademark), sent as input

diset('connection', 'pg_host', 'localhost')
diset('connection', 'pg_port', '5432')
diset('tpch', 'pg_scale_fact', '0.01')
diset('tpch', 'pg_tpch_user', 'tpch')
diset('tpch', 'pg_tpch_pass', 'tpch')
diset('tpch', 'pg_tpch_dbase', 'tpch')
diset('tpch', 'pg_total_querysets', '1')

loadscript()
print("TEST STARTED")
vuset('vu', '1')
vucreate()
jobid = tclpy.eval('vurun')
vudestroy()
print("TEST COMPLETE")
with open(os.path.join(tmpdir, "pg_tproch"), "w") as f:
    f.write(jobid)
exit()
