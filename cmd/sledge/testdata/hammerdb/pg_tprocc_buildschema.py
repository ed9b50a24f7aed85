# Build a TPROC-C schema from HammerDB's Python CLI (hammerdbcli py auto).
print("SETTING CONFIGURATION")
dbset('db', 'pg')
dbset('bm', 'TPC-C')  # HammerDB's older name (a TPC trademark), sent as input

diset('connection', 'pg_host', 'localhost')
diset('connection', 'pg_port', '5432')
diset('connection', 'pg_sslmode', 'prefer')

diset('tpcc', 'pg_superuser', 'postgres')
diset('tpcc', 'pg_superuserpass', 'postgres')
diset('tpcc', 'pg_defaultdbase', 'postgres')
diset('tpcc', 'pg_user', 'tpcc')
diset('tpcc', 'pg_pass', 'tpcc')
diset('tpcc', 'pg_dbase', 'tpcc')
# Sized for this machine, as HammerDB's own build scripts size it; the
# test keeps its build at 2 warehouses whatever the machine would take.
cpus = int(tclpy.eval('numberOfCPUs'))
warehouse = int(tclpy.eval('numberOfWHs'))
print("SIZED: %d WAREHOUSES FOR %d CPUS" % (warehouse, cpus))
diset('tpcc', 'pg_count_ware', min(warehouse, 2))
diset('tpcc', 'pg_num_vu', 2)
diset('tpcc', 'pg_storedprocs', 'true')

print("SCHEMA BUILD STARTED")
buildschema()
print("SCHEMA BUILD COMPLETE")
