#!/bin/tclsh
# One query set by one virtual user (HammerDB's power test) on MariaDB in mysql mode, its
# job id kept in $TMP for the result script.
set tmpdir $::env(TMP)
puts "SETTING CONFIGURATION"
dbset db mysql
dbset bm TPC-H ;# HammerDB's older name (a TPC trademark), sent as input

diset connection mysql_host localhost
diset connection mysql_port 3306
diset connection mysql_socket /tmp/mariadb.sock
diset tpch mysql_scale_fact 0.01
diset tpch mysql_tpch_user root
diset tpch mysql_tpch_pass maria
diset tpch mysql_tpch_dbase tpch
diset tpch mysql_total_querysets 1

loadscript
puts "TEST STARTED"
vuset vu 1
vucreate
set jobid [ vurun ]
vudestroy
puts "TEST COMPLETE"
set of [ open $tmpdir/mysql_tproch w ]
puts $of $jobid
close $of
