# Build a TPROC-C schema from HammerDB's Python CLI (hammerdbcli py auto).
print("SETTING CONFIGURATION")
dbset('db', 'maria')
dbset('bm', 'TPC-C')  # HammerDB's older name (a TPC trademark), sent as input

diset('connection', 'maria_host', 'localhost')
diset('connection', 'maria_port', '3306')
diset('connection', 'maria_socket', '/tmp/mariadb.sock')

diset('tpcc', 'maria_user', 'tpcc')
diset('tpcc', 'maria_pass', 'tpcc')
diset('tpcc', 'maria_dbase', 'tpcc')
# Sized for this machine, as HammerDB's own build scripts size it; the
# test keeps its build at 2 warehouses whatever the machine would take.
cpus = int(tclpy.eval('numberOfCPUs'))
warehouse = int(tclpy.eval('numberOfWHs'))
print("SIZED: %d WAREHOUSES FOR %d CPUS" % (warehouse, cpus))
diset('tpcc', 'maria_count_ware', min(warehouse, 2))
diset('tpcc', 'maria_num_vu', 2)
diset('tpcc', 'maria_no_stored_procs', 'false')

print("SCHEMA BUILD STARTED")
buildschema()
print("SCHEMA BUILD COMPLETE")
