#!/bin/tclsh
# Build a TPROC-H schema on MariaDB in mysql mode as HammerDB 6's CLI scripts do, at the
# smallest size worth querying, one loader per CPU. Connection settings are
# substituted by the test.
puts "SETTING CONFIGURATION"
dbset db mysql
dbset bm TPC-H ;# HammerDB's older name (a TPC trademark), sent as input

diset connection mysql_host localhost
diset connection mysql_port 3306
diset connection mysql_socket /tmp/mariadb.sock

diset tpch mysql_scale_fact 0.01
diset tpch mysql_num_tpch_threads [ numberOfCPUs ]
diset tpch mysql_tpch_user root
diset tpch mysql_tpch_pass maria
diset tpch mysql_tpch_dbase tpch
diset tpch mysql_tpch_storage_engine innodb

puts "SCHEMA BUILD STARTED"
puts "BUILD ANSWER: [ buildschema ]"
puts "SCHEMA BUILD COMPLETED"
