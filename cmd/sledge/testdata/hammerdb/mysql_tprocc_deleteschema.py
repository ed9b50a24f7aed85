# Drop the TPROC-C schema from HammerDB's Python CLI (mysql mode).
print("SETTING CONFIGURATION")
dbset('db', 'mysql')
dbset('bm', 'TPC-C')  # HammerDB's older name (a TPC trademark), sent as input
diset('connection', 'mysql_host', 'localhost')
diset('connection', 'mysql_port', 3306)
diset('connection', 'mysql_socket', '/tmp/mysql.sock')
diset('tpcc', 'mysql_user', 'root')
diset('tpcc', 'mysql_pass', 'mysql')
diset('tpcc', 'mysql_dbase', 'tpcc')
print("DROP SCHEMA STARTED")
deleteschema()
print("DROP SCHEMA COMPLETED")
exit()
