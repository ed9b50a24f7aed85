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
    variable thresholds {}

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
        variable db; variable bm; variable dicts; variable vu; variable dg; variable profileid; variable thresholds
        set ds {}
        dict for {name d} $dicts { lappend ds "[jsonstr $name]:[jsondict $d]" }
        set ts [lmap t $thresholds {jsonstr $t}]
        return "\{\"db\":[jsonstr $db],\"bm\":[jsonstr $bm],\"dicts\":\{[join $ds ,]\},\"vu\":[jsondict $vu],\"dg\":[jsondict $dg],\"profileid\":$profileid,\"thresholds\":\[[join $ts ,]\]\}"
    }

    # action runs `sledge cli do NAME`, echoes its output as it comes and
    # returns {ID STATUS VUSFAILED}: ID and STATUS from its last line
    # (SLEDGE-JOB id status), empty when no job was created, and whether a
    # virtual user was shown finishing FAILED. Like HammerDB it never stops the script: a
    # failure is printed ("Error: ..." lines from the engine, or one here if
    # the engine said nothing) and the script carries on. Each line goes out
    # as one `puts` argument, so a script that renames puts (HammerDB's
    # stdout-redirect proc) captures it.
    proc action {name} {
        variable bin; variable lastjob
        set f [open [list | $bin cli do $name 2>@1] r+]
        fconfigure $f -translation lf
        puts -nonewline $f [state]
        chan close $f write
        set id ""
        set status ""
        set errors 0
        set vusfailed 0
        while {[gets $f line] >= 0} {
            if {[regexp {^SLEDGE-JOB (\d+) (\S+)$} $line -> id status]} { continue }
            if {[regexp {^Vuser \d+:FINISHED FAILED$} $line]} { set vusfailed 1 }
            if {[string match "Error:*" $line] || [string match "Error in Virtual User *" $line]} { incr errors }
            puts $line
            flush stdout
        }
        if {[catch {close $f} err] && !$errors} {
            if {$status ne ""} {
                puts "Error: $name failed ($status)"
            } else {
                puts "Error: $name failed: [lindex [split $err \n] 0]"
            }
        }
        if {$id eq "0"} { set id "" }
        if {$id ne ""} { set lastjob $id }
        return [list $id $status $vusfailed]
    }

    # answer is what HammerDB's buildschema, checkschema, deleteschema and
    # vurun return: "WHAT jobid=ID", or "WHAT (No jobid)" when no job exists.
    proc answer {what id} {
        if {$id eq ""} { return "$what (No jobid)" }
        return "$what jobid=$id"
    }

    # tmpdir is where HammerDB puts its files: $TMP, else the system's.
    proc tmpdir {} {
        foreach v {TMP TMPDIR} {
            if {[info exists ::env($v)] && [file isdirectory $::env($v)]} { return $::env($v) }
        }
        return /tmp
    }

    proc sledge {args} {
        variable bin
        return [exec -ignorestderr $bin {*}$args]
    }
}

# dbset answers as HammerDB does ("Database set to PostgreSQL", "Benchmark
# set to TPROC-C for PostgreSQL"). A database Sledge cannot drive stops the
# script: carrying on would run the script's work against another database.
proc dbset {args} {
    if {[llength $args] != 2} { puts {Usage: dbset [db|bm] value}; return }
    lassign $args what value
    switch -- $what {
        db {
            switch -- [string tolower $value] {
                pg - postgres - postgresql { set ::sledge::db pg }
                maria - mariadb { set ::sledge::db maria }
                mysql { set ::sledge::db mysql }
                default { error "dbset db $value: Sledge drives pg, maria and mysql" }
            }
            puts "Database set to [::sledge::product]"
        }
        bm {
            switch -- [string toupper [string map {- ""} $value]] {
                TPCC - TPROCC { set ::sledge::bm TPROC-C }
                TPCH - TPROCH { set ::sledge::bm TPROC-H }
                default {
                    puts "Unknown benchmark [string toupper $value], choose one from TPROC-C TPROC-H (or HammerDB's older names for them)"
                    return
                }
            }
            puts "Benchmark set to $::sledge::bm for [::sledge::product]"
        }
        default { puts "Error: invalid option"; puts {Usage: dbset [db|bm] value} }
    }
    return
}

proc ::sledge::product {} {
    return [dict get {pg PostgreSQL maria MariaDB mysql MySQL} $::sledge::db]
}

# HammerDB's dictionaries and their defaults: ::sledge::keytable (db ->
# {product P dicts {DICT {KEY DEFAULT ...} ...}}) and ::sledge::generictable
# (DICT -> {KEY DEFAULT ...}), from Go's key table (internal/script/keys.go).
# `sledge cli` defines them before this file runs; without them they are
# asked of the binary.
if {![info exists ::sledge::keytable]} {
    eval [exec -ignorestderr $::sledge::bin cli keys --tcl]
}

# ::sledge::setting is the session's value of a key, else HammerDB's default
# (table: the database's dictionaries or the generic ones).
proc ::sledge::setting {table d key} {
    if {[dict exists $::sledge::dicts $d $key]} { return [dict get $::sledge::dicts $d $key] }
    return [dict get $table $d $key]
}

proc ::sledge::dbdicts {} { return [dict get $::sledge::keytable $::sledge::db dicts] }

