#!/bin/tclsh
# Build a TPROC-H schema on MariaDB as HammerDB 6's CLI scripts do, at the
# smallest size worth querying, one loader per CPU. Connection settings are
# substituted by the test.
puts "SETTING CONFIGURATION"
dbset db maria
dbset bm TPC-H ;# HammerDB's older name (a TPC trademark), sent as input

diset connection maria_host localhost
diset connection maria_port 3306
diset connection maria_socket /tmp/mariadb.sock

diset tpch maria_scale_fact 0.01
diset tpch maria_num_tpch_threads [ numberOfCPUs ]
diset tpch maria_tpch_user root
diset tpch maria_tpch_pass maria
diset tpch maria_tpch_dbase tpch
diset tpch maria_tpch_storage_engine innodb

puts "SCHEMA BUILD STARTED"
puts "BUILD ANSWER: [ buildschema ]"
puts "SCHEMA BUILD COMPLETED"
