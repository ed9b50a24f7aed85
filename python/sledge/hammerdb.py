"""HammerDB's CLI commands as Python functions, on a default session.

    from sledge.hammerdb import *

    dbset('db', 'pg')
    diset('tpcc', 'pg_count_ware', 2)
    vuset('vu', 4)
    vucreate()
    answer = vurun()                    # 'Benchmark Run jobid=12', as HammerDB's
    vudestroy()
    jobs(answer, 'result')              # prints HammerDB's JSON, returns it parsed
    tclpy.eval('puts "done"')           # Tcl, as in HammerDB's Python CLI

Every HammerDB 6 command is here (help() lists them). As in HammerDB a
command that fails prints its errors and the script carries on; SledgeError
is raised only where Sledge cannot do what was asked at all (dbset db ora,
no sledge binary). `print` is HammerDB's `print` command as print_: the star
import leaves Python's print and help alone; `sledge cli py` scripts get
HammerDB's print and help as well (script_namespace()). session(), reset(),
printdict() and script_namespace() are here too, imported by name.
"""

import builtins
import re
import sys

from ._engine import SledgeError
from .session import Session

__all__ = [
    "dbset", "diset", "giset", "vuset", "dgset", "print_",
    "buildschema", "checkschema", "deleteschema",
    "vucreate", "vurun", "vudestroy", "vustatus", "vucomplete",
    "loadscript", "clearscript", "customscript", "custommonitor", "savescript", "distributescript",
    "switchmode", "steprun",
    "tcstart", "tcstop", "tcstatus", "tcset", "threshold",
    "metset", "metstart", "metstatus", "metstop",
    "wsport", "wsstart", "wsstatus", "wsstop",
    "pipes", "pipe", "ci", "citmp", "cifix", "ciset", "cilisten", "cistatus", "cistop", "cireset", "cipush",
    "runtimer", "waittocomplete", "jobs", "job", "librarycheck", "datagenrun",
    "numberOfCPUs", "numberOfWHs", "quit", "tclpy",
]

_default = Session()


def session():
    """The default Session the module-level commands use."""
    return _default


def reset(binary=None, repo=None):
    """Replace the default session with a fresh one; returns it."""
    global _default
    _default = Session(binary=binary, repo=repo)
    return _default


def dbset(what=None, value=None):
    """dbset('db', 'pg'|'maria'|'mysql'); dbset('bm', 'TPROC-C'|'TPROC-H')."""
    if what is None or value is None:
        return _default._notice("Usage: dbset [db|bm] value")
    return _default.dbset(what, value)


def diset(dict, key, value):  # noqa: A002 - HammerDB's name
    """diset('connection'|'tpcc'|'tpch', key, value)."""
    return _default.diset(dict, key, value)


def giset(dict, key, value):  # noqa: A002
    """giset(dict, key, value) (generic settings)."""
    return _default.giset(dict, key, value)


def vuset(key=None, value=None):
    """vuset('vu'|'delay'|'repeat'|'iterations'|'showoutput'|'logtotemp'|'unique'|'nobuff'|'timestamps', value);
    vuset('vu', 'vcpu') is one VU per CPU."""
    return _default.vuset(key, value)


def dgset(key=None, value=None):
    """dgset('vu'|'warehouse'|'scale_fact'|'directory', value)."""
    return _default.dgset(key, value)


def print_(what=None, echo=True):
    """HammerDB's print: db, bm, ci, dict, generic, script, vuconf, vucreated,
    vustatus, vucomplete, datagen, tcconf (and state: the JSON sent to the
    engine). Prints the text and returns it."""
    return _default.print_(what, echo=echo)


def printdict(*names):
    """The named dictionaries (default: connection and the benchmark's) as text."""
    return _default.printdict(*names)


def buildschema():
    """Returns "Schema Build jobid=ID"; a failed build prints its errors."""
    return _default.buildschema()


def checkschema():
    return _default.checkschema()


def deleteschema():
    return _default.deleteschema()


def vucreate():
    return _default.vucreate()


def vurun():
    """Runs the workload (blocks until it ends); returns HammerDB's
    "Benchmark Run jobid=ID" (the bare id: session().job_id)."""
    return _default.vurun()


def vudestroy():
    return _default.vudestroy()


def vustatus():
    return _default.vustatus()


def vucomplete():
    return _default.vucomplete()


def loadscript(*args):
    return _default.loadscript(*args)


def clearscript():
    return _default.clearscript()


def customscript(path=None):
    return _default.customscript(path)


