# Drop the TPROC-H schema from HammerDB's Python CLI.
print("SETTING CONFIGURATION")
dbset('db', 'pg')
dbset('bm', 'TPC-H')  # HammerDB's older name (a TPC trademark), sent as input

diset('connection', 'pg_host', 'localhost')
diset('connection', 'pg_port', 5432)
diset('tpch', 'pg_tpch_superuser', 'postgres')
diset('tpch', 'pg_tpch_superuserpass', 'postgres')
diset('tpch', 'pg_tpch_user', 'tpch')
diset('tpch', 'pg_tpch_pass', 'tpch')
diset('tpch', 'pg_tpch_dbase', 'tpch')

print("DROP SCHEMA STARTED")
deleteschema()
print("DROP SCHEMA COMPLETED")
exit()
