# Check the TPROC-H schema the build left.
print("SETTING CONFIGURATION")
dbset('db', 'pg')
dbset('bm', 'TPROC-H')

diset('connection', 'pg_host', 'localhost')
diset('connection', 'pg_port', 5432)
diset('tpch', 'pg_tpch_user', 'tpch')
diset('tpch', 'pg_tpch_pass', 'tpch')
diset('tpch', 'pg_tpch_dbase', 'tpch')

print("CHECK SCHEMA STARTED")
print("CHECK ANSWER: " + checkschema())
print("CHECK SCHEMA COMPLETED")
exit()
