# One timed run from HammerDB's Python CLI in mysql mode, as many virtual
# users as CPUs, started through tclpy.eval('vurun') as HammerDB 6's Python
# samples start it; the job id kept in $TMP.
import os

tmpdir = os.environ['TMP']
print("SETTING CONFIGURATION")
dbset('db', 'mysql')
dbset('bm', 'TPC-C')  # HammerDB's older name (a TPC trademark), sent as input

diset('connection', 'mysql_host', 'localhost')
diset('connection', 'mysql_port', '3306')
diset('connection', 'mysql_socket', '/tmp/mysql.sock')
diset('tpcc', 'mysql_user', 'root')
diset('tpcc', 'mysql_pass', 'mysql')
diset('tpcc', 'mysql_dbase', 'tpcc')
diset('tpcc', 'mysql_driver', 'timed')
diset('tpcc', 'mysql_rampup', '0')
diset('tpcc', 'mysql_duration', '0.02')
diset('tpcc', 'mysql_allwarehouse', 'true')
diset('tpcc', 'mysql_timeprofile', 'true')

loadscript()
print("TEST STARTED")
vuset('vu', 'vcpu')
vucreate()
tcstart()
tcstatus()
jobid = tclpy.eval('vurun')
vudestroy()
tcstop()
print("TEST COMPLETE")
with open(os.path.join(tmpdir, "mysql_tprocc"), "w") as f:
    f.write(jobid)
exit()
