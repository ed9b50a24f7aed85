#!/bin/tclsh
# One timed run in HammerDB's mysql mode with the client sending each
# transaction's statements (no stored procedures), its log written to a file
# of its own in $TMP with a timestamp before each line; the job id kept in
# $TMP for the result script.
set tmpdir $::env(TMP)
puts "SETTING CONFIGURATION"
dbset db mysql
dbset bm TPC-C ;# HammerDB's older name (a TPC trademark), sent as input

diset connection mysql_host localhost
diset connection mysql_port 3306
diset connection mysql_socket /tmp/mysql.sock

diset tpcc mysql_user root
diset tpcc mysql_pass mysql
diset tpcc mysql_dbase tpcc
diset tpcc mysql_driver timed
diset tpcc mysql_rampup 0
diset tpcc mysql_duration 0.02
diset tpcc mysql_no_stored_procs true
diset tpcc mysql_timeprofile true

loadscript
puts "TEST STARTED"
vuset vu 2
vuset logtotemp 1
vuset unique 1
vuset timestamps 1
vucreate
set jobid [ vurun ]
vudestroy
puts "TEST COMPLETE"
set of [ open $tmpdir/mysql_tprocc w ]
puts $of $jobid
close $of