# diset changes a key of the current database's dictionaries as HammerDB
# does: an unknown dictionary or key, a value equal to the current one, or a
# driver other than test or timed is reported and changes nothing, and the
# script carries on.
proc diset {args} {
    set rdbms [::sledge::product]
    if {[llength $args] != 3} {
        puts "Error: Invalid number of arguments\nUsage: diset dict key value"
        puts "Type \"print dict\" for valid dictionaries and keys for $rdbms"
        return
    }
    lassign $args d key value
    set table [::sledge::dbdicts]
    if {![dict exists $table $d]} {
        puts {Usage: diset dict key value}
        puts "Dictionary \"$d\" for $rdbms does not exist"
        puts "Type \"print dict\" for valid dictionaries and keys for $rdbms"
        return
    }
    if {![dict exists $table $d $key]} {
        set in ""
        dict for {name keys} $table {
            if {[dict exists $keys $key]} { set in $name; break }
        }
        if {$in ne ""} {
            puts "Dictionary \"$d\" for $rdbms exists but key \"$key\" doesn't, key \"$key\" is in the \"$in\" dictionary"
        } else {
            puts "Dictionary \"$d\" for $rdbms exists but key \"$key\" doesn't, key \"$key\" cannot be found in any $rdbms dictionary"
        }
        puts "Type \"print dict\" for valid dictionaries and keys for $rdbms"
        return
    }
    set value [concat $value]
    set previous [::sledge::setting $table $d $key]
    if {$previous eq $value} {
        puts "Value $value for $d:$key is the same as existing value $previous, no change made"
        return
    }
    if {[string match *driver $key] && $value ne "test" && $value ne "timed"} {
        puts "Error: Driver script must be either \"test\" or \"timed\""
        return
    }
    dict set ::sledge::dicts $d $key $value
    puts "Changed $d:$key from $previous to $value for $rdbms"
    return
}

# giset changes a key of HammerDB's generic dictionaries, with HammerDB's
# checks and messages.
proc giset {args} {
    if {[llength $args] != 3} {
        puts "Error: Invalid number of arguments\nUsage: giset dict key value"
        puts "Type \"print generic\" for valid dictionaries and keys"
        return
    }
    lassign $args d key value
    if {![dict exists $::sledge::generictable $d]} {
        puts {Usage: giset dict key value}
        puts "Type \"print generic\" for valid dictionaries and keys"
        return
    }
    if {![dict exists $::sledge::generictable $d $key]} {
        puts "Dictionary \"$d\" exists but key \"$key\" doesn't"
        puts "Type \"print generic\" for valid dictionaries and keys"
        return
    }
    set value [concat $value]
    set previous [::sledge::setting $::sledge::generictable $d $key]
    if {$previous eq $value} {
        puts "Value $value for $d:$key is the same as existing value $previous, no change made"
        return
    }
    dict set ::sledge::dicts $d $key $value
    puts "Changed $d:$key from $previous to $value for generic"
    return
}

# ::sledge::pdict prints dictionaries of dictionaries (the current values of
# table's dicts names) in HammerDB's layout: names and keys padded to the
# longest, "name {", " key = value" lines, "}".
proc ::sledge::pdict {table names} {
    set width [::tcl::mathfunc::max {*}[lmap n $names {string length $n}]]
    foreach name $names {
        puts "[format %-*s $width $name] \{"
        set keys [dict keys [dict get $table $name]]
        set kw [::tcl::mathfunc::max 0 {*}[lmap k $keys {string length $k}]]
        foreach k $keys {
            puts " [format %-*s $kw $k] = [::sledge::setting $table $name $k]"
        }
        puts "\}"
    }
}

# dgset takes HammerDB's options (vu, warehouse, scale_fact, directory) and
# Sledge's own names for them (virtual_users, warehouses), with HammerDB's
# checks and messages; a refused value is reported and the script carries on.
proc dgset {args} {
    set usage {Usage: dgset [vu|scale_fact|warehouse|directory]}
    if {[llength $args] != 2} { puts "dgset - $usage"; return }
    lassign $args key val
    switch -- $key {
        vu - virtual_users - warehouse - warehouses - scale_fact - directory {}
        default { puts "Error: invalid option"; puts $usage; return }
    }
    set key [dict get {vu virtual_users virtual_users virtual_users warehouse warehouses warehouses warehouses
        scale_fact scale_fact directory directory} $key]
    set dg $::sledge::dg
    switch -- $key {
        virtual_users {
            if {![string is integer -strict $val] || $val < 1 || $val > 1024} {
                puts "The number of virtual users must be a positive integer less than 1024"
                return
            }
            set wh [dict get $dg warehouses]
            if {$::sledge::bm eq "TPROC-C" && $val > $wh} {
                puts "Error:Build virtual users must be less than or equal to number of warehouses"
                puts "You have $val virtual users building $wh warehouses"
                dict set ::sledge::dg virtual_users $wh
                return
            }
            puts "Set virtual users to $val for data generation"
        }
        warehouses {
            if {![string is integer -strict $val] || $val < 1 || $val > 100000} {
                puts "The number of warehouses must be a positive integer less than or equal to 100000"
                return
            }
        }
        scale_fact {
            set valid {1 10 30 100 300 1000 3000 10000 30000 100000}
            if {$val ni $valid} { puts "Error: Scale Factor must be a value in $valid"; return }
        }
        directory {
            if {![file isdirectory $val] || ![file writable $val]} {
                puts "Files cannot be written to chosen directory you must create $val before generating data"
                puts "Setting back to [dict get $dg directory]"
                return
            }
        }
    }
    dict set ::sledge::dg $key $val
    return
}

