#!/bin/tclsh
# Check the TPROC-H schema the build left (HammerDB's checkschema with the
# benchmark set to TPROC-H).
puts "SETTING CONFIGURATION"
dbset db maria
dbset bm TPROC-H

diset connection maria_host localhost
diset connection maria_port 3306
diset connection maria_socket /tmp/mariadb.sock
diset tpch maria_tpch_user root
diset tpch maria_tpch_pass maria
diset tpch maria_tpch_dbase tpch

puts "CHECK SCHEMA STARTED"
puts "CHECK ANSWER: [ checkschema ]"
puts "CHECK SCHEMA COMPLETED"
