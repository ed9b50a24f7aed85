#!/bin/tclsh
# One query set by one virtual user (HammerDB's power test) on MariaDB, its
# job id kept in $TMP for the result script.
set tmpdir $::env(TMP)
puts "SETTING CONFIGURATION"
dbset db maria
dbset bm TPC-H ;# HammerDB's older name (a TPC trademark), sent as input

diset connection maria_host localhost
diset connection maria_port 3306
diset connection maria_socket /tmp/mariadb.sock
diset tpch maria_scale_fact 0.01
diset tpch maria_tpch_user root
diset tpch maria_tpch_pass maria
diset tpch maria_tpch_dbase tpch
diset tpch maria_total_querysets 1

loadscript
puts "TEST STARTED"
vuset vu 1
vucreate
set jobid [ vurun ]
vudestroy
puts "TEST COMPLETE"
set of [ open $tmpdir/maria_tproch w ]
puts $of $jobid
close $of