# vuset checks values as HammerDB does and answers with its messages: a
# refused value is reported, set to HammerDB's default, and the script
# carries on. `vuset vu vcpu` is one VU per CPU. The 0/1 settings also take
# Tcl's booleans (true/false, yes/no, on/off), which mean 1 and 0.
proc vuset {args} {
    set usage {Usage: vuset [vu|delay|repeat|iterations|showoutput|logtotemp|unique|nobuff|timestamps] value}
    if {[llength $args] != 2} { puts $usage; return }
    lassign $args key val
    if {$key ni {vu delay repeat iterations showoutput logtotemp unique nobuff timestamps}} {
        puts "Error: invalid option"
        puts $usage
        return
    }
    if {$::sledge::created} {
        puts "Error: Virtual Users exist, destroy with vudestroy before changing settings"
        return
    }
    # label, least value, default: HammerDB's words and defaults.
    set limits {
        vu {{The number of virtual users} 1 1} delay {{User Delay(ms)} 0 500}
        repeat {{Repeat Delay(ms)} 0 500} iterations {Iterations 1 1}
        showoutput {{Show Output} 0 1} logtotemp {{Log Output} 0 0} unique {{Unique Log Name} 0 0}
        nobuff {{No Log Buffer} 0 0} timestamps {{Log timestamps} 0 0}
    }
    lassign [dict get $limits $key] label least default
    if {$key eq "vu" && $val eq "vcpu"} { set val [numberOfCPUs] }
    set bad ""
    if {$key in {showoutput logtotemp unique nobuff timestamps}} {
        if {[string is boolean -strict $val]} {
            set val [expr {[string is true $val] ? 1 : 0}]
        } else {
            set bad "$label must be 0 or 1"
        }
    } elseif {![string is integer -strict $val]} {
        set bad "$label must be an integer"
    } elseif {$val < $least} {
        set bad "$label must be $least or greater"
    }
    if {$bad ne ""} {
        puts $bad
        puts "setting to value: $default"
        set val $default
    }
    dict set ::sledge::vu $key $val
    return
}

# print: HammerDB's forms. Those with nothing behind them in Sledge (script,
# ci) say so in HammerDB's words.
proc print {args} {
    set usage {Usage: print [db|bm|ci|dict|generic|script|vuconf|vucreated|vustatus|vucomplete|datagen|tcconf]}
    if {[llength $args] != 1} { puts $usage; return }
    set what [lindex $args 0]
    switch -- $what {
        db {
            puts "Database [::sledge::product] set.\nTo change do: dbset db prefix, one of:"
            puts "PostgreSQL = pg MariaDB = maria MySQL = mysql"
        }
        bm { puts "Benchmark set to $::sledge::bm" }
        ci { puts "CI Dictionary Settings\nNo CI configuration loaded" }
        generic {
            puts "Generic Dictionary Settings"
            ::sledge::pdict $::sledge::generictable [dict keys $::sledge::generictable]
        }
        vucreated { puts "$::sledge::created Virtual Users created" }
        vustatus { vustatus }
        vucomplete { puts [vucomplete] }
        tcconf {
            set keys [dict keys [dict get $::sledge::generictable transaction_counter]]
            set width [::tcl::mathfunc::max {*}[lmap k $keys {string length $k}]]
            foreach k $keys {
                puts "[format %-*s $width $k] = [::sledge::setting $::sledge::generictable transaction_counter $k]"
            }
        }
        dict {
            # HammerDB prints the connection dict and the benchmark's.
            puts "Dictionary Settings for [::sledge::product]"
            ::sledge::pdict [::sledge::dbdicts] [list connection [expr {$::sledge::bm eq "TPROC-H" ? "tpch" : "tpcc"}]]
        }
        vuconf {
            foreach {label key} {{Virtual Users} vu {User Delay(ms)} delay {Repeat Delay(ms)} repeat
                Iterations iterations {Show Output} showoutput {Log Output} logtotemp
                {Unique Log Name} unique {No Log Buffer} nobuff {Log Timestamps} timestamps} {
                puts "$label = [dict get $::sledge::vu $key]"
            }
        }
        script {
            if {$::sledge::custom ne ""} {
                puts "Notice: print script: $::sledge::custom was named by customscript; Sledge cannot run driver scripts"
            } else {
                puts "Notice: print script: Sledge runs its own $::sledge::bm driver, built in: there is no driver script to print"
            }
        }
        datagen {
            set dg $::sledge::dg
            if {$::sledge::bm eq "TPROC-C"} {
                set size "[dict get $dg warehouses] warehouses"
            } else {
                set size "[dict get $dg scale_fact] scale factor"
            }
            puts "Data Generation set to build a $::sledge::bm schema for [::sledge::product] with $size with [dict get $dg virtual_users] virtual users in [dict get $dg directory]"
        }
        default { puts "Error: invalid option"; puts $usage }
    }
    return
}

# The script commands. Sledge runs its own drivers, built into the engine:
# loadscript and clearscript select them, customscript names a HammerDB
# driver script Sledge cannot run, and vurun then refuses (no job) rather
# than measure Sledge's driver under the custom script's name.
namespace eval ::sledge {
    # nobuff (HammerDB's No Log Buffer): job output is stored unbuffered,
    # so it only shows in print vuconf.
    dict set ::sledge::vu nobuff 0
    variable custom ""  ;# the file customscript named, until loadscript/clearscript
    variable vustate "" ;# after a run: FINISH SUCCESS or FINISH FAILED
    variable tc 0       ;# tcstart called (Sledge records the count either way)
    variable wspid ""   ;# the sledge serve this session started with wsstart
}

# ::sledge::generic is a key of HammerDB's generic dictionaries (tcset,
# metset and wsport keep theirs there, as HammerDB does, so giset and print
# generic see them); ::sledge::setgeneric changes one.
proc ::sledge::generic {d key} { return [setting $::sledge::generictable $d $key] }
proc ::sledge::setgeneric {d key value} { dict set ::sledge::dicts $d $key $value }

proc loadscript {} {
    set ::sledge::custom ""
    puts "Notice: loadscript: Sledge's $::sledge::bm driver is built in; nothing to load"
}

