# HammerDB's CLI command set for Sledge, in Tcl. `sledge cli` runs tclsh with
# this file: the commands keep HammerDB's settings (dbset, diset, vuset …) in
# Tcl dicts, and every action hands the whole state as JSON to
# `sledge cli do ACTION`, which maps HammerDB's parameter names onto a Sledge
# job spec and runs the job in Go (internal/script). Arguments are passed as
# argument lists and JSON, never through a shell, so spaces, braces and
# dollar signs arrive intact.

namespace eval ::sledge {
    variable bin $::env(SLEDGE_BIN)
    variable db pg
    variable bm TPROC-C
    variable dicts [dict create connection {} tpcc {} tpch {}]
    variable vu [dict create vu 1 delay 500 repeat 500 iterations 1 showoutput 1 logtotemp 0 unique 0 timestamps 0]
    variable dg [dict create directory [file join [expr {[info exists ::env(TMPDIR)] ? $::env(TMPDIR) : "/tmp"}] sledge-datagen] virtual_users 1 warehouses 1 scale_fact 1]
    variable created 0
    variable running 0
    variable lastjob ""
    variable jobsformat JSON
    variable profileid 0

    proc jsonstr {s} {
        set out "\""
        foreach ch [split $s ""] {
            switch -- $ch {
                "\"" { append out "\\\"" }
                "\\" { append out "\\\\" }
                "\n" { append out "\\n" }
                "\r" { append out "\\r" }
                "\t" { append out "\\t" }
                default {
                    scan $ch %c code
                    if {$code < 32} {
                        append out [format "\\u%04x" $code]
                    } else {
                        append out $ch
                    }
                }
            }
        }
        append out "\""
    }

    proc jsondict {d} {
        set parts {}
        dict for {k v} $d { lappend parts "[jsonstr $k]:[jsonstr $v]" }
        return "\{[join $parts ,]\}"
    }

    proc state {} {
        variable db; variable bm; variable dicts; variable vu; variable dg; variable profileid
        set ds {}
        dict for {name d} $dicts { lappend ds "[jsonstr $name]:[jsondict $d]" }
        return "\{\"db\":[jsonstr $db],\"bm\":[jsonstr $bm],\"dicts\":\{[join $ds ,]\},\"vu\":[jsondict $vu],\"dg\":[jsondict $dg],\"profileid\":$profileid\}"
    }

    # action runs `sledge cli do NAME`, echoes its output as it comes and
    # returns the job id from its last line (SLEDGE-JOB id status).
    proc action {name} {
        variable bin; variable lastjob
        set f [open [list | $bin cli do $name 2>@1] r+]
        fconfigure $f -translation lf
        puts -nonewline $f [state]
        chan close $f write
        set id ""
        set status ""
        while {[gets $f line] >= 0} {
            if {[regexp {^SLEDGE-JOB (\d+) (\S+)$} $line -> id status]} { continue }
            puts $line
            flush stdout
        }
        if {[catch {close $f} err]} {
            if {$id ne "" && $id ne "0"} { set lastjob $id }
            if {$status ne ""} { set status " ($status)" }
            error "$name failed$status: see the output above"
        }
        if {$id ne "" && $id ne "0"} { set lastjob $id }
        return $id
    }

    proc sledge {args} {
        variable bin
        return [exec -ignorestderr $bin {*}$args]
    }
}

proc dbset {what value} {
    switch -- $what {
        db {
            switch -- [string tolower $value] {
                pg - maria - mysql { set ::sledge::db [string tolower $value] }
                default { error "dbset db $value: Sledge drives pg, maria and mysql" }
            }
        }
        bm {
            switch -- [string toupper [string map {- ""} $value]] {
                TPCC - TPROCC { set ::sledge::bm TPROC-C }
                TPCH - TPROCH { set ::sledge::bm TPROC-H }
                default { error "dbset bm $value: want TPROC-C or TPROC-H" }
            }
        }
        default { error "usage: dbset db pg|maria|mysql or dbset bm TPROC-C|TPROC-H" }
    }
    puts "Value $value for $what set"
}

proc diset {d key value} {
    if {![dict exists $::sledge::dicts $d]} { dict set ::sledge::dicts $d {} }
    dict set ::sledge::dicts $d $key $value
    puts "Changed $d:$key to $value for $::sledge::db"
}

