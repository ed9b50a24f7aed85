#!/bin/tclsh
# The loop from HammerDB's blog posts and older documentation: the script
# brings its own runtimer, logs to the temp directory and steps through
# virtual-user counts.
proc runtimer { seconds } {
    set x 0
    set timerstop 0
    while {!$timerstop} {
        incr x
        after 100
        if { ![ expr {$x % 600} ] } {
            puts "Timer: [ expr {$x / 600} ] minutes elapsed"
        }
        update
        if { [ vucomplete ] || $x eq [ expr {$seconds * 10} ] } { set timerstop 1 }
    }
    return
}
puts "SETTING CONFIGURATION"
dbset db pg
diset connection pg_host localhost
diset connection pg_port 5432
diset tpcc pg_user tpcc
diset tpcc pg_pass tpcc
diset tpcc pg_dbase tpcc
diset tpcc pg_driver timed
diset tpcc pg_rampup 0
diset tpcc pg_duration 0.02
vuset logtotemp 1
vuset unique 1
vuset timestamps 1
loadscript
puts "SEQUENCE STARTED"
foreach z { 1 2 } {
    puts "$z VU TEST"
    vuset vu $z
    vucreate
    vurun
    runtimer 120
    vudestroy
    after 200
}
puts "TEST SEQUENCE COMPLETE"
