#!/bin/tclsh
# A performance profile in the style of HammerDB 6's *_run_profile.tcl: one
# run per virtual-user count, recorded under the profile id given in the
# environment, each job id appended to a file in $TMP.
set tmpdir $::env(TMP)
set profileid $::env(PROFILEID)
puts "SETTING CONFIGURATION"
dbset db maria
dbset bm TPC-C ;# HammerDB's older name (a TPC trademark), sent as input
if {$profileid > 1} { jobs profileid $profileid }

giset commandline keepalive_margin 1200
giset timeprofile xt_gather_timeout 1200

diset connection maria_host localhost
diset connection maria_port 3306
diset connection maria_socket /tmp/mariadb.sock

diset tpcc maria_user tpcc
diset tpcc maria_pass tpcc
diset tpcc maria_dbase tpcc
diset tpcc maria_driver timed
diset tpcc maria_rampup 0
diset tpcc maria_duration 0.02
diset tpcc maria_allwarehouse false
diset tpcc maria_timeprofile true
diset tpcc maria_purge true

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
    set of [ open "$tmpdir/maria_tprocc_profile.$profileid" a ]
    puts $of $jobid
    close $of
}
tcstop
metstop
puts "TEST COMPLETE"
