# A profile of runs from HammerDB's Python CLI; the last run goes through
# tclpy.eval('vurun') as HammerDB 6's Python samples do.
import os

tmpdir = os.environ['TMP']
profileid = int(os.environ['PROFILEID'])
print("SETTING CONFIGURATION")
dbset('db', 'maria')
dbset('bm', 'TPC-C')  # HammerDB's older name (a TPC trademark), sent as input
jobs('profileid', str(profileid))
giset('commandline', 'keepalive_margin', 1200)

diset('connection', 'maria_host', 'localhost')
diset('connection', 'maria_port', 3306)
diset('connection', 'maria_socket', '/tmp/mariadb.sock')
diset('tpcc', 'maria_user', 'tpcc')
diset('tpcc', 'maria_pass', 'tpcc')
diset('tpcc', 'maria_dbase', 'tpcc')
diset('tpcc', 'maria_driver', 'timed')
diset('tpcc', 'maria_rampup', '0')
diset('tpcc', 'maria_duration', '0.02')
diset('tpcc', 'maria_timeprofile', 'true')

print("TEST STARTED")
metstart()
tcstart()
for z in [1, 2]:
    loadscript()
    vuset('vu', z)
    vuset('logtotemp', 1)
    vucreate()
    metstatus()
    tcstatus()
    jobid = vurun()
    vudestroy()
    with open(os.path.join(tmpdir, "maria_tprocc_profile.%d" % profileid), "a") as f:
        f.write(str(jobid) + "\n")
tcstop()
metstop()

vuset('vu', 'vcpu')
vucreate()
jobid = tclpy.eval('vurun')
vudestroy()
with open(os.path.join(tmpdir, "maria_tprocc"), "w") as f:
    f.write(jobid)
print("TEST COMPLETE")
