#!/bin/tclsh
# Reads back every job the other scripts recorded, in each of the jobs
# command's forms, between marker lines the test splits on.
set tmpdir $::env(TMP)
proc jobid_of {file} {
    set fd [ open $file r ]
    set line [ gets $fd ]
    close $fd
    return [ lindex [ split $line = ] 1 ]
}
set single [ jobid_of $tmpdir/pg_tprocc ]
set iter [ jobid_of $tmpdir/pg_tprocc_iterations ]
foreach what {result timing tcount status db bm dict system metrics timestamp 1} {
    puts "=== $what $single"
    jobs $single $what
}
puts "=== result $iter"
jobs $iter result
puts "=== profile $::env(PROFILEID)"
jobs profile $::env(PROFILEID)
puts "=== joblist"
puts [ jobs joblist ]
jobs format text
puts "=== text result $single"
jobs $single result
jobs format JSON
puts "=== end"