proc clearscript {} {
    set ::sledge::custom ""
    puts "Script cleared"
}

proc customscript {args} {
    set file [lindex $args 0]
    if {[llength $args] != 1 || ![file isfile $file] || [file extension $file] ne ".tcl"} {
        puts "Usage: customscript scriptname.tcl"
        return
    }
    set ::sledge::custom $file
    puts "Notice: customscript $file: Sledge cannot run HammerDB driver scripts; vurun runs nothing until loadscript or clearscript selects Sledge's built-in $::sledge::bm driver"
}

proc custommonitor {args} {
    if {[llength $args] != 1 || [lindex $args 0] ni {test timed}} {
        puts "Usage: custommonitor test|timed"
        return
    }
    puts "Notice: custommonitor [lindex $args 0]: Sledge cannot run custom scripts, so there is no monitor virtual user to add"
}

proc savescript {args} {
    if {[llength $args] != 1} { puts "Usage: savescript filename"; return }
    puts "Notice: savescript [lindex $args 0]: Sledge's drivers are built into the engine; there is no driver script to save (nothing written)"
}

proc distributescript {} {
    puts "Notice: distributescript: Sledge runs in Local mode only (no Primary/Replica); there is nothing to distribute"
}

# Primary/Replica multi-client runs: Sledge has none yet, so it stays in
# Local mode and says so. steprun runs HammerDB's step workload (the
# primary and the replicas of config/steps.xml) as one staged run.
proc switchmode {args} {
    set mode [string tolower [lindex $args 0]]
    switch -- $mode {
        "" - current { puts "Mode currently set to Local" }
        local { puts "Already in Local mode" }
        primary - replica {
            puts "Notice: switchmode [lindex $args 0]: Sledge has no Primary/Replica multi-client mode yet; staying in Local mode (runs use this machine's virtual users)"
        }
        default { puts "Error:Mode to switch to must be one of Local, Primary or Replica" }
    }
    return
}

# steprun runs the step workload as one job: the primary's virtual users
# (vuset vu, rampup, duration) with the replicas of steps.xml joining and
# leaving as the run's stages. Like HammerDB's it loads the built-in driver
# and destroys the virtual users when it is done; it returns vurun's answer,
# "Benchmark Run jobid=ID", or "(No jobid)" when nothing ran (a replica
# overrunning the primary, say).
proc steprun {} {
    if {$::sledge::bm ne "TPROC-C"} {
        puts "Error: Step Workload does not support $::sledge::bm"
        return
    }
    set ::sledge::running 1
    set code [catch {::sledge::action steprun} res]
    set ::sledge::running 0
    if {$code} { return -code error $res }
    set id [lindex $res 0]
    if {$id ne ""} {
        set ::sledge::custom ""
        set ::sledge::created 0
        set ::sledge::vustate ""
    }
    return [::sledge::answer "Benchmark Run" $id]
}

# The schema actions, as HammerDB's: refused while virtual users exist,
# otherwise run as a job. A job whose virtual users were shown finishing
# FAILED stops the script (HammerDB's would carry on to its "SCHEMA BUILD
# COMPLETED" line); other failures (settings refused, a server not
# reached) are printed and the script carries on, as in HammerDB.
proc ::sledge::schema {action what verb} {
    if {$::sledge::created} {
        puts "Error: Cannot $verb schema with Virtual Users active, destroy Virtual Users first"
        return
    }
    lassign [action $action] id status vusfailed
    if {$vusfailed} {
        return -code error "$action: [answer $what $id] ended [string toupper $status]: the script stops here"
    }
    return [answer $what $id]
}
proc buildschema {} { return [::sledge::schema buildschema "Schema Build" build] }
proc checkschema {} { return [::sledge::schema checkschema "Schema Check" check] }
proc deleteschema {} { return [::sledge::schema deleteschema "Schema Delete" delete] }
proc librarycheck {} { ::sledge::action librarycheck; return }
proc datagenrun {} { ::sledge::action datagenrun; return }

proc vucreate {} {
    if {$::sledge::created} {
        puts "Error: Virtual Users exist, destroy with vudestroy before creating"
        return
    }
    set ::sledge::created [dict get $::sledge::vu vu]
    set ::sledge::vustate ""
    puts "$::sledge::created Virtual Users Created"
}

proc vudestroy {} {
    if {!$::sledge::created} { puts "No Virtual Users found to destroy"; return }
    set ::sledge::created 0
    set ::sledge::vustate ""
    puts "vudestroy success"
}

# vustatus prints one line per virtual user, as HammerDB does.
proc vustatus {} {
    if {!$::sledge::created} { puts "No Virtual Users found"; return }
    if {$::sledge::running} {
        set state RUNNING
    } elseif {$::sledge::vustate ne ""} {
        set state $::sledge::vustate
    } else {
        set state "WAIT IDLE"
    }
    for {set i 1} {$i <= $::sledge::created} {incr i} { puts "$i = $state" }
    return
}

# vucomplete: true once the virtual users' run has ended (vurun returns when
# it has), false before a run and after vudestroy, as in HammerDB.
proc vucomplete {} {
    return [expr {$::sledge::created && !$::sledge::running && $::sledge::vustate ne "" ? "true" : "false"}]
}

