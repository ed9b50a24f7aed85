#!/bin/tclsh
# The power test's lines read back after the schema is gone, in the manner
# of HammerDB 6's generic TPROC-H result script: puts sent into a file
# while jobs answers, then the file shown between marker lines.
set tmpdir $::env(TMP)
set fd [ open $tmpdir/mysql_tproch r ]
set jobid [ lindex [ split [ gets $fd ] = ] 1 ]
close $fd
set capture [ file normalize $tmpdir/mysql_tproch_$jobid.out ]

# Lines for stdout (with or without -nonewline) go to the capture file;
# lines for any other channel, such as the pipe the jobs command writes
# its request into, go where they were sent.
rename puts __puts
proc puts {args} {
    global capture
    set nonewline [ expr { [ lindex $args 0 ] eq "-nonewline" } ]
    set words [ lrange $args $nonewline end ]
    if { [ llength $words ] == 2 && [ lindex $words 0 ] ne "stdout" } {
        return [ __puts {*}$args ]
    }
    set fd [ open $capture a+ ]
    if { $nonewline } {
        __puts -nonewline $fd [ lindex $words end ]
    } else {
        __puts $fd [ lindex $words end ]
    }
    close $fd
}
puts "HAMMERDB RESULT"
job $jobid 1
puts "HAMMERDB SUMMARY"
job $jobid result
rename puts {}
rename __puts puts

set fd [ open $capture r ]
puts "=== captured"
puts [ read $fd ]
close $fd
puts "=== end"
