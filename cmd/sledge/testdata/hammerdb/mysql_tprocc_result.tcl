#!/bin/tclsh
# The run's figures read back after the schema is gone, in the manner of
# HammerDB 6's generic TPROC-C result script: a proc named stdout switches
# puts into a file and back, the jobs answers go into it, then the file is
# shown between marker lines.
set tmpdir $::env(TMP)
proc stdout { switch { file "" } } {
    if { $switch eq "off" && ![ llength [ info commands __puts ] ] } {
        rename puts __puts
        proc puts { args } [ string map [ list FILE [ list $file ] ] {
            set words [ lrange $args [ expr { [ lindex $args 0 ] eq "-nonewline" } ] end ]
            if { [ llength $words ] == 2 && [ lindex $words 0 ] ne "stdout" } {
                return [ __puts {*}$args ]
            }
            set fid [ open FILE a+ ]
            __puts {*}[ lrange $args 0 end-[ llength $words ] ] $fid [ lindex $words end ]
            close $fid
        } ]
    } elseif { $switch eq "on" && [ llength [ info commands __puts ] ] } {
        rename puts {}
        rename __puts puts
    }
}
set fd [ open $tmpdir/mysql_tprocc r ]
set jobid [ lindex [ split [ gets $fd ] = ] 1 ]
close $fd
set capture [ file normalize $tmpdir/mysql_tprocc_$jobid.out ]
stdout off $capture
puts "=== timing"
job $jobid timing
puts "=== tcount"
job $jobid tcount
puts "=== result"
job $jobid result
puts "=== 1"
job $jobid 1
puts "=== dict"
job $jobid dict
stdout on
set fd [ open $capture r ]
puts "=== captured"
puts [ read $fd ]
close $fd
puts "=== end"
