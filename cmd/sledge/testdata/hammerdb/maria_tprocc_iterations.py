# HammerDB's test driver with an iteration count, from Python.
import os
import time

tmpdir = os.environ['TMP']
dbset('db', 'maria')
diset('connection', 'maria_host', 'localhost')
diset('connection', 'maria_port', 3306)
diset('connection', 'maria_socket', '/tmp/mariadb.sock')
diset('tpcc', 'maria_user', 'tpcc')
diset('tpcc', 'maria_pass', 'tpcc')
diset('tpcc', 'maria_dbase', 'tpcc')
diset('tpcc', 'maria_driver', 'test')
diset('tpcc', 'maria_total_iterations', 150)
vuset('vu', 2)
vucreate()
start = time.time()
jobid = vurun()
print("ELAPSED %d ms" % ((time.time() - start) * 1000))
vudestroy()
with open(os.path.join(tmpdir, "maria_tprocc_iterations"), "w") as f:
    f.write(str(jobid))
print("ITERATIONS COMPLETE")
