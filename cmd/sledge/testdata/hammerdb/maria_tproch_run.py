# One query set by one virtual user on MariaDB, started through
# tclpy.eval('vurun') as HammerDB 6's Python samples start it; the job id
# kept in $TMP.
import os

tmpdir = os.environ['TMP']
print("SETTING CONFIGURATION")
dbset('db', 'maria')
dbset('bm', 'TPC-H')  # HammerDB's older name (a TPC trademark), sent as input

diset('connection', 'maria_host', 'localhost')
diset('connection', 'maria_port', '3306')
diset('connection', 'maria_socket', '/tmp/mariadb.sock')
diset('tpch', 'maria_scale_fact', '0.01')
diset('tpch', 'maria_tpch_user', 'root')
diset('tpch', 'maria_tpch_pass', 'maria')
diset('tpch', 'maria_tpch_dbase', 'tpch')
diset('tpch', 'maria_total_querysets', '1')

loadscript()
print("TEST STARTED")
vuset('vu', '1')
vucreate()
jobid = tclpy.eval('vurun')
vudestroy()
print("TEST COMPLETE")
with open(os.path.join(tmpdir, "maria_tproch"), "w") as f:
    f.write(jobid)
exit()
