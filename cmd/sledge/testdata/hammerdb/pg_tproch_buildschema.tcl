#!/bin/tclsh
# Build a TPROC-H schema as HammerDB 6's CLI scripts do, at the smallest
# size worth querying. Connection settings are substituted by the test.
puts "SETTING CONFIGURATION"
dbset db pg
dbset bm TPC-H ;# HammerDB's older name (a TPC trademark), sent as input

diset connection pg_host localhost
diset connection pg_port 5432
diset connection pg_sslmode prefer

diset tpch pg_scale_fact 0.01
diset tpch pg_num_tpch_threads [ numberOfCPUs ]
diset tpch pg_tpch_superuser postgres
diset tpch pg_tpch_superuserpass postgres
diset tpch pg_tpch_defaultdbase postgres
diset tpch pg_tpch_user tpch
diset tpch pg_tpch_pass tpch
diset tpch pg_tpch_dbase tpch
diset tpch pg_tpch_tspace pg_default

puts "SCHEMA BUILD STARTED"
puts "BUILD ANSWER: [ buildschema ]"
puts "SCHEMA BUILD COMPLETED"