proc giset {d key value} { diset $d $key $value }

proc dgset {key value} {
    dict set ::sledge::dg $key $value
    puts "Set datagen $key to $value"
}

proc vuset {key value} {
    if {![dict exists $::sledge::vu $key]} {
        error "vuset $key: want one of [join [dict keys $::sledge::vu] {, }]"
    }
    if {$key eq "vu" && (![string is integer -strict $value] || $value < 1)} {
        error "vuset vu $value: want a positive whole number"
    }
    dict set ::sledge::vu $key $value
}

proc print {what} {
    switch -- $what {
        db { puts "Database set to $::sledge::db" }
        bm { puts "Benchmark set to $::sledge::bm" }
        dict {
            dict for {name d} $::sledge::dicts {
                puts "Dictionary Settings for $name"
                dict for {k v} $d { puts "  $k = $v" }
            }
        }
        vuconf { dict for {k v} $::sledge::vu { puts "$k = $v" } }
        script { puts "Sledge runs its own TPROC-C/TPROC-H drivers: there is no driver script to print" }
        datagen { dict for {k v} $::sledge::dg { puts "$k = $v" } }
        default { error "usage: print db|bm|dict|vuconf|script|datagen" }
    }
}

proc loadscript {} { puts "Notice: loadscript: Sledge's drivers are built in; nothing to load" }
proc buildschema {} { ::sledge::action buildschema; return }
proc checkschema {} { ::sledge::action checkschema; return }
proc deleteschema {} { ::sledge::action deleteschema; return }
proc librarycheck {} { ::sledge::action librarycheck; return }
proc datagenrun {} { ::sledge::action datagenrun; return }

proc vucreate {} {
    if {$::sledge::created} { error "Virtual Users exist, destroy with vudestroy before creating" }
    set ::sledge::created [dict get $::sledge::vu vu]
    puts "[dict get $::sledge::vu vu] Virtual Users Created"
}

proc vudestroy {} {
    if {!$::sledge::created} { puts "No Virtual Users found"; return }
    set ::sledge::created 0
    puts "vudestroy success"
}

proc vustatus {} {
    if {!$::sledge::created} { return "No Virtual Users found" }
    set s {}
    for {set i 1} {$i <= $::sledge::created} {incr i} {
        lappend s "$i = [expr {$::sledge::running ? {RUNNING} : {WAIT IDLE}}]"
    }
    return [join $s \n]
}

proc vucomplete {} { return [expr {!$::sledge::running}] }

proc vurun {} {
    if {!$::sledge::created} { error "No Virtual Users found: vucreate first" }
    set ::sledge::running 1
    set code [catch {::sledge::action vurun} id]
    set ::sledge::running 0
    if {$code} { return -code error $id }
    return $id
}

# runtimer waits until the run completes or SECONDS pass; vurun returns when
# the job has ended, so there is nothing left to wait for.
proc runtimer {seconds} {
    if {![string is double -strict $seconds] || $seconds < 0} { error "runtimer $seconds: want seconds" }
    return
}
proc waittocomplete {} { return }
proc tcstart {} { puts "Notice: tcstart: Sledge always records the transaction counter (sledge jobs show ID tcount)" }
proc tcstop {} { puts "Notice: tcstop: the transaction counter stops with the run" }
proc tcstatus {} { return "Transaction Counter is recorded with every run" }
proc tcset {key value} { puts "Notice: tcset $key $value: intervals are set with sledge run --interval" }

proc numberOfCPUs {} {
    if {![catch {exec nproc} n]} { return $n }
    return 1
}

# jobs: HammerDB's jobs command, answered by `sledge cli jobs` from Sledge's
# repository in HammerDB's shapes. Like HammerDB it prints its answer and
# returns "", except `jobs` alone (the summary table), `jobs joblist`,
# `jobs ID getchart TYPE` (an HTML page) and `jobs diff` (the difference),
# which return theirs. `jobs format` and `jobs profileid` change the session.
proc jobs {args} {
    set out [exec -ignorestderr $::sledge::bin cli jobs --format $::sledge::jobsformat \
        --profileid $::sledge::profileid -- {*}$args]
    set i [string first "\x1e\n" $out]
    if {$i < 0} { error "jobs: unexpected answer from $::sledge::bin" }
    puts -nonewline [string range $out 0 [expr {$i - 1}]]
    flush stdout
    set rest [string range $out [expr {$i + 2}] end]
    set nl [string first "\n" $rest]
    if {$nl < 0} {
        set session $rest
        set ret ""
    } else {
        set session [string range $rest 0 [expr {$nl - 1}]]
        set ret [string range $rest [expr {$nl + 1}] end]
    }
    lassign $session ::sledge::jobsformat ::sledge::profileid
    return $ret
}
interp alias {} job {} jobs

