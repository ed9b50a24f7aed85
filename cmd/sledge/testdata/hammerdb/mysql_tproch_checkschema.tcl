#!/bin/tclsh
# Check the TPROC-H schema the build left (HammerDB's checkschema with the
# benchmark set to TPROC-H).
puts "SETTING CONFIGURATION"
dbset db mysql
dbset bm TPROC-H

diset connection mysql_host localhost
diset connection mysql_port 3306
diset connection mysql_socket /tmp/mariadb.sock
diset tpch mysql_tpch_user root
diset tpch mysql_tpch_pass maria
diset tpch mysql_tpch_dbase tpch

puts "CHECK SCHEMA STARTED"
puts "CHECK ANSWER: [ checkschema ]"
puts "CHECK SCHEMA COMPLETED"
