# The power test's lines read back after the schema is gone, the way HammerDB
# 6's generic TPROC-H result script reads them: Tcl's puts sent into a file
# through tclpy.eval while job answers, then the file shown.
import os

tmpdir = os.environ['TMP']
capture_puts = r'''
proc capture {file} {
    rename puts __puts
    proc puts {args} [string map [list FILE [list $file]] {
        set nonewline [expr {[lindex $args 0] eq "-nonewline"}]
        set words [lrange $args $nonewline end]
        if {[llength $words] == 2 && [lindex $words 0] ne "stdout"} {
            return [__puts {*}$args]
        }
        set fd [open FILE a+]
        if {$nonewline} {
            __puts -nonewline $fd [lindex $words end]
        } else {
            __puts $fd [lindex $words end]
        }
        close $fd
    }]
}
proc release {} {
    rename puts {}
    rename __puts puts
}
'''

with open(os.path.join(tmpdir, "mysql_tproch")) as f:
    jobid = f.readline().split("=")[1].strip()
out = os.path.join(tmpdir, "mysql_tproch_%s.out" % jobid).replace(os.sep, '/')
tclpy.eval(capture_puts)
tclpy.eval('capture ' + out)
tclpy.eval('puts "HAMMERDB RESULT"')
job(jobid, '1')
tclpy.eval('puts "HAMMERDB SUMMARY"')
job(jobid, 'result')
tclpy.eval('release')
with open(out) as f:
    print("=== captured")
    print(f.read())
print("=== end")
exit()