# vurun runs the workload and returns HammerDB's "Benchmark Run jobid=ID"
# (jobs takes that whole answer as the id too). It creates the virtual users
# first if there are none, as HammerDB does. A run that fails is still a job:
# its errors are printed and its id returned.
proc vurun {} {
    if {$::sledge::custom ne ""} {
        puts "Error: vurun: the script loaded is $::sledge::custom (customscript): Sledge cannot run HammerDB driver scripts; loadscript selects Sledge's built-in $::sledge::bm driver"
        return [::sledge::answer "Benchmark Run" ""]
    }
    if {!$::sledge::created} { vucreate }
    set ::sledge::running 1
    set code [catch {::sledge::action vurun} res]
    set ::sledge::running 0
    if {$code} { return -code error $res }
    lassign $res id status
    # A degraded run (faults recovered from) completed: success, as in Go.
    set ::sledge::vustate [expr {$status in {completed degraded} ? "FINISH SUCCESS" : "FINISH FAILED"}]
    return [::sledge::answer "Benchmark Run" $id]
}

# threshold is Sledge's own (HammerDB has none): pass/fail criteria judged
# on the result of every later run, as sledge run --threshold (each printed
# with its verdict under the result and stored with the job). threshold
# EXPR ?EXPR ...? adds them, threshold clear removes them all, threshold
# alone lists them. The engine reads them at vurun, refusing a bad one.
proc threshold {args} {
    if {![llength $args]} {
        if {![llength $::sledge::thresholds]} { puts "No thresholds set"; return }
        foreach t $::sledge::thresholds { puts "Threshold: $t" }
        return
    }
    if {$args eq "clear"} {
        set ::sledge::thresholds {}
        puts "Thresholds cleared"
        return
    }
    foreach t $args {
        lappend ::sledge::thresholds $t
        puts "Threshold set: $t"
    }
}

# runtimer and waittocomplete wait for a run to end; vurun returns when the
# job has ended, so there is nothing left to wait for. A value that is not
# seconds is reported, not raised: HammerDB 6 ignores it.
proc runtimer {args} {
    set s [lindex $args 0]
    if {[llength $args] != 1 || ![string is double -strict $s] || $s < 0} {
        puts "Notice: runtimer [join $args]: want seconds; ignored (vurun returns when its run has ended)"
    }
    return
}
proc waittocomplete {args} { return }

# The transaction counter: Sledge records every run's transaction count
# (jobs ID tcount) whether or not tcstart was called; tcstart/tcstop only
# change what tcstatus reports.
proc tcstart {} {
    if {$::sledge::tc} { puts "Transaction Counter thread already running"; return }
    set ::sledge::tc 1
    puts "Notice: tcstart: Sledge records the transaction count of every run (jobs ID tcount); no counter thread to start"
}
proc tcstop {} {
    if {!$::sledge::tc} { puts "Transaction Counter is not running"; return }
    set ::sledge::tc 0
    puts "Stopping Transaction Counter"
}
proc tcstatus {} {
    if {$::sledge::tc} {
        puts "Transaction Counter thread running (Sledge records it with every run: jobs ID tcount)"
    } else {
        puts "Transaction Counter is not running (Sledge records it with every run anyway: jobs ID tcount)"
    }
    return
}
proc tcset {args} {
    set usage {Usage: tcset [refreshrate|logtotemp|unique|timestamps] value}
    if {[llength $args] != 2} { puts $usage; return }
    lassign $args key val
    set keys {refreshrate {tc_refresh_rate {refresh rate}} logtotemp {tc_log_to_temp {log to temp}}
        unique {tc_unique_log_name {unique log name}} timestamps {tc_log_timestamps timestamps}}
    if {![dict exists $keys $key]} { puts "Error: invalid option"; puts $usage; return }
    lassign [dict get $keys $key] name label
    if {$key eq "refreshrate"} {
        if {![string is integer -strict $val] || $val <= 0 || $val >= 60} {
            puts "Refresh rate must be an integer more than 0 secs and less than 60 secs"
            set val 10
        }
    } elseif {[string is boolean -strict $val]} {
        set val [expr {[string is true $val] ? 1 : 0}]
    } else {
        puts "[string totitle $label] must be 0 or 1"
        set val 0
    }
    ::sledge::setgeneric transaction_counter $name $val
    puts "Transaction Counter $label set to $val"
    puts "Notice: tcset $key: kept for print tcconf; Sledge samples the count at each run's own interval"
}

# CPU metrics: HammerDB's metrics agent samples the OS (mpstat) when asked.
# Sledge needs no agent: every run observes the database server and this
# host (unless its spec says metrics off) and stores it with the job, so
# metstart and metstop only say so and the script goes on.
proc metset {args} {
    set usage {Usage: metset [agent_hostname|agent_id] value}
    if {[llength $args] != 2} { puts $usage; return }
    lassign $args key val
    switch -- $key {
        agent_id {
            if {![string is integer -strict $val]} { puts "agent_id be an integer"; puts "setting to value: 10000"; set val 10000 }
            puts "Metrics agent id set to $val"
        }
        agent_hostname { puts "Metrics agent hostname set to $val" }
        default { puts "Error: invalid option"; puts $usage; return }
    }
    ::sledge::setgeneric metrics $key $val
}
proc metstart {} {
    puts "Notice: metstart: Sledge observes the database server and this host during every run (wait events, server statistics, settings, CPU, memory, disk and network) and stores it with the job (jobs ID metrics); no metrics agent to start"
}
proc metstatus {} {
    puts "Notice: metstatus: Sledge observes the database server and [info hostname] during every run (jobs ID metrics); no metrics agent runs"
}
proc metstop {} {
    puts "Notice: metstop: Sledge observes the database server and this host during every run (jobs ID metrics), without a metrics agent (id: [::sledge::generic metrics agent_hostname]:[::sledge::generic metrics agent_id]); nothing to stop"
}

