# Check the TPROC-H schema the build left, from HammerDB's Python CLI.
print("SETTING CONFIGURATION")
dbset('db', 'mysql')
dbset('bm', 'TPROC-H')

diset('connection', 'mysql_host', 'localhost')
diset('connection', 'mysql_port', 3306)
diset('connection', 'mysql_socket', '/tmp/mariadb.sock')
diset('tpch', 'mysql_tpch_user', 'root')
diset('tpch', 'mysql_tpch_pass', 'maria')
diset('tpch', 'mysql_tpch_dbase', 'tpch')

print("CHECK SCHEMA STARTED")
print("CHECK ANSWER: " + checkschema())
print("CHECK SCHEMA COMPLETED")
exit()