def custommonitor(mode=None):
    return _default.custommonitor(mode)


def savescript(path=None):
    return _default.savescript(path)


def distributescript():
    return _default.distributescript()


def switchmode(mode="current", *args):
    return _default.switchmode(mode, *args)


def steprun():
    """HammerDB's step workload as one staged run; returns "Benchmark Run
    jobid=ID"."""
    return _default.steprun()


def tcstart():
    return _default.tcstart()


def tcstop():
    return _default.tcstop()


def tcstatus():
    return _default.tcstatus()


def tcset(key=None, value=None):
    return _default.tcset(key, value)


def threshold(*exprs):
    return _default.threshold(*exprs)


def metset(key=None, value=None):
    return _default.metset(key, value)


def metstart():
    return _default.metstart()


def metstatus():
    return _default.metstatus()


def metstop():
    return _default.metstop()


def wsport(*args):
    return _default.wsport(*args)


def wsstart():
    return _default.wsstart()


def wsstatus():
    return _default.wsstatus()


def wsstop():
    return _default.wsstop()


def pipes(*args):
    return _default.noci("pipes")


def pipe(*args):
    return _default.noci("pipe")


def ci(*args):
    return _default.noci("ci")


def citmp():
    return _default.noci("citmp")


def cifix():
    return _default.noci("cifix")


def ciset(*args):
    return _default.noci("ciset")


def cilisten():
    return _default.noci("cilisten")


def cistatus():
    return _default.noci("cistatus")


def cistop():
    return _default.noci("cistop")


def cireset():
    return _default.noci("cireset")


def cipush(*args):
    return _default.noci("cipush")


def runtimer(*args):
    return _default.runtimer(*args)


def waittocomplete(*args):
    return _default.waittocomplete(*args)


def jobs(*args):
    """HammerDB's jobs command: jobs(), jobs('joblist'), jobs(id), jobs(id, 'result'),
    jobs(id, 'timing'), jobs('format', 'text'), jobs('profileid', 1) … (see Session.jobs).
    Prints the answer, as HammerDB does, and returns it parsed."""
    return _default.jobs(*args)


job = jobs


def librarycheck():
    return _default.librarycheck()


def datagenrun():
    return _default.datagenrun()


def numberOfCPUs():  # noqa: N802 - HammerDB's name
    """The machine's CPUs, as HammerDB counts them."""
    return Session.numberOfCPUs()


def numberOfWHs():  # noqa: N802 - HammerDB's name
    """HammerDB's warehouse count for this machine (8 a CPU, rounded up to a
    multiple of 10 up to 100, at most 4000); prints what it chose."""
    return _default.numberOfWHs()


# HammerDB's helpers besides the commands of its help index, as Tcl
# commands for tclpy.eval (HammerDB's Python scripts reach them that way).
# pdict and string insert need a Tcl interpreter (_TCL_SETUP).
def _findakey(key, dictname=""):
    for name, keys in _default._db_dicts().items():
        if key in keys:
            return name
    return ""


def _helpers():
    def done(*a):
        return ""
    return {
        "putscli": lambda text: _default._notice(text),
        "even": lambda x: int(int(x) % 2 == 0),
        "odd": lambda x: int(int(x) % 2 != 0),
        "findakey": _findakey,
        # HammerDB's main thread waited on its virtual users; vurun returns
        # when its run has ended.
        "keepalive": done, "_runtimer": done, "_waittocomplete": done,
        "loadtpcc": lambda: loadscript(), "loadtpch": lambda: loadscript(),
        "build_schema": lambda: buildschema(), "check_schema": lambda: checkschema(),
        "delete_schema": lambda: deleteschema(), "run_datagen": lambda: datagenrun(),
        "get_ws_port": lambda: _default._ws_port(),
        "strip_html": lambda html: re.sub(r"<[^>]+>", "", html),
    }


def quit(code=0):  # noqa: A001 - HammerDB's name
    """Leave the script (exits Python with CODE)."""
    sys.stdout.flush()
    raise SystemExit(code)


# ------------------------------------------------------------------- help

