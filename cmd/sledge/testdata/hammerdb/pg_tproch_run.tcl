#!/bin/tclsh
# One query set by one virtual user (HammerDB's power test), its job id kept
# in $TMP for the result script.
set tmpdir $::env(TMP)
puts "SETTING CONFIGURATION"
dbset db pg
dbset bm TPC-H ;# HammerDB's older name (a TPC trademark), sent as input

diset connection pg_host localhost
diset connection pg_port 5432
diset tpch pg_scale_fact 0.01
diset tpch pg_tpch_user tpch
diset tpch pg_tpch_pass tpch
diset tpch pg_tpch_dbase tpch
diset tpch pg_total_querysets 1
diset tpch pg_degree_of_parallel 2

loadscript
puts "TEST STARTED"
vuset vu 1
vucreate
metstart
set jobid [ vurun ]
metstop
vudestroy
puts "TEST COMPLETE"
set fd [ open $tmpdir/pg_tproch w ]
puts $fd $jobid
close $fd