proc help {args} {
    if {[lindex $args 0] eq "jobs"} {
        puts {jobs                      the jobs summary tables (returned)
jobs joblist              the job ids (returned)
jobs result               the results of all jobs
jobs timestamp            the start times of all jobs
jobs format JSON|text     the output format (JSON by default)
jobs JOBID                the job's output as virtual-user rows
jobs JOBID bm|db|delete|dict|metrics|result|status|system|tcount|timestamp|timing|VUID
jobs JOBID timing VUID    timings of one virtual user
jobs JOBID getchart result|timing|tcount|metrics   an HTML chart (returned)
jobs profileid ?ID|all?   the performance profile new runs are recorded under
jobs profile ID           the runs of a profile
jobs diff BASE COMP       compare two profiles (returns the difference)
jobs PID getchart profile|diff:PID2   an HTML chart of profiles (returned)}
        return
    }
    puts {Sledge CLI: HammerDB's commands, driving Sledge's engine.
  dbset db pg|maria|mysql      dbset bm TPROC-C|TPROC-H
  diset DICT KEY VALUE         (dicts: connection, tpcc, tpch; e.g. diset tpcc pg_count_ware 4)
  print db|bm|dict|vuconf      vuset vu N  (also delay, repeat, iterations, showoutput …)
  buildschema  checkschema  deleteschema  librarycheck
  vucreate  vurun (returns the job id)  vudestroy  vustatus  vucomplete
  jobs  jobs joblist|result|timestamp  jobs format JSON|text  (help jobs for more)
  dgset KEY VALUE  datagenrun  numberOfCPUs  runtimer SECONDS  quit
Any other input is Tcl.}
}

proc quit {} { exit 0 }

# Run the script given after "auto", or a sledge> prompt.
if {[lindex $argv 0] eq "auto"} {
    set script [lindex $argv 1]
    set ::argv [lrange $argv 2 end]
    if {[catch {uplevel #0 [list source $script]} err]} {
        puts stderr "Error: $err"
        exit 1
    }
    exit 0
}

# evalinput evaluates one complete command typed at the prompt and prints
# its result or error.
proc ::sledge::evalinput {cmd} {
    if {[catch {uplevel #0 $cmd} result]} {
        puts "Error: $result"
    } elseif {$result ne ""} {
        puts $result
    }
}

set ::sledge::banner "Sledge CLI (HammerDB commands on Sledge's engine). Type help."

# "edited": Sledge's line editor reads the lines and sends them on fd 3; each
# is answered on fd 4 with "more" (the command goes on) or "done". A line
# holding only Ctrl-C (\x03) drops the unfinished command.
if {[lindex $argv 0] eq "edited"} {
    set in [open /dev/fd/3 r]
    set ack [open /dev/fd/4 w]
    fconfigure $ack -buffering line
    puts $::sledge::banner
    puts $ack done
    set buffer ""
    while {[gets $in line] >= 0} {
        if {$line eq "\x03"} {
            set buffer ""
            puts $ack done
            continue
        }
        append buffer $line "\n"
        if {![info complete $buffer]} {
            puts $ack more
            continue
        }
        set cmd $buffer
        set buffer ""
        ::sledge::evalinput $cmd
        flush stdout
        puts $ack done
    }
    exit 0
}

# Otherwise read commands from stdin (a pipe, or a terminal without the editor).
puts $::sledge::banner
set ::sledge::buffer ""
while 1 {
    if {$::sledge::buffer eq ""} { puts -nonewline "sledge> " } else { puts -nonewline "> " }
    flush stdout
    if {[gets stdin line] < 0} { break }
    append ::sledge::buffer $line "\n"
    if {![info complete $::sledge::buffer]} { continue }
    set cmd $::sledge::buffer
    set ::sledge::buffer ""
    ::sledge::evalinput $cmd
}
