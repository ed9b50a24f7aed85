# One query set by one virtual user on MariaDB in mysql mode, started through
# tclpy.eval('vurun') as HammerDB 6's Python samples start it; the job id
# kept in $TMP.
import os

tmpdir = os.environ['TMP']
print("SETTING CONFIGURATION")
dbset('db', 'mysql')
dbset('bm', 'TPC-H')  # HammerDB's older name (a TPC trademark), sent as input

diset('connection', 'mysql_host', 'localhost')
diset('connection', 'mysql_port', '3306')
diset('connection', 'mysql_socket', '/tmp/mariadb.sock')
diset('tpch', 'mysql_scale_fact', '0.01')
diset('tpch', 'mysql_tpch_user', 'root')
diset('tpch', 'mysql_tpch_pass', 'maria')
diset('tpch', 'mysql_tpch_dbase', 'tpch')
diset('tpch', 'mysql_total_querysets', '1')

loadscript()
print("TEST STARTED")
vuset('vu', '1')
vucreate()
jobid = tclpy.eval('vurun')
vudestroy()
print("TEST COMPLETE")
with open(os.path.join(tmpdir, "mysql_tproch"), "w") as f:
    f.write(jobid)
exit()
