"""HammerDB's CLI commands as Python functions, on a default session.

    from sledge.hammerdb import *

    dbset('db', 'pg')
    diset('tpcc', 'pg_count_ware', 2)
    vuset('vu', 4)
    vucreate()
    jobid = vurun()
    vudestroy()
    print(jobs(jobid, 'result')[-1])    # TEST RESULT : System achieved … NOPM …

`print` is HammerDB's `print` command as print_ (Python's print is left
alone). The star import exports exactly the HammerDB commands; session(),
reset() and printdict() are here too, imported by name.
"""

import sys

from ._engine import SledgeError
from .session import Session

__all__ = [
    "dbset", "diset", "giset", "vuset", "dgset", "print_",
    "buildschema", "checkschema", "deleteschema",
    "vucreate", "vurun", "vudestroy", "vustatus", "vucomplete",
    "tcstart", "tcstop", "tcstatus", "tcset",
    "runtimer", "waittocomplete", "jobs", "librarycheck", "datagenrun",
    "numberOfCPUs", "loadscript", "quit",
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


def dbset(what, value):
    """dbset db pg|maria|mysql; dbset bm TPROC-C|TPROC-H."""
    return _default.dbset(what, value)


def diset(dict, key, value):  # noqa: A002 - HammerDB's name
    """diset connection|tpcc|tpch key value."""
    return _default.diset(dict, key, value)


def giset(dict, key, value):  # noqa: A002
    """giset dict key value (generic settings)."""
    return _default.giset(dict, key, value)


def vuset(key, value):
    """vuset vu|delay|repeat|iterations|showoutput|logtotemp|unique|nobypass|timestamps value."""
    return _default.vuset(key, value)


def dgset(key, value):
    """dgset key value (datagen settings)."""
    return _default.dgset(key, value)


def print_(what="dict", echo=True):
    """HammerDB's print: db, bm, dict, generic, vuconf, vucreated, vustatus,
    datagen, tcconf (and state: the JSON sent to the engine). Prints the text
    and returns it."""
    return _default.print_(what, echo=echo)


def printdict(*names):
    """The named dictionaries (default: connection and the benchmark's) as text."""
    return _default.printdict(*names)


def buildschema():
    return _default.buildschema()


def checkschema():
    return _default.checkschema()


def deleteschema():
    return _default.deleteschema()


def vucreate():
    return _default.vucreate()


def vurun():
    """Runs the workload (blocks until it ends); returns the job id."""
    return _default.vurun()


def vudestroy():
    return _default.vudestroy()


def vustatus():
    return _default.vustatus()


def vucomplete():
    return _default.vucomplete()


def tcstart():
    return _default.tcstart()


def tcstop():
    return _default.tcstop()


def tcstatus():
    return _default.tcstatus()


def tcset(key=None, value=None):
    return _default.tcset(key, value)


def runtimer(seconds):
    return _default.runtimer(seconds)


def waittocomplete():
    return _default.waittocomplete()


def jobs(*args):
    """HammerDB's jobs command: jobs(), jobs('joblist'), jobs(id), jobs(id, 'result'),
    jobs(id, 'timing'), jobs('format', 'text'), jobs('profileid', 1) … (see Session.jobs)."""
    return _default.jobs(*args)


def librarycheck():
    return _default.librarycheck()


def datagenrun():
    return _default.datagenrun()


def numberOfCPUs():  # noqa: N802 - HammerDB's name
    return Session.numberOfCPUs()


def loadscript(*args):
    return _default.loadscript(*args)


def quit(code=0):  # noqa: A001 - HammerDB's name
    """Leave the script (exits Python with CODE)."""
    sys.stdout.flush()
    raise SystemExit(code)


# Keep SledgeError reachable for `from sledge.hammerdb import SledgeError`.
SledgeError = SledgeError