HELP = (
    ('buildschema', 'buildschema',
     'build the schema (diset count_ware, num_vu ...); returns "Schema Build jobid=ID"'),
    ('checkschema', 'checkschema',
     'check the TPROC-C schema; returns "Schema Check jobid=ID"'),
    ('ci', 'ci ?pipeid?',
     'notice: Sledge has no CI pipeline service'),
    ('cifix', 'cifix',
     'notice: Sledge has no CI pipeline service'),
    ('cilisten', 'cilisten',
     'notice: Sledge has no CI pipeline service'),
    ('cipush', 'cipush refname ?pipeline? ?workload? ?dbprefix? ?io_intensive?',
     'notice: Sledge has no CI pipeline service'),
    ('cireset', 'cireset',
     'notice: Sledge has no CI pipeline service'),
    ('ciset', 'ciset top section key value',
     'notice: Sledge has no CI pipeline service'),
    ('cistatus', 'cistatus',
     'notice: Sledge has no CI pipeline service'),
    ('cistop', 'cistop',
     'notice: Sledge has no CI pipeline service'),
    ('citmp', 'citmp',
     'notice: Sledge has no CI pipeline service'),
    ('clearscript', 'clearscript',
     "forget a customscript: vurun runs Sledge's built-in driver"),
    ('custommonitor', 'custommonitor test|timed',
     'notice: no custom scripts, so no monitor virtual user'),
    ('customscript', 'customscript scriptname.tcl',
     'notice: Sledge cannot run HammerDB driver scripts; vurun then runs nothing until loadscript'),
    ('datagenrun', 'datagenrun',
     'generate the data as flat files (dgset settings)'),
    ('dbset', 'dbset [db|bm] value',
     'db pg|maria|mysql, bm TPROC-C|TPROC-H (HammerDB\'s older names accepted)'),
    ('deleteschema', 'deleteschema',
     'drop the schema; returns "Schema Delete jobid=ID"'),
    ('dgset', 'dgset [vu|scale_fact|warehouse|directory] value',
     'datagen settings'),
    ('diset', 'diset dict key value',
     "a database setting (dicts connection, tpcc, tpch), mapped onto Sledge's options"),
    ('distributescript', 'distributescript',
     'notice: Local mode only, nothing to distribute'),
    ('giset', 'giset dict key value',
     'a generic setting (e.g. giset commandline keepalive_margin 60)'),
    ('help', 'help ?command?',
     "this list, or one command's usage"),
    ('jobs', 'jobs ?jobid? ?option? ...',
     "HammerDB's jobs queries over Sledge's repository (help jobs); job is an alias"),
    ('librarycheck', 'librarycheck',
     'connect to every configured database and print its version'),
    ('loadscript', 'loadscript',
     "select Sledge's built-in driver (nothing to load)"),
    ('metset', 'metset [agent_hostname|agent_id] value',
     'kept for HammerDB scripts; Sledge needs no metrics agent'),
    ('metstart', 'metstart',
     'notice: every run observes the server and this host (jobs ID metrics)'),
    ('metstatus', 'metstatus',
     'notice: every run observes the server and this host (jobs ID metrics)'),
    ('metstop', 'metstop',
     'notice: no metrics agent to stop; the script goes on'),
    ('numberOfCPUs', 'numberOfCPUs',
     'the number of CPUs, as HammerDB counts them (what vuset vu vcpu uses)'),
    ('numberOfWHs', 'numberOfWHs',
     "HammerDB's warehouse count for this machine (8 a CPU, rounded up to 10s up to 100, at most 4000), said when chosen"),
    ('pipe', 'pipe ?pipeid?',
     'notice: Sledge has no CI pipeline service'),
    ('pipes', 'pipes ?pipeid?',
     'notice: Sledge has no CI pipeline service'),
    ('print', 'print [db|bm|ci|dict|generic|script|vuconf|vucreated|vustatus|vucomplete|datagen|tcconf]',
     'print the settings'),
    ('quit', 'quit',
     'leave (exit works too)'),
    ('runtimer', 'runtimer seconds',
     'returns at once: vurun returns when its run has ended'),
    ('savescript', 'savescript filename',
     'notice: no driver script to save'),
    ('steprun', 'steprun',
     'a step workload (vuset vu, rampup, duration, the replicas of config/steps.xml) as one staged run; returns "Benchmark Run jobid=ID"'),
    ('switchmode', 'switchmode [Local|Primary|Replica] ?PrimaryID? ?PrimaryHostname?',
     'notice: Sledge stays in Local mode'),
    ('tcset', 'tcset [refreshrate|logtotemp|unique|timestamps] value',
     'transaction counter settings (print tcconf)'),
    ('tcstart', 'tcstart',
     "Sledge records every run's transaction count anyway (jobs ID tcount)"),
    ('tcstatus', 'tcstatus',
     'whether tcstart was called; the count is recorded either way'),
    ('tcstop', 'tcstop',
     'the counter stops with each run'),
    ('threshold', 'threshold ?expr ...?|clear',
     "Sledge's own: pass/fail criteria judged on every later run's result (threshold {p99(new_order)<50ms})"),
    ('vucomplete', 'vucomplete',
     "true once the virtual users' run has ended"),
    ('vucreate', 'vucreate',
     'create the virtual users (vuset vu)'),
    ('vudestroy', 'vudestroy',
     'destroy the virtual users'),
    ('vurun', 'vurun',
     'run the workload; returns "Benchmark Run jobid=ID" when it has ended'),
    ('vuset', 'vuset [vu|delay|repeat|iterations|showoutput|logtotemp|unique|nobuff|timestamps] value',
     'virtual user settings (vu vcpu: one per CPU)'),
    ('vustatus', 'vustatus',
     "the virtual users' status"),
    ('waittocomplete', 'waittocomplete',
     'returns at once: vurun returns when its run has ended'),
    ('wsport', 'wsport ?port?',
     'set or show the web service port'),
    ('wsstart', 'wsstart',
     'start sledge serve on 127.0.0.1:port in the background'),
    ('wsstatus', 'wsstatus',
     'whether a web service answers on the port'),
    ('wsstop', 'wsstop',
     'stop the web service this session started'),
)

