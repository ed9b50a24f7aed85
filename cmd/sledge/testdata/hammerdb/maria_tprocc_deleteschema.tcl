#!/bin/tclsh
puts "SETTING CONFIGURATION"
dbset db maria
dbset bm TPC-C ;# HammerDB's older name (a TPC trademark), sent as input
diset connection maria_host localhost
diset connection maria_port 3306
diset connection maria_socket /tmp/mariadb.sock
diset tpcc maria_user tpcc
diset tpcc maria_pass tpcc
diset tpcc maria_dbase tpcc
deleteschema
puts "TPROC-C SCHEMA DROPPED"
