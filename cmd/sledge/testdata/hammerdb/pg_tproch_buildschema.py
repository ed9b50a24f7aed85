# Build a TPROC-H schema from HammerDB's Python CLI (hammerdbcli py auto),
# at the smallest size worth querying.
print("SETTING CONFIGURATION")
dbset('db', 'pg')
dbset('bm', 'TPC-H')  # HammerDB's older name (a TPC trademark), sent as input

diset('connection', 'pg_host', 'localhost')
diset('connection', 'pg_port', '5432')
diset('connection', 'pg_sslmode', 'prefer')

threads = tclpy.eval('numberOfCPUs')
diset('tpch', 'pg_scale_fact', '0.01')
diset('tpch', 'pg_num_tpch_threads', threads)
diset('tpch', 'pg_tpch_superuser', 'postgres')
diset('tpch', 'pg_tpch_superuserpass', 'postgres')
diset('tpch', 'pg_tpch_defaultdbase', 'postgres')
diset('tpch', 'pg_tpch_user', 'tpch')
diset('tpch', 'pg_tpch_pass', 'tpch')
diset('tpch', 'pg_tpch_dbase', 'tpch')

print("SCHEMA BUILD STARTED")
print("BUILD ANSWER: " + buildschema())
print("SCHEMA BUILD COMPLETED")
exit()