_JOBS_HELP = """jobs()                      the jobs summary tables (returned)
jobs('joblist')             the job ids (returned)
jobs('result')              the results of all jobs
jobs('timestamp')           the start times of all jobs
jobs('format', 'JSON'|'text')  the output format (JSON by default)
jobs(JOBID)                 the job's output as virtual-user rows
jobs(JOBID, 'bm'|'db'|'delete'|'dict'|'metrics'|'result'|'status'|'system'|'tcount'|'timestamp'|'timing'|VUID)
jobs(JOBID, 'timing', VUID) timings of one virtual user
jobs(JOBID, 'getchart', 'result'|'timing'|'tcount'|'metrics')   an HTML chart (returned)
jobs('profileid', ID|'all') the performance profile new runs are recorded under
jobs('profile', ID)         the runs of a profile
jobs('diff', BASE, COMP)    compare two profiles (returns the difference)
JOBID may be vurun()'s whole answer ("Benchmark Run jobid=ID")."""


def help(command=None):  # noqa: A001 - HammerDB's name
    """HammerDB's help: help() lists every command, help('vurun') gives
    one's usage. Anything but a command name goes to Python's help."""
    if command is not None and not isinstance(command, str):
        return builtins.help(command)
    out = _default._notice
    if command in ("jobs", "job"):
        return out(_JOBS_HELP)
    if command is not None:
        for name, usage, what in HELP:
            if name == command:
                return out("%s - Usage: %s\n%s" % (name, usage, what))
        return out("Error: invalid option\nUsage: help('command') with one of: %s" % " ".join(n for n, _, _ in HELP))
    lines = ["Sledge CLI: HammerDB's commands, driving Sledge's engine.",
             "Type \"help('command')\" for more details on specific commands below\n"]
    lines += ["  %-18s %s" % (name, what) for name, _, what in HELP]
    lines.append("\nAny other input is Python; vurun() returns when its run has ended.")
    out("\n".join(lines))


# The forms of HammerDB's print command.
PRINT_FORMS = ("db", "bm", "ci", "dict", "generic", "script", "vuconf", "vucreated", "vustatus", "vucomplete",
               "datagen", "tcconf")


def print(*args, **kwargs):  # noqa: A001 - HammerDB's name
    """HammerDB's print in HammerDB's Python CLI: print('vuconf') is the
    print command (one of PRINT_FORMS, alone); anything else is Python's
    print."""
    if len(args) == 1 and not kwargs and isinstance(args[0], str) and args[0] in PRINT_FORMS:
        _default.print_(args[0])
        return None
    return builtins.print(*args, **kwargs)


def script_namespace():
    """The names a `sledge cli py` script starts with, as in HammerDB's
    Python CLI: every command, tclpy, HammerDB's print and help, and the
    os and sys modules HammerDB's session has imported (its sample
    scripts use os without importing it)."""
    import os

    ns = {name: globals()[name] for name in __all__}
    ns.update(print=print, help=help, printdict=printdict, os=os, sys=sys)
    return ns


# ------------------------------------------------------------------ tclpy


