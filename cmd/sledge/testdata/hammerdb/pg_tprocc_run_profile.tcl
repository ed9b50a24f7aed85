#!/bin/tclsh
# A performance profile in the style of HammerDB 6's *_run_profile.tcl: one
# run per virtual-user count, recorded under the profile id given in the
# environment, each job id appended to a file in $TMP.
set tmpdir $::env(TMP)
set profileid $::env(PROFILEID)
puts "SETTING CONFIGURATION"
dbset db pg
dbset bm TPC-C ;# HammerDB's older name (a TPC trademark), sent as input
if {$profileid > 1} { jobs profileid $profileid }

giset commandline keepalive_margin 1200
giset timeprofile xt_gather_timeout 1200

diset connection pg_host localhost
diset connection pg_port 5432
diset connection pg_sslmode prefer

diset tpcc pg_superuser postgres
diset tpcc pg_superuserpass postgres
diset tpcc pg_defaultdbase postgres
diset tpcc pg_user tpcc
diset tpcc pg_pass tpcc
diset tpcc pg_dbase tpcc
diset tpcc pg_driver timed
diset tpcc pg_rampup 0
diset tpcc pg_duration 0.02
diset tpcc pg_allwarehouse false
diset tpcc pg_timeprofile true
diset tpcc pg_vacuum true

puts "TEST STARTED"
metstart
tcstart
foreach z {1 2} {
    loadscript
    vuset vu $z
    vuset logtotemp 1
    vucreate
    metstatus
    tcstatus
    set jobid [ vurun ]
    vudestroy
    set of [ open "$tmpdir/pg_tprocc_profile.$profileid" a ]
    puts $of $jobid
    close $of
}
tcstop
metstop
puts "TEST COMPLETE"
