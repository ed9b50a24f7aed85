#!/bin/tclsh
# Build a TPROC-C schema with HammerDB's mysql driver settings (a MySQL-
# protocol server, here MariaDB), sized from the machine as HammerDB 6's
# build scripts size it, then check it. The build's log goes to $TMP.
puts "SETTING CONFIGURATION"
dbset db mysql
dbset bm TPC-C ;# HammerDB's older name (a TPC trademark), sent as input

diset connection mysql_host localhost
diset connection mysql_port 3306
diset connection mysql_socket /tmp/mysql.sock

set vu [ numberOfCPUs ]
set warehouse [ numberOfWHs ]
puts "SIZED: $warehouse WAREHOUSES FOR $vu CPUS"
# The test keeps its build at 1 warehouse, loaded by 1 VU.
if { $warehouse > 1 } { set warehouse 1 }
diset tpcc mysql_count_ware $warehouse
diset tpcc mysql_num_vu 1
diset tpcc mysql_user root
diset tpcc mysql_pass mysql
diset tpcc mysql_dbase tpcc
diset tpcc mysql_storage_engine innodb
if { $warehouse >= 200 } {
    diset tpcc mysql_partition true
} else {
    diset tpcc mysql_partition false
}
vuset logtotemp 1

puts "SCHEMA BUILD STARTED"
buildschema
puts "SCHEMA BUILD COMPLETED"
puts "CHECK SCHEMA STARTED"
checkschema
puts "CHECK SCHEMA COMPLETED"