# How each HammerDB command answers as a Tcl command: the Python command,
# and what the Tcl command returns (HammerDB's Tcl answers: "" for the
# commands that print, "true"/"false" for vucomplete).
def _tcl_commands():
    def printed(f):
        def call(*a):
            f(*a)
            return ""
        return call

    cmds = {name: globals()[name] for name in __all__ if name not in ("tclpy", "job", "jobs", "print_", "quit")}
    cmds.update(
        jobs=lambda *a: _default.jobs_tcl(*a), job=lambda *a: _default.jobs_tcl(*a),
        vustatus=printed(vustatus), print=printed(print_), help=printed(help),
        vucomplete=lambda: "true" if vucomplete() else "false",
        quit=lambda *a: quit(),
    )
    cmds.update(_helpers())
    return cmds


def _tcl_value(v):
    """A Python answer as Tcl sees it."""
    if v is None:
        return ""
    if isinstance(v, bool):
        return "true" if v else "false"
    if isinstance(v, (list, tuple)):
        return [_tcl_value(x) for x in v]
    return str(v)


_NEEDS_TK = ("needs Python's tkinter to run Tcl (Debian: apt-get install python3-tk); without it tclpy.eval "
             "runs one HammerDB command, e.g. tclpy.eval('vurun')")

# The Tcl side of tclpy: puts to the channels stdout and stderr writes
# through Python's sys.stdout/sys.stderr (so Tcl's and Python's output keep
# their order), other channels go to Tcl's own puts; exit (which tkinter
# removes) leaves Python.
_TCL_SETUP = r"""
namespace eval ::sledge { namespace eval py {} }
rename ::puts ::sledge::tclputs
proc ::puts {args} {
    set a $args
    set nl 1
    if {[lindex $a 0] eq "-nonewline"} { set nl 0; set a [lrange $a 1 end] }
    if {[llength $a] == 1} { set a [list stdout [lindex $a 0]] }
    if {[llength $a] == 2 && [lindex $a 0] in {stdout stderr}} {
        ::sledge::pywrite [lindex $a 0] [lindex $a 1] $nl
        return
    }
    return [::sledge::tclputs {*}$args]
}
proc ::exit {{code 0}} { ::sledge::pyexit $code; return -code error "exit $code" }
# HammerDB's pdict: a dictionary one key a line, nested ones indented.
proc ::pdict {args} {
    set max 0
    if {[llength $args] > 1 && [string is integer -strict [lindex $args 0]]} {
        set max [lindex $args 0]
        set args [lrange $args 1 end]
    }
    if {[llength $args] < 1} { puts "usage: pdict ?maxlevel? dictionaryValue ?globPattern?..."; return }
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
        if {($max == 0 || $level < $max) && [llength $v] > 1 && [llength $v] % 2 == 0 && ![catch {dict size $v}]} {
            puts "$indent[format %-*s $width $k] \{"
            ::sledge::pdict1 $v $max [expr {$level + 1}] "$indent    " [lrange $patterns 1 end]
            puts "$indent\}"
        } else {
            puts "$indent[format %-*s $width $k] = $v"
        }
    }
}
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
"""


