#!/bin/tclsh
# Build a TPROC-C schema, as HammerDB 4.x-6.x CLI scripts do. Connection
# settings are substituted by the test; everything else runs as written.
puts "SETTING CONFIGURATION"
dbset db maria
dbset bm TPC-C ;# HammerDB's older name (a TPC trademark), sent as input

diset connection maria_host localhost
diset connection maria_port 3306
diset connection maria_socket /tmp/mariadb.sock

diset tpcc maria_user tpcc
diset tpcc maria_pass tpcc
diset tpcc maria_dbase tpcc
# Sized for this machine, as HammerDB's own build scripts size it; the
# test keeps its build at 2 warehouses whatever the machine would take.
set cpus [ numberOfCPUs ]
set warehouse [ numberOfWHs ]
puts "SIZED: $warehouse WAREHOUSES FOR $cpus CPUS"
if { $warehouse > 2 } { set warehouse 2 }
diset tpcc maria_count_ware $warehouse
diset tpcc maria_num_vu 2
diset tpcc maria_no_stored_procs false
diset tpcc maria_partition false
diset tpcc maria_storage_engine innodb
print dict

puts "SCHEMA BUILD STARTED"
buildschema
puts "SCHEMA BUILD COMPLETE"
checkschema
puts "SCHEMA CHECK COMPLETE"
