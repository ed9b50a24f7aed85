#!/bin/tclsh
# Build a TPROC-C schema, as HammerDB 4.x-6.x CLI scripts do. Connection
# settings are substituted by the test; everything else runs as written.
puts "SETTING CONFIGURATION"
dbset db pg
dbset bm TPC-C ;# HammerDB's older name (a TPC trademark), sent as input

diset connection pg_host localhost
diset connection pg_port 5432
diset connection pg_sslmode prefer

diset tpcc pg_superuser postgres
diset tpcc pg_superuserpass postgres
diset tpcc pg_defaultdbase postgres
diset tpcc pg_user tpcc
diset tpcc pg_pass tpcc
diset tpcc pg_dbase tpcc
# Sized for this machine, as HammerDB's own build scripts size it; the
# test keeps its build at 2 warehouses whatever the machine would take.
set cpus [ numberOfCPUs ]
set warehouse [ numberOfWHs ]
puts "SIZED: $warehouse WAREHOUSES FOR $cpus CPUS"
if { $warehouse > 2 } { set warehouse 2 }
diset tpcc pg_count_ware $warehouse
diset tpcc pg_num_vu 2
diset tpcc pg_storedprocs true
diset tpcc pg_partition false
diset tpcc pg_vacuum false
print dict

puts "SCHEMA BUILD STARTED"
buildschema
puts "SCHEMA BUILD COMPLETE"
checkschema
puts "SCHEMA CHECK COMPLETE"
