# Build a TPROC-H schema on MariaDB in mysql mode from HammerDB's Python CLI, at the
# smallest size worth querying, one loader per CPU.
print("SETTING CONFIGURATION")
dbset('db', 'mysql')
dbset('bm', 'TPC-H')  # HammerDB's older name (a TPC trademark), sent as input

diset('connection', 'mysql_host', 'localhost')
diset('connection', 'mysql_port', '3306')
diset('connection', 'mysql_socket', '/tmp/mariadb.sock')

diset('tpch', 'mysql_scale_fact', '0.01')
diset('tpch', 'mysql_num_tpch_threads', tclpy.eval('numberOfCPUs'))
diset('tpch', 'mysql_tpch_user', 'root')
diset('tpch', 'mysql_tpch_pass', 'maria')
diset('tpch', 'mysql_tpch_dbase', 'tpch')
diset('tpch', 'mysql_tpch_storage_engine', 'innodb')

print("SCHEMA BUILD STARTED")
print("BUILD ANSWER: " + buildschema())
print("SCHEMA BUILD COMPLETED")
exit()
