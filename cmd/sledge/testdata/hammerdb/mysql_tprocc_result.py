# Reads a run's figures the way HammerDB 6's generic result script does:
# Tcl's puts redirected into a file through tclpy.eval, then the jobs
# answers printed into it and the file shown.
import os

tmpdir = os.environ['TMP']
redirect = r'''
proc stdout {switch {file ""}} {
    if {$switch eq "off" && ![llength [info commands __puts]]} {
        rename puts __puts
        proc puts {args} [string map [list FILE [list $file]] {
            set fid [open FILE a+]
            if {[llength $args] == 1} {
                __puts $fid [lindex $args 0]
            } elseif {[lindex $args 0] eq "-nonewline" && [llength $args] == 2} {
                __puts -nonewline $fid [lindex $args 1]
            } else {
                __puts {*}$args
            }
            close $fid
        }]
    } elseif {$switch eq "on" && [llength [info commands __puts]]} {
        rename puts {}
        rename __puts puts
    }
}
'''

with open(os.path.join(tmpdir, "mysql_tprocc")) as f:
    jobid = f.readline().split("=")[1].strip()
out = os.path.join(tmpdir, "mysql_tprocc_%s.out" % jobid).replace(os.sep, '/')
tclpy.eval(redirect)
tclpy.eval('stdout off ' + out)
tclpy.eval('puts "TRANSACTION RESPONSE TIMES"')
jobs(jobid, 'timing')
tclpy.eval('puts "TRANSACTION COUNT"')
job(jobid, 'tcount')
tclpy.eval('puts "HAMMERDB RESULT"')
job(jobid, 'result')
tclpy.eval('stdout on')
with open(out) as f:
    print("=== captured")
    print(f.read())
print("=== end")
