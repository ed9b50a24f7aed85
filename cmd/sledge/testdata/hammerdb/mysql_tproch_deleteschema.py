# Drop the TPROC-H schema on MariaDB in mysql mode from HammerDB's Python CLI.
print("SETTING CONFIGURATION")
dbset('db', 'mysql')
dbset('bm', 'TPC-H')  # HammerDB's older name (a TPC trademark), sent as input

diset('connection', 'mysql_host', 'localhost')
diset('connection', 'mysql_port', 3306)
diset('connection', 'mysql_socket', '/tmp/mariadb.sock')
diset('tpch', 'mysql_tpch_user', 'root')
diset('tpch', 'mysql_tpch_pass', 'maria')
diset('tpch', 'mysql_tpch_dbase', 'tpch')

print("DROP SCHEMA STARTED")
deleteschema()
print("DROP SCHEMA COMPLETED")
exit()
