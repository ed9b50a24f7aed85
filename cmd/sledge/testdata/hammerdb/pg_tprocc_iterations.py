# HammerDB's test driver with an iteration count, from Python.
import os
import time

tmpdir = os.environ['TMP']
dbset('db', 'pg')
diset('connection', 'pg_host', 'localhost')
diset('connection', 'pg_port', 5432)
diset('tpcc', 'pg_user', 'tpcc')
diset('tpcc', 'pg_pass', 'tpcc')
diset('tpcc', 'pg_dbase', 'tpcc')
diset('tpcc', 'pg_driver', 'test')
diset('tpcc', 'pg_total_iterations', 150)
vuset('vu', 2)
vucreate()
start = time.time()
jobid = vurun()
print("ELAPSED %d ms" % ((time.time() - start) * 1000))
vudestroy()
with open(os.path.join(tmpdir, "pg_tprocc_iterations"), "w") as f:
    f.write(str(jobid))
print("ITERATIONS COMPLETE")