class TclPy:
    """HammerDB's tclpy module: tclpy.eval(SCRIPT) runs Tcl and returns its
    result as a string. With Python's tkinter the script runs in a real Tcl
    interpreter (tkinter.Tcl(), no Tk) where every HammerDB command is a Tcl
    command calling this Python session, so tclpy.eval('vurun') runs a job
    and answers "Benchmark Run jobid=ID"; from then on the commands print
    through that interpreter's puts, so a script that renames puts
    (HammerDB's stdout-redirect proc) captures jobs output as in HammerDB.
    Without tkinter one HammerDB command per eval still runs (its words
    read as a Tcl list); anything else raises SledgeError."""

    def __init__(self):
        self._interp = None
        self._tried = False
        # (exception, message): a Python exception raised inside a Tcl
        # command, and the Tcl error it became.
        self._pending = None
        self.commands = _tcl_commands()

    @staticmethod
    def _make_interp():
        """tkinter.Tcl(), or None without tkinter (a test replaces this)."""
        try:
            import tkinter
            return tkinter.Tcl()
        except Exception:  # ImportError, or TclError when Tcl cannot start
            return None

    def interp(self):
        """The Tcl interpreter, created on first use; None without tkinter."""
        if not self._tried:
            self._tried = True
            t = self._make_interp()
            if t is not None:
                t.createcommand("::sledge::pywrite", self._write)
                t.createcommand("::sledge::pyexit", self._exit)
                t.eval(_TCL_SETUP)
                for name in self.commands:
                    t.createcommand("::sledge::py::" + name, self._bridge(name))
                    t.eval("proc ::%s {args} {\n"
                           "    lassign [::sledge::py::%s {*}$args] code value\n"
                           "    if {$code ne \"ok\"} { return -code error $value }\n"
                           "    return $value\n}" % (name, name))
                self._interp = t
                Session.output = self.puts
        return self._interp

    @staticmethod
    def _write(chan, text, newline):
        f = sys.stderr if chan == "stderr" else sys.stdout
        f.write(text + ("\n" if newline == "1" else ""))
        f.flush()
        return ""

    def _exit(self, code="0"):
        self._pending = (SystemExit(int(code) if str(code).lstrip("-").isdigit() else code), "exit %s" % code)
        return ""

    def _bridge(self, name):
        def call(*args):
            try:
                return ("ok", _tcl_value(self.commands[name](*args)))
            except BaseException as e:  # noqa: B902 - re-raised by eval, SystemExit included
                msg = str(e) or type(e).__name__
                self._pending = (e, msg)
                return ("error", msg)
        return call

    def puts(self, text):
        """Prints TEXT through the interpreter's puts (whatever the script
        made of it)."""
        t = self._interp
        try:
            t.call("puts", text)
        except Exception as e:
            self._reraise(e)
            raise SledgeError("tclpy: puts: %s" % e) from None

    def _reraise(self, tcl_error):
        """Raises the Python exception a Tcl command raised when it is what
        made the Tcl error (a script that caught it in Tcl goes on)."""
        pending, self._pending = self._pending, None
        if pending is not None and str(tcl_error) == pending[1]:
            raise pending[0]

    def eval(self, script):  # noqa: A003 - tclpy's name
        """Runs SCRIPT as Tcl; returns the result (a str)."""
        t = self.interp()
        if t is None:
            return self._eval_one(script)
        self._pending = None
        try:
            result = t.eval(script)
        except Exception as e:
            self._reraise(e)
            raise SledgeError("tclpy.eval: %s" % e) from None
        self._pending = None
        return result

    def _eval_one(self, script):
        words = _tcl_words(script)
        if not words:
            return ""
        if words[0] not in self.commands:
            raise SledgeError("tclpy.eval(%r): %s" % (script, _NEEDS_TK))
        return _tcl_string(_tcl_value(self.commands[words[0]](*words[1:])))


def _tcl_words(script):
    """The words of one Tcl command without substitutions, as Tcl reads a
    list ({braced}, "quoted", bare, backslash escapes); SledgeError for
    anything that needs a Tcl interpreter."""
    need = SledgeError("tclpy.eval(%r): %s" % (script, _NEEDS_TK))
    escapes = {"n": "\n", "t": "\t", "r": "\r"}
    s, i, n, words = script.strip(), 0, len(script.strip()), []
    if s.startswith("#"):
        raise need
    while i < n:
        c = s[i]
        if c in " \t":
            i += 1
            continue
        if c in "\n;":
            raise need
        word = []
        if c == "{":
            depth, i = 1, i + 1
            while i < n:
                if s[i] == "\\" and i + 1 < n:
                    word.append(s[i:i + 2])
                    i += 2
                    continue
                depth += {"{": 1, "}": -1}.get(s[i], 0)
                if depth == 0:
                    break
                word.append(s[i])
                i += 1
            if depth:
                raise need
            i += 1
        else:
            quoted = c == '"'
            i += quoted
            while i < n and (s[i] != '"' if quoted else s[i] not in " \t\n;"):
                if s[i] in "$[":
                    raise need
                if s[i] == "\\" and i + 1 < n:
                    word.append(escapes.get(s[i + 1], s[i + 1]))
                    i += 2
                    continue
                word.append(s[i])
                i += 1
            if quoted:
                if i >= n:
                    raise need
                i += 1
        if i < n and s[i] not in " \t\n;":
            raise need
        words.append("".join(word))
    return words


def _tcl_string(v):
    """A Tcl value (str, or a list of them) as Tcl's string form."""
    if not isinstance(v, list):
        return v

    def element(x):
        x = _tcl_string(x)
        if x == "":
            return "{}"
        if not re.search(r'[\s{}\[\]$"\\;]', x):
            return x
        return "{%s}" % x if x.count("{") == x.count("}") and "\\" not in x else re.sub(r'([\s{}\[\]$"\\;])', r"\\\1", x)

    return " ".join(element(x) for x in v)


tclpy = TclPy()

# Keep SledgeError reachable for `from sledge.hammerdb import SledgeError`.
SledgeError = SledgeError
