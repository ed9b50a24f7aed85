#!/bin/tclsh
# Check the TPROC-H schema the build left (HammerDB's checkschema with the
# benchmark set to TPROC-H).
puts "SETTING CONFIGURATION"
dbset db pg
dbset bm TPROC-H

diset connection pg_host localhost
diset connection pg_port 5432
diset tpch pg_tpch_user tpch
diset tpch pg_tpch_pass tpch
diset tpch pg_tpch_dbase tpch

puts "CHECK SCHEMA STARTED"
puts "CHECK ANSWER: [ checkschema ]"
puts "CHECK SCHEMA COMPLETED"
