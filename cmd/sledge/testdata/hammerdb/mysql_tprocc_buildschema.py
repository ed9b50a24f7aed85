# Build a TPROC-C schema from HammerDB's Python CLI in mysql mode, sized
# from the machine as HammerDB 6's build scripts size it, then check it.
print("SETTING CONFIGURATION")
dbset('db', 'mysql')
dbset('bm', 'TPC-C')  # HammerDB's older name (a TPC trademark), sent as input

diset('connection', 'mysql_host', 'localhost')
diset('connection', 'mysql_port', '3306')
diset('connection', 'mysql_socket', '/tmp/mysql.sock')

vu = int(tclpy.eval('numberOfCPUs'))
warehouse = int(tclpy.eval('numberOfWHs'))
print("SIZED: %d WAREHOUSES FOR %d CPUS" % (warehouse, vu))
# The test keeps its build at 1 warehouse, loaded by 1 VU.
warehouse = min(warehouse, 1)
diset('tpcc', 'mysql_count_ware', warehouse)
diset('tpcc', 'mysql_num_vu', 1)
diset('tpcc', 'mysql_user', 'root')
diset('tpcc', 'mysql_pass', 'mysql')
diset('tpcc', 'mysql_dbase', 'tpcc')
diset('tpcc', 'mysql_storage_engine', 'innodb')
diset('tpcc', 'mysql_partition', 'true' if warehouse >= 200 else 'false')

print("SCHEMA BUILD STARTED")
buildschema()
print("SCHEMA BUILD COMPLETED")
print("CHECK SCHEMA STARTED")
checkschema()
print("CHECK SCHEMA COMPLETED")
exit()