# The web service: `sledge serve` answers HammerDB's /jobs endpoints.
# wsstart starts one on 127.0.0.1:wsport in the background (it keeps running
# after the script, as HammerDB's does); wsstop stops the one this session
# started.
proc wsport {args} {
    switch -- [llength $args] {
        0 { puts "Web Service Port set to [::sledge::generic webservice ws_port]" }
        1 {
            if {![string is integer -strict $args] || $args < 1 || $args > 65535} {
                puts "Error: Web Service port should be an integer"
            } else {
                ::sledge::setgeneric webservice ws_port $args
                puts "Setting Web Service port to $args"
            }
        }
        default { puts "Error :wsport accepts none or one integer argument" }
    }
    return
}

# ::sledge::wsprobe answers "" when something serves HTTP on the port, else
# why not.
proc ::sledge::wsprobe {port} {
    package require http
    if {[catch {http::geturl http://127.0.0.1:$port/api/openapi.json -timeout 2000} tok]} { return $tok }
    set why ""
    if {[http::status $tok] ne "ok"} { set why [http::status $tok] }
    http::cleanup $tok
    return $why
}

proc wsstart {} {
    set port [::sledge::generic webservice ws_port]
    if {[::sledge::wsprobe $port] eq ""} {
        puts "Notice: wsstart: a web service already answers on port $port; not starting another"
        return
    }
    set log [file join [::sledge::tmpdir] sledge-ws-$port.log]
    set ::sledge::wspid [exec $::sledge::bin serve --listen 127.0.0.1:$port >>& $log < /dev/null &]
    for {set i 0} {$i < 50 && [::sledge::wsprobe $port] ne ""} {incr i} { after 100 }
    puts "Starting Sledge web service (sledge serve) on http://127.0.0.1:$port, pid $::sledge::wspid, output in $log"
}

proc wsstatus {} {
    set port [::sledge::generic webservice ws_port]
    set why [::sledge::wsprobe $port]
    if {$why eq ""} {
        puts "Web Service running: http://127.0.0.1:$port"
    } else {
        puts "Web Service not running: $why"
    }
}

proc wsstop {} {
    set port [::sledge::generic webservice ws_port]
    if {$::sledge::wspid ne ""} {
        catch {exec kill $::sledge::wspid}
        for {set i 0} {$i < 50 && [::sledge::wsprobe $port] eq ""} {incr i} { after 100 }
        puts "Stopping Web Service on port $port (sledge serve, pid $::sledge::wspid)"
        set ::sledge::wspid ""
    } elseif {[set why [::sledge::wsprobe $port]] eq ""} {
        puts "Notice: wsstop: the web service on port $port was not started by this session; Sledge stops only its own"
    } else {
        puts "Web Service not running: $why"
    }
}

# HammerDB's CI: pipelines that build databases from GitHub pushes. Sledge
# has no CI service; these say so and the script carries on.
proc ::sledge::noci {cmd} {
    puts "Notice: $cmd: Sledge has no CI pipeline service (HammerDB's GitHub-webhook database builds); nothing done"
}
proc pipes {args} { ::sledge::noci pipes }
proc pipe {args} { ::sledge::noci pipe }
proc ci {args} { ::sledge::noci ci }
proc citmp {} { ::sledge::noci citmp }
proc cifix {} { ::sledge::noci cifix }
proc ciset {args} { ::sledge::noci ciset }
proc cilisten {} { ::sledge::noci cilisten }
proc cistatus {} { ::sledge::noci cistatus }
proc cistop {} { ::sledge::noci cistop }
proc cireset {} { ::sledge::noci cireset }
proc cipush {args} { ::sledge::noci cipush }

# HammerDB's helpers: the procedures its CLI defines besides the commands
# of its help index, which scripts call (its build scripts start with
# `set warehouse [ numberOfWHs ]`). Its other procedures are the GUI's, its
# virtual-user threads', its CI pipelines' and its data generator's
# internals, which no script calls.

# numberOfCPUs is the machine's CPU count as HammerDB counts it: the
# processors /proc/cpuinfo lists (every one the machine has, whatever this
# process may use); elsewhere the system's count; 1 if none is found.
proc numberOfCPUs {} {
    if {![catch {open /proc/cpuinfo} f]} {
        set n [regexp -all -line {^processor\s} [read $f]]
        close $f
        if {$n > 0} { return $n }
    }
    foreach cmd {{nproc --all} {sysctl -n hw.ncpu}} {
        if {![catch {exec {*}$cmd 2>/dev/null} n] && [string is integer -strict $n] && $n > 0} { return $n }
    }
    return 1
}

# ::sledge::warehouses is HammerDB's schema size for a machine of cpus CPUs:
# 8 warehouses a CPU, rounded up to a multiple of 10 while that is 100 or
# fewer, at most limit.
proc ::sledge::warehouses {cpus limit} {
    set wh [expr {$cpus * 8}]
    if {$wh <= 100} { set wh [expr {($wh + 9) / 10 * 10}] }
    return [expr {min($wh, $limit)}]
}

# numberOfWHs sizes a TPROC-C schema for this machine as HammerDB does and
# says what it chose. HammerDB's limit of 4000 can be lowered only in its CI
# configuration, which Sledge does not have.
proc numberOfWHs {} {
    set cpus [numberOfCPUs]
    set wh [::sledge::warehouses $cpus 4000]
    puts "numberOfWHs: $wh warehouses for $cpus CPUs (HammerDB's sizing: 8 a CPU, rounded up to a multiple of 10 up to 100, at most 4000)"
    return $wh
}

proc putscli {output} { puts $output }
proc even {x} { expr {$x % 2 == 0} }
proc odd {x} { expr {$x % 2 != 0} }

# pdict prints a dictionary one key a line, nested dictionaries indented,
# as HammerDB's pdict does: pdict ?maxlevel? DICT ?pattern ...? (patterns
# select keys by level).
proc pdict {args} {
    set max 0
    if {[llength $args] > 1 && [string is integer -strict [lindex $args 0]]} {
        set max [lindex $args 0]
        set args [lrange $args 1 end]
    }
    if {[llength $args] < 1} {
        puts "usage: pdict ?maxlevel? dictionaryValue ?globPattern?..."
        return
    }
    ::sledge::pdict1 [lindex $args 0] $max 1 "" [lrange $args 1 end]
}
proc ::sledge::pdict1 {d max level indent patterns} {
    if {[catch {dict size $d}]} { return }
    set pattern [expr {[llength $patterns] ? [lindex $patterns 0] : "*"}]
    set keys [dict keys $d $pattern]
    set width 0
    foreach k $keys { set width [expr {max($width, [string length $k])}] }
    foreach k $keys {
        set v [dict get $d $k]
        set nested [expr {($max == 0 || $level < $max) && [llength $v] > 1 && [llength $v] % 2 == 0 && ![catch {dict size $v}]}]
        if {$nested} {
            puts "$indent[format %-*s $width $k] \{"
            ::sledge::pdict1 $v $max [expr {$level + 1}] "$indent    " [lrange $patterns 1 end]
            puts "$indent\}"
        } else {
            puts "$indent[format %-*s $width $k] = $v"
        }
    }
}

# findakey names the dictionary (connection, tpcc, tpch) of the current
# database that holds key, as HammerDB's does for its config dictionaries;
# "" when none does. HammerDB's second argument names its own config
# variable; when the script has such a dictionary it is searched instead.
proc findakey {key {dictname ""}} {
    if {$dictname ne "" && [info exists ::$dictname] && ![catch {dict size [set ::$dictname]}]} {
        set d [set ::$dictname]
    } else {
        set d [::sledge::dbdicts]
    }
    dict for {name keys} $d {
        if {![catch {dict exists $keys $key} has] && $has} { return $name }
    }
    return ""
}

# keepalive, _runtimer and _waittocomplete kept HammerDB's main thread
# alive while its virtual users ran: vurun returns when its run has ended.
proc keepalive {} { return }
proc _runtimer {args} { return }
proc _waittocomplete {} { return }

# loadtpcc and loadtpch load HammerDB's driver script for a benchmark;
# build_schema, check_schema, delete_schema and run_datagen are what its
# schema and datagen commands run.
proc loadtpcc {} { loadscript }
proc loadtpch {} { loadscript }
proc build_schema {} { return [buildschema] }
proc check_schema {} { return [checkschema] }
proc delete_schema {} { return [deleteschema] }
proc run_datagen {} { return [datagenrun] }

proc get_ws_port {} { return [::sledge::generic webservice ws_port] }
proc strip_html {html} { regsub -all {<[^>]+>} $html "" text; return $text }

# string insert, which HammerDB adds to Tcl 8.6 (Tcl 8.7 and 9 have it).
if {[catch {string insert ab 1 x}]} {
    proc ::sledge::stringinsert {s index insert} {
        set n [string length $s]
        if {[regexp {^end(?:([+-])(\d+))?$} $index -> op k]} {
            set i [expr {$op eq "" ? $n : ($op eq "+" ? $n + $k : $n - $k)}]
        } elseif {[regexp {^\s*([+-]?\d+)(?:([+-])([+-]?\d+))?\s*$} $index -> m op k]} {
            set i [expr {$op eq "" ? $m : ($op eq "+" ? $m + $k : $m - $k)}]
        } else {
            return -code error "bad index \"$index\": must be integer?\[+-\]integer? or end?\[+-\]integer?"
        }
        return "[string range $s 0 [expr {$i - 1}]]$insert[string range $s $i end]"
    }
    namespace ensemble configure string -map [dict replace \
        [namespace ensemble configure string -map] insert ::sledge::stringinsert]
}

# jobs: HammerDB's jobs command, answered by `sledge cli jobs` from Sledge's
# repository in HammerDB's shapes. Like HammerDB it prints its answer and
# returns "", except `jobs` alone (the summary table), `jobs joblist`,
# `jobs ID getchart TYPE` (an HTML page) and `jobs diff` (the difference),
# which return theirs. `jobs format` and `jobs profileid` change the session.
#
# The job id may be given as vurun's whole answer ("Benchmark Run jobid=ID"),
# which HammerDB 6 scripts keep. The answer is printed with one `puts`
# argument, as HammerDB does, so a script that renamed puts to redirect
# stdout (HammerDB's generic result scripts) captures it.
proc jobs {args} {
    if {[regexp {(?:^|\s)jobid=(\S+)$} [lindex $args 0] -> id]} { lset args 0 $id }
    set out [exec -ignorestderr $::sledge::bin cli jobs --format $::sledge::jobsformat \
        --profileid $::sledge::profileid -- {*}$args]
    set i [string first "\x1e\n" $out]
    if {$i < 0} { error "jobs: unexpected answer from $::sledge::bin" }
    set printed [string range $out 0 [expr {$i - 1}]]
    if {[string index $printed end] eq "\n"} { set printed [string range $printed 0 end-1] }
    if {$i > 0} { puts $printed }
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

# help: every HammerDB command, what it does in Sledge, one line each;
# `help CMD` gives its usage too. The Python front end (sledge.hammerdb)
# holds the same table; a test keeps them equal.
set ::sledge::help {
    buildschema {buildschema} {build the schema (diset count_ware, num_vu ...); returns "Schema Build jobid=ID"}
    checkschema {checkschema} {check the TPROC-C schema; returns "Schema Check jobid=ID"}
    ci {ci ?pipeid?} {notice: Sledge has no CI pipeline service}
    cifix {cifix} {notice: Sledge has no CI pipeline service}
    cilisten {cilisten} {notice: Sledge has no CI pipeline service}
    cipush {cipush refname ?pipeline? ?workload? ?dbprefix? ?io_intensive?} {notice: Sledge has no CI pipeline service}
    cireset {cireset} {notice: Sledge has no CI pipeline service}
    ciset {ciset top section key value} {notice: Sledge has no CI pipeline service}
    cistatus {cistatus} {notice: Sledge has no CI pipeline service}
    cistop {cistop} {notice: Sledge has no CI pipeline service}
    citmp {citmp} {notice: Sledge has no CI pipeline service}
    clearscript {clearscript} {forget a customscript: vurun runs Sledge's built-in driver}
    custommonitor {custommonitor test|timed} {notice: no custom scripts, so no monitor virtual user}
    customscript {customscript scriptname.tcl} {notice: Sledge cannot run HammerDB driver scripts; vurun then runs nothing until loadscript}
    datagenrun {datagenrun} {generate the data as flat files (dgset settings)}
    dbset {dbset [db|bm] value} {db pg|maria|mysql, bm TPROC-C|TPROC-H (HammerDB's older names accepted)}
    deleteschema {deleteschema} {drop the schema; returns "Schema Delete jobid=ID"}
    dgset {dgset [vu|scale_fact|warehouse|directory] value} {datagen settings}
    diset {diset dict key value} {a database setting (dicts connection, tpcc, tpch), mapped onto Sledge's options}
    distributescript {distributescript} {notice: Local mode only, nothing to distribute}
    giset {giset dict key value} {a generic setting (e.g. giset commandline keepalive_margin 60)}
    help {help ?command?} {this list, or one command's usage}
    jobs {jobs ?jobid? ?option? ...} {HammerDB's jobs queries over Sledge's repository (help jobs); job is an alias}
    librarycheck {librarycheck} {connect to every configured database and print its version}
    loadscript {loadscript} {select Sledge's built-in driver (nothing to load)}
    metset {metset [agent_hostname|agent_id] value} {kept for HammerDB scripts; Sledge needs no metrics agent}
    metstart {metstart} {notice: every run observes the server and this host (jobs ID metrics)}
    metstatus {metstatus} {notice: every run observes the server and this host (jobs ID metrics)}
    metstop {metstop} {notice: no metrics agent to stop; the script goes on}
    numberOfCPUs {numberOfCPUs} {the number of CPUs, as HammerDB counts them (what vuset vu vcpu uses)}
    numberOfWHs {numberOfWHs} {HammerDB's warehouse count for this machine (8 a CPU, rounded up to 10s up to 100, at most 4000), said when chosen}
    pipe {pipe ?pipeid?} {notice: Sledge has no CI pipeline service}
    pipes {pipes ?pipeid?} {notice: Sledge has no CI pipeline service}
    print {print [db|bm|ci|dict|generic|script|vuconf|vucreated|vustatus|vucomplete|datagen|tcconf]} {print the settings}
    quit {quit} {leave (exit works too)}
    runtimer {runtimer seconds} {returns at once: vurun returns when its run has ended}
    savescript {savescript filename} {notice: no driver script to save}
    steprun {steprun} {a step workload (vuset vu, rampup, duration, the replicas of config/steps.xml) as one staged run; returns "Benchmark Run jobid=ID"}
    switchmode {switchmode [Local|Primary|Replica] ?PrimaryID? ?PrimaryHostname?} {notice: Sledge stays in Local mode}
    tcset {tcset [refreshrate|logtotemp|unique|timestamps] value} {transaction counter settings (print tcconf)}
    tcstart {tcstart} {Sledge records every run's transaction count anyway (jobs ID tcount)}
    tcstatus {tcstatus} {whether tcstart was called; the count is recorded either way}
    tcstop {tcstop} {the counter stops with each run}
    threshold {threshold ?expr ...?|clear} {Sledge's own: pass/fail criteria judged on every later run's result (threshold {p99(new_order)<50ms})}
    vucomplete {vucomplete} {true once the virtual users' run has ended}
    vucreate {vucreate} {create the virtual users (vuset vu)}
    vudestroy {vudestroy} {destroy the virtual users}
    vurun {vurun} {run the workload; returns "Benchmark Run jobid=ID" when it has ended}
    vuset {vuset [vu|delay|repeat|iterations|showoutput|logtotemp|unique|nobuff|timestamps] value} {virtual user settings (vu vcpu: one per CPU)}
    vustatus {vustatus} {the virtual users' status}
    waittocomplete {waittocomplete} {returns at once: vurun returns when its run has ended}
    wsport {wsport ?port?} {set or show the web service port}
    wsstart {wsstart} {start sledge serve on 127.0.0.1:port in the background}
    wsstatus {wsstatus} {whether a web service answers on the port}
    wsstop {wsstop} {stop the web service this session started}
}

proc help {args} {
    set name [lindex $args 0]
    if {$name eq "jobs" || $name eq "job"} {
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
jobs PID getchart profile|diff:PID2   an HTML chart of profiles (returned)
JOBID may be vurun's whole answer ("Benchmark Run jobid=ID").}
        return
    }
    if {$name ne ""} {
        foreach {cmd usage what} $::sledge::help {
            if {$cmd eq $name} {
                puts "$cmd - Usage: $usage"
                puts $what
                return
            }
        }
        puts "Error: invalid option"
        puts "Usage: help \[[join [lmap {c u w} $::sledge::help {set c}] |]\]"
        return
    }
    puts "Sledge CLI: HammerDB's commands, driving Sledge's engine."
    puts "Type \"help command\" for more details on specific commands below\n"
    foreach {cmd usage what} $::sledge::help { puts [format "  %-18s %s" $cmd $what] }
    puts "\nAny other input is Tcl; vurun returns when its run has ended."
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
