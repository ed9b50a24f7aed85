"""HammerDB-style session state and commands.

A Session holds what HammerDB's CLI keeps between commands (database,
benchmark, dictionaries, virtual-user and datagen settings). Commands that do
work send the whole state as JSON to `sledge cli do ACTION`; the Go engine
runs the load. Nothing here generates load.
"""

import copy
import json
import os
import re
import socket
import subprocess
import tempfile
import time
import urllib.error
import urllib.request

from ._engine import SledgeError, call, call_json, find_binary, stream

__all__ = ["Session", "ACTIONS", "JOB_SECTIONS"]

ACTIONS = ("buildschema", "checkschema", "deleteschema", "vurun", "librarycheck", "datagenrun")

# HammerDB's jobs ID sub-commands.
JOB_SECTIONS = ("status", "result", "timing", "tcount", "metrics", "system", "timestamp", "bm", "db", "dict",
                "delete", "getchart")

DB_NAMES = {"pg": "PostgreSQL", "maria": "MariaDB", "mysql": "MySQL"}
_DB_ALIASES = {
    "pg": "pg", "postgres": "pg", "postgresql": "pg",
    "maria": "maria", "mariadb": "maria",
    "mysql": "mysql",
}
# Benchmark names, matched without dashes: TPROC-C/TPROC-H and the older
# names HammerDB scripts still use.
_BM_ALIASES = {
    "tpcc": "TPROC-C", "tprocc": "TPROC-C",
    "tpch": "TPROC-H", "tproch": "TPROC-H",
}
BENCH_DICT = {"TPROC-C": "tpcc", "TPROC-H": "tpch"}
DICT_NAMES = ("connection", "tpcc", "tpch")

DEFAULT_VU = {
    "vu": "1",
    "delay": "500",
    "repeat": "500",
    "iterations": "1",
    "showoutput": "1",
    "logtotemp": "0",
    "unique": "0",
    "timestamps": "0",
    # HammerDB's No Log Buffer: job output is stored unbuffered, so it only
    # shows in print('vuconf').
    "nobuff": "0",
}
# vuset keys, in HammerDB's order.
VU_KEYS = ("vu", "delay", "repeat", "iterations", "showoutput", "logtotemp", "unique", "nobuff", "timestamps")
_VU_USAGE = "Usage: vuset [vu|delay|repeat|iterations|showoutput|logtotemp|unique|nobuff|timestamps] value"
# vuset's checks: HammerDB's label, least value and default per key; the
# 0/1 keys take booleans as well.
_VU_LIMITS = {
    "vu": ("The number of virtual users", 1, "1"), "delay": ("User Delay(ms)", 0, "500"),
    "repeat": ("Repeat Delay(ms)", 0, "500"), "iterations": ("Iterations", 1, "1"),
    "showoutput": ("Show Output", 0, "1"), "logtotemp": ("Log Output", 0, "0"),
    "unique": ("Unique Log Name", 0, "0"), "nobuff": ("No Log Buffer", 0, "0"),
    "timestamps": ("Log timestamps", 0, "0"),
}
_VU_FLAGS = ("showoutput", "logtotemp", "unique", "nobuff", "timestamps")
_VU_LABELS = (("Virtual Users", "vu"), ("User Delay(ms)", "delay"), ("Repeat Delay(ms)", "repeat"),
              ("Iterations", "iterations"), ("Show Output", "showoutput"), ("Log Output", "logtotemp"),
              ("Unique Log Name", "unique"), ("No Log Buffer", "nobuff"), ("Log Timestamps", "timestamps"))
_PRINT_USAGE = "Usage: print [db|bm|ci|dict|generic|script|vuconf|vucreated|vustatus|vucomplete|datagen|tcconf]"
_TRUE = ("1", "true", "yes", "on")
_FALSE = ("0", "false", "no", "off")
# HammerDB's answer naming a job: "Benchmark Run jobid=ID" etc.
_JOBID = re.compile(r"(?:^|\s)jobid=(\S+)$")

_JOB_LINE = re.compile(r"^SLEDGE-JOB\s+(\S+)\s+(\S+)\s*$")
_VUS_FAILED = re.compile(r"^Vuser \d+:FINISHED FAILED$")


def _s(value):
    """HammerDB values are strings; booleans as Tcl writes them."""
    if isinstance(value, bool):
        return "true" if value else "false"
    if value is None:
        return ""
    return str(value)


def _defaults(dicts):
    """{dict: {key: default}} of the key table's dictionary list, in its order."""
    return {d["dict"]: {k["key"]: k["default"] for k in d["keys"]} for d in dicts}


def _job_id(jobid):
    s = _s(jobid).strip()
    if not s:
        raise SledgeError("jobs: empty job id")
    return s


def _answer(what, job_id):
    """What HammerDB's buildschema, checkschema, deleteschema and vurun
    return: "WHAT jobid=ID", or "WHAT (No jobid)" when no job exists."""
    return "%s jobid=%s" % (what, job_id) if job_id else "%s (No jobid)" % what


def _flag(v):
    """A 0/1 setting: "1" or "0" for Tcl's booleans, None for anything else."""
    v = v.strip().lower()
    return "1" if v in _TRUE else "0" if v in _FALSE else None


def _tmpdir():
    """Where HammerDB puts its files: $TMP, else the system's."""
    for v in ("TMP", "TMPDIR"):
        d = os.environ.get(v)
        if d and os.path.isdir(d):
            return d
    return tempfile.gettempdir()


class Session:
    """One HammerDB-style session. The module-level commands in
    sledge.hammerdb use a default Session; create more for independent
    state::

        s = Session()
        s.dbset("db", "maria")
        s.diset("tpcc", "maria_count_ware", 4)
        s.vucreate()
        job = s.vurun()

    binary: the sledge executable (default $SLEDGE_BIN, else `sledge` on PATH).
    repo: a jobs repository file passed as --repo (default: the engine's).
    """

    # output, when set, prints every line the session prints (one call per
    # line or message, no newline): sledge.hammerdb's tclpy sets it to Tcl's
    # puts once a Tcl interpreter exists, so a script that renames puts
    # (HammerDB's stdout-redirect proc) captures what the commands print.
    output = None

    def __init__(self, binary=None, repo=None):
        self.binary = binary
        self.repo = repo
        self._keys = None  # HammerDB's key table, loaded once (see keys())
        self.reset()

    # ------------------------------------------------------------- state

    def reset(self):
        """Back to a fresh session: pg, TPROC-C, empty dictionaries (the engine
        fills in its defaults), default VU settings, no VUs, no job."""
        self.db = "pg"
        self.bm = "TPROC-C"
        self.dicts = {name: {} for name in DICT_NAMES}
        self.vu = dict(DEFAULT_VU)
        self.dg = {}
        self.vus_created = False
        self._vus_failed = False  # the last action's virtual users were shown finishing FAILED
        self.running = None  # the action in progress, if any
        self.job_id = None  # the last job an action reported
        self.job_status = None
        self.jobs_format = "JSON"  # jobs format JSON|text
        self.profile_id = 0  # jobs profileid N: the profile new runs are recorded under
        self.thresholds = []  # threshold EXPR: judged on every later run's result
        self.custom = None  # the file customscript named, until loadscript/clearscript
        self.tc = False  # tcstart called (Sledge records the count either way)
        self.ws = None  # the sledge serve process wsstart started

    def state(self):
        """The JSON document sent to `sledge cli do ACTION` (a deep copy)."""
        return {
            "db": self.db,
            "bm": self.bm,
            "dicts": copy.deepcopy(self.dicts),
            "vu": dict(self.vu),
            "dg": dict(self.dg),
            "profileid": self.profile_id,
            "thresholds": list(self.thresholds),
        }

    def state_json(self):
        return json.dumps(self.state(), ensure_ascii=False)

    @property
    def showoutput(self):
        return self.vu.get("showoutput", "1").strip() not in ("0", "false", "False", "")

    # ---------------------------------------------------------- settings

    def dbset(self, what, value):
        """dbset db pg|maria|mysql, dbset bm TPROC-C|TPROC-H (HammerDB's older
        names too), with HammerDB's messages. An unknown benchmark or option
        is reported and the script carries on; a database Sledge cannot
        drive raises SledgeError: carrying on would run the script's work
        against another database."""
        what = _s(what).strip().lower()
        v = _s(value).strip()
        if what == "db":
            db = _DB_ALIASES.get(v.lower())
            if db is None:
                raise SledgeError("dbset db %s: Sledge drives pg, maria and mysql" % v)
            self.db = db
            self._notice("Database set to %s" % DB_NAMES[db])
        elif what == "bm":
            bm = _BM_ALIASES.get(v.lower().replace("-", ""))
            if bm is None:
                self._notice("Unknown benchmark %s, choose one from TPROC-C TPROC-H (or HammerDB's older names for them)"
                             % v.upper())
                return
            self.bm = bm
            self._notice("Benchmark set to %s for %s" % (bm, DB_NAMES[self.db]))
        else:
            self._notice("Error: invalid option\nUsage: dbset [db|bm] value")

    def keys(self):
        """HammerDB's key table, as `sledge cli keys` prints it from Sledge's
        one table (internal/script/keys.go): {"databases": [{"db", "product",
        "prefix", "dicts": [{"dict", "keys": [{"key", "default", ...}]}]}],
        "generic": [{"dict", "keys": [...]}]}. Loaded once per session."""
        if self._keys is None:
            out = call(["cli", "keys"], binary=self.binary, repo=self.repo)
            try:
                self._keys = json.loads(out)
            except ValueError as e:
                raise SledgeError("sledge cli keys: output is not JSON: %s" % e, output=out) from e
        return self._keys

    def _db_dicts(self):
        """The current database's dictionaries: {dict: {key: default}} in HammerDB's order."""
        for d in self.keys()["databases"]:
            if d["db"] == self.db:
                return _defaults(d["dicts"])
        raise SledgeError("dbset db %s: no key table for this database" % self.db)

    def _generic_dicts(self):
        return _defaults(self.keys()["generic"])

    def _setting(self, table, name, key):
        """The session's value of a key, else HammerDB's default."""
        return self.dicts.get(name, {}).get(key, table[name][key])

    def diset(self, dict, key, value):  # noqa: A002 - HammerDB's name
        """diset connection|tpcc|tpch KEY VALUE: a key of the current
        database's dictionaries (e.g. diset tpcc pg_count_ware 4), stored as
        a string. As in HammerDB an unknown dictionary or key, a value equal
        to the current one or a driver other than test or timed is reported
        and changes nothing; the script carries on."""
        rdbms = DB_NAMES[self.db]
        table = self._db_dicts()
        # HammerDB's Python commands join their arguments into one line of
        # Tcl, so spaces around a word are lost (its own samples write
        # diset(' tpch', ...)).
        name, key, value = _s(dict).strip(), _s(key).strip(), _s(value).strip()
        if name not in table:
            self._notice('Usage: diset dict key value\nDictionary "%s" for %s does not exist\n'
                         'Type "print dict" for valid dictionaries and keys for %s' % (name, rdbms, rdbms))
            return
        if key not in table[name]:
            found = [n for n, keys in table.items() if key in keys]
            where = ('is in the "%s" dictionary' % found[0]) if found else ("cannot be found in any %s dictionary" % rdbms)
            self._notice('Dictionary "%s" for %s exists but key "%s" doesn\'t, key "%s" %s\n'
                         'Type "print dict" for valid dictionaries and keys for %s' % (name, rdbms, key, key, where, rdbms))
            return
        previous = self._setting(table, name, key)
        if previous == value:
            self._notice("Value %s for %s:%s is the same as existing value %s, no change made" % (value, name, key, previous))
            return
        if key.endswith("driver") and value not in ("test", "timed"):
            self._notice('Error: Driver script must be either "test" or "timed"')
            return
        self.dicts.setdefault(name, {})[key] = value
        self._notice("Changed %s:%s from %s to %s for %s" % (name, key, previous, value, rdbms))

    def giset(self, dict, key, value):  # noqa: A002
        """giset DICT KEY VALUE: a key of HammerDB's generic dictionaries
        (e.g. giset commandline keepalive_margin 5), with HammerDB's checks
        and messages; kept in dicts[DICT]."""
        table = self._generic_dicts()
        name, key, value = _s(dict).strip(), _s(key).strip(), _s(value).strip()  # as diset
        if name not in table:
            self._notice('Usage: giset dict key value\nType "print generic" for valid dictionaries and keys')
            return
        if key not in table[name]:
            self._notice('Dictionary "%s" exists but key "%s" doesn\'t\n'
                         'Type "print generic" for valid dictionaries and keys' % (name, key))
            return
        previous = self._setting(table, name, key)
        if previous == value:
            self._notice("Value %s for %s:%s is the same as existing value %s, no change made" % (value, name, key, previous))
            return
        self.dicts.setdefault(name, {})[key] = value
        self._notice("Changed %s:%s from %s to %s for generic" % (name, key, previous, value))

    def vuset(self, key=None, value=None):
        """vuset vu|delay|repeat|iterations|showoutput|logtotemp|unique|nobuff|timestamps VALUE,
        checked as HammerDB does: a refused value is reported, set to
        HammerDB's default, and the script carries on. vuset('vu', 'vcpu')
        is one VU per CPU; the 0/1 settings take booleans too (True,
        'true', 'on' ... mean 1)."""
        if key is None or value is None:
            self._notice(_VU_USAGE)
            return
        key = _s(key).strip()
        if key not in VU_KEYS:
            self._notice("Error: invalid option\n" + _VU_USAGE)
            return
        if self.vus_created:
            self._notice("Error: Virtual Users exist, destroy with vudestroy before changing settings")
            return
        label, least, default = _VU_LIMITS[key]
        v = _s(value).strip()
        if key == "vu" and v == "vcpu":
            v = str(self.numberOfCPUs())
        bad = None
        if key in _VU_FLAGS:
            v = _flag(v)
            if v is None:
                bad = "%s must be 0 or 1" % label
        elif not re.fullmatch(r"[+-]?\d+", v):
            bad = "%s must be an integer" % label
        elif int(v) < least:
            bad = "%s must be %d or greater" % (label, least)
        else:
            v = str(int(v))
        if bad:
            self._notice("%s\nsetting to value: %s" % (bad, default))
            v = default
        self.vu[key] = v

    def dgset(self, key=None, value=None):
        """dgset vu|warehouse|scale_fact|directory VALUE (Sledge's names
        virtual_users and warehouses too), with HammerDB's checks and
        messages; a refused value is reported and the script carries on."""
        usage = "Usage: dgset [vu|scale_fact|warehouse|directory]"
        if key is None or value is None:
            self._notice("dgset - " + usage)
            return
        names = {"vu": "virtual_users", "virtual_users": "virtual_users", "warehouse": "warehouses",
                 "warehouses": "warehouses", "scale_fact": "scale_fact", "directory": "directory"}
        key = names.get(_s(key).strip())
        if key is None:
            self._notice("Error: invalid option\n" + usage)
            return
        v = _s(value).strip()
        if key == "virtual_users":
            if not v.isdigit() or not 1 <= int(v) <= 1024:
                self._notice("The number of virtual users must be a positive integer less than 1024")
                return
            wh = self.dg.get("warehouses", "1")
            if self.bm == "TPROC-C" and int(v) > int(wh):
                self._notice("Error:Build virtual users must be less than or equal to number of warehouses\n"
                             "You have %s virtual users building %s warehouses" % (v, wh))
                self.dg["virtual_users"] = wh
                return
            self._notice("Set virtual users to %s for data generation" % v)
        elif key == "warehouses":
            if not v.isdigit() or not 1 <= int(v) <= 100000:
                self._notice("The number of warehouses must be a positive integer less than or equal to 100000")
                return
        elif key == "scale_fact":
            valid = ("1", "10", "30", "100", "300", "1000", "3000", "10000", "30000", "100000")
            if v not in valid:
                self._notice("Error: Scale Factor must be a value in %s" % " ".join(valid))
                return
        elif not os.path.isdir(v) or not os.access(v, os.W_OK):
            self._notice("Files cannot be written to chosen directory you must create %s before generating data\n"
                         "Setting back to %s" % (v, self.dg.get("directory", os.path.join(_tmpdir(), "sledge-datagen"))))
            return
        self.dg[key] = v

    # ----------------------------------------------------------- printing

    @staticmethod
    def _fmt_dict(name, d, width=None):
        """One dictionary in HammerDB's print layout: the name padded to
        width, " {", the keys padded to the longest, "}"."""
        if not d:
            return "%s {\n (engine defaults)\n}" % name
        kw = max(len(k) for k in d)
        lines = ["%-*s {" % (width or len(name), name)]
        lines += [" %-*s = %s" % (kw, k, v) for k, v in d.items()]
        return "\n".join(lines + ["}"])

    def _fmt_dicts(self, table, names):
        width = max(len(n) for n in names)
        return "\n".join(self._fmt_dict(n, {k: self._setting(table, n, k) for k in table[n]}, width) for n in names)

    def printdict(self, *names):
        """The named dictionaries of the current database as HammerDB prints
        them, every key with its value or default (default: connection and
        the benchmark's dictionary, as HammerDB's print dict)."""
        table = self._db_dicts()
        names = names or ("connection", BENCH_DICT[self.bm])
        for n in names:
            if n not in table:
                raise SledgeError("printdict: no dictionary %s" % n)
        return "Dictionary Settings for %s\n%s" % (DB_NAMES[self.db], self._fmt_dicts(table, names))

    def print_text(self, what="dict"):
        """HammerDB's `print WHAT` as text: db, bm, dict, generic, vuconf,
        vucreated, vustatus, datagen, tcconf, state (the JSON sent)."""
        what = _s(what).strip()
        if what == "db":
            return "Database %s set.\nTo change do: dbset db prefix, one of:\nPostgreSQL = pg MariaDB = maria MySQL = mysql" % (
                DB_NAMES[self.db])
        if what == "ci":
            return "CI Dictionary Settings\nNo CI configuration loaded"
        if what == "bm":
            return "Benchmark set to %s" % self.bm
        if what == "dict":
            return self.printdict()
        if what == "generic":
            table = self._generic_dicts()
            return "Generic Dictionary Settings\n" + self._fmt_dicts(table, list(table))
        if what == "vuconf":
            return "\n".join("%s = %s" % (label, self.vu.get(k, "0")) for label, k in _VU_LABELS)
        if what == "vucreated":
            return "%s Virtual Users created" % (self.vu["vu"] if self.vus_created else "0")
        if what == "vustatus":
            return self.vustatus_text()
        if what == "vucomplete":
            return "true" if self.vucomplete() else "false"
        if what == "script":
            if self.custom:
                return "Notice: print script: %s was named by customscript; Sledge cannot run driver scripts" % self.custom
            return "Notice: print script: Sledge runs its own %s driver, built in: there is no driver script to print" % self.bm
        if what == "datagen":
            dg = self.dg
            size = ("%s warehouses" % dg.get("warehouses", "1") if self.bm == "TPROC-C"
                    else "%s scale factor" % dg.get("scale_fact", "1"))
            return "Data Generation set to build a %s schema for %s with %s with %s virtual users in %s" % (
                self.bm, DB_NAMES[self.db], size, dg.get("virtual_users", "1"),
                dg.get("directory", os.path.join(_tmpdir(), "sledge-datagen")))
        if what == "tcconf":
            table = self._generic_dicts()["transaction_counter"]
            width = max(len(k) for k in table)
            return "\n".join("%-*s = %s" % (width, k, self._generic("transaction_counter", k)) for k in table)
        if what == "state":
            return json.dumps(self.state(), indent=2, ensure_ascii=False)
        return None

    def print_(self, what=None, echo=True):
        """HammerDB's print WHAT: prints the text (unless echo=False) and
        returns it; an unknown form prints HammerDB's usage and returns None."""
        text = self.print_text(what) if what is not None else None
        if text is None:
            self._notice(("" if what is None else "Error: invalid option\n") + _PRINT_USAGE)
            return None
        if echo:
            self._notice(text)
        return text

    # ---------------------------------------------------- virtual users

    def vucreate(self):
        """Create the virtual users (the engine starts them when a run
        starts). If they exist already, HammerDB's error is printed."""
        if self.vus_created:
            self._notice("Error: Virtual Users exist, destroy with vudestroy before creating")
            return
        self.vus_created = True
        self.job_status = None
        self._notice("%s Virtual Users Created" % self.vu["vu"])

    def vudestroy(self):
        if self.running:
            raise SledgeError("vudestroy: a run is in progress")
        if not self.vus_created:
            self._notice("No Virtual Users found to destroy")
            return
        self.vus_created = False
        self.job_status = None
        self._notice("vudestroy success")

    def vustatus_text(self):
        """HammerDB's status: one line per VU, or "No Virtual Users found"."""
        if not self.vus_created:
            return "No Virtual Users found"
        if self.running == "vurun":
            state = "RUNNING"
        elif self.job_status is None:
            state = "WAIT IDLE"
        elif self.job_status in ("completed", "degraded"):  # degraded: completed despite faults
            state = "FINISH SUCCESS"
        else:
            state = "FINISH FAILED"
        try:
            n = int(self.vu.get("vu", "1"))
        except ValueError:
            n = 1
        return "\n".join("%d = %s" % (i, state) for i in range(1, n + 1))

    def vustatus(self):
        """Prints the status as HammerDB does (one "N = STATE" line per VU)
        and returns it."""
        text = self.vustatus_text()
        self._notice(text)
        return text

    def vucomplete(self):
        """True once the virtual users' run has ended (vurun returns when it
        has); False before a run and after vudestroy, as in HammerDB."""
        return self.vus_created and self.running != "vurun" and self.job_status is not None

    # ------------------------------------------------------------ actions

    def _do(self, action):
        """Runs `sledge cli do ACTION` and returns (job id, status), both
        None when no job was created. Like HammerDB it never raises for a
        failed action: the engine's "Error: ..." lines are printed (also with
        showoutput 0), or one here when the engine printed none."""
        if self.running:
            raise SledgeError("%s: %s is in progress" % (action, self.running))
        found = {"errors": 0, "vus_failed": False}
        show = self.showoutput

        def on_line(line):
            m = _JOB_LINE.match(line)
            if m:
                found["id"], found["status"] = m.group(1), m.group(2)
                return
            if _VUS_FAILED.match(line):
                found["vus_failed"] = True
            error = line.startswith(("Error:", "Error in Virtual User "))
            if error:
                found["errors"] += 1
            if show or error or line.startswith("Notice:"):
                self._notice(line)

        self.running = action
        try:
            rc, _lines, tail = stream(
                ["cli", "do", action],
                binary=self.binary,
                repo=self.repo,
                stdin=self.state_json(),
                echo=False,
                on_line=on_line,
            )
        finally:
            self.running = None
        job_id, status = found.get("id"), found.get("status")
        if job_id == "0":
            job_id = None
        if job_id is not None:
            self.job_id, self.job_status = job_id, status
        elif action == "vurun":
            self.job_status = "failed"
        if rc != 0 and not found["errors"]:
            self._notice("Error: %s failed (%s)" % (action, status or "exit status %d" % rc))
        self._vus_failed = found["vus_failed"]
        return job_id, status

    def _schema(self, action, what, verb):
        if self.vus_created:
            self._notice("Error: Cannot %s schema with Virtual Users active, destroy Virtual Users first" % verb)
            return None
        job_id, status = self._do(action)
        if self._vus_failed:
            # Its virtual users were shown finishing FAILED: the script stops
            # here (HammerDB's would carry on to its "SCHEMA BUILD COMPLETED").
            raise SledgeError("%s: %s ended %s: the script stops here" % (action, _answer(what, job_id), status.upper()),
                              job_id=job_id)
        return _answer(what, job_id)

    def buildschema(self):
        """Build the schema of the current benchmark (diset ... count_ware,
        num_vu etc.). Returns HammerDB's "Schema Build jobid=ID" ("Schema
        Build (No jobid)" when no job was created). A build whose virtual
        users finished FAILED raises SledgeError after their lines (the
        script stops); other failures (settings refused, a server not
        reached) print their errors and the script carries on."""
        return self._schema("buildschema", "Schema Build", "build")

    def checkschema(self):
        """Returns "Schema Check jobid=ID", as buildschema."""
        return self._schema("checkschema", "Schema Check", "check")

    def deleteschema(self):
        """Returns "Schema Delete jobid=ID", as buildschema."""
        return self._schema("deleteschema", "Schema Delete", "delete")

    def librarycheck(self):
        self._do("librarycheck")

    def datagenrun(self):
        self._do("datagenrun")

    def vurun(self):
        """Run the workload; blocks until the run ends. Returns HammerDB's
        "Benchmark Run jobid=ID" (jobs() takes it whole as the id; the bare
        id is session().job_id), "Benchmark Run (No jobid)" when no job was
        created. Creates the virtual users first if there are none, as
        HammerDB does. A failed run is still a job: its errors are printed
        and its answer returned."""
        if self.custom:
            self._notice("Error: vurun: the script loaded is %s (customscript): Sledge cannot run HammerDB driver "
                         "scripts; loadscript selects Sledge's built-in %s driver" % (self.custom, self.bm))
            return _answer("Benchmark Run", None)
        if not self.vus_created:
            self.vucreate()
        job_id, _status = self._do("vurun")
        return _answer("Benchmark Run", job_id)

    # --------------------------------------------------------------- jobs

    def _jobs_call(self, args):
        """`sledge cli jobs` for ARGS: (what it prints, what it returns, the
        session changed). A first argument ending "jobid=ID" (vurun's answer)
        is the id."""
        args = [_s(a) for a in args]
        if args:
            m = _JOBID.search(args[0])
            if m:
                args[0] = m.group(1)
        argv = ["cli", "jobs", "--format", self.jobs_format, "--profileid", str(self.profile_id), "--"] + args
        out = call(argv, binary=self.binary, repo=self.repo)
        printed, sep, rest = out.partition("\x1e\n")
        if not sep:
            raise SledgeError("jobs: unexpected answer from sledge:\n" + out[-2000:], output=out)
        session, _, returned = rest.partition("\n")
        fmt, _, pid = session.partition(" ")
        changed = (fmt, pid) != (self.jobs_format, str(self.profile_id))
        self.jobs_format, self.profile_id = fmt, int(pid or 0)
        return printed.rstrip("\n"), returned, changed

    def jobs(self, *args):
        """HammerDB's jobs command, with HammerDB's sub-commands and shapes.
        As in HammerDB it prints its answer (through Tcl's puts once tclpy
        has a Tcl interpreter); an error (a job id that does not exist, a
        wrong sub-command) is printed and the script carries on. It also
        returns the answer, parsed:

        jobs()                      -> the summary tables (str)
        jobs('joblist')             -> job ids (list of str)
        jobs('result'), jobs('timestamp')
        jobs(ID), jobs(ID, 'status'|'result'|'timing'|'tcount'|'metrics'|
             'system'|'timestamp'|'bm'|'db'|'dict'|VUID), jobs(ID, 'timing', VUID)
                                    -> HammerDB's JSON, parsed (lists, dicts of
                                       str); with jobs('format', 'text'): the
                                       text HammerDB prints (str)
        jobs(ID, 'delete')          -> None (prints "Deleted Jobid ID")
        jobs(ID, 'getchart', TYPE)  -> an HTML page (str)
        jobs('format', 'JSON'|'text'), jobs('profileid', N) -> None (session)
        jobs('profileid', 'all'), jobs('profile', N)  -> parsed JSON
        jobs('diff', BASE, COMP)    -> the relative difference (str, e.g. '+0.05')
        an error                    -> None

        ID may be vurun()'s whole answer ("Benchmark Run jobid=ID").
        """
        text, returned, changed = self._jobs_call(args)
        if text:
            self._notice(text)
        joblist = bool(args) and _s(args[0]).lower() == "joblist"
        if returned:
            return returned.split() if joblist else returned
        first = text.split("\n", 1)[0]
        if joblist or changed or not text or (len(args) == 2 and _s(args[1]) == "delete") or \
                first.startswith(("Error:", "Jobs Two Parameter Usage", "Notice:", "Performance profile id", "No ",
                                  "Jobs output format")) or (first.startswith("Jobid ") and "does not exist" in first):
            return [] if joblist else None
        if self.jobs_format == "JSON" and text[:1] in "[{":
            try:
                return json.loads(text)
            except ValueError:
                pass
        return text

    def jobs_tcl(self, *args):
        """jobs as a Tcl command (tclpy): prints the answer and returns what
        HammerDB's Tcl jobs returns ("" but for the summary, joblist,
        getchart and diff)."""
        text, returned, _ = self._jobs_call(args)
        if text:
            self._notice(text)
        return returned

    # --------------------------------------------------------------- output

    def _notice(self, text):
        """Prints one message (possibly several lines) as HammerDB's puts
        would: through Session.output when set, else to stdout."""
        out = Session.output
        if out is not None:
            out(text)
        else:
            print(text, flush=True)

    def _generic(self, name, key):
        """A key of HammerDB's generic dictionaries: the session's value,
        else HammerDB's default."""
        return self._setting(self._generic_dicts(), name, key)

    # ------------------------------------------------------- scripts, modes

    def loadscript(self, *args):
        self.custom = None
        self._notice("Notice: loadscript: Sledge's %s driver is built in; nothing to load" % self.bm)

    def clearscript(self):
        self.custom = None
        self._notice("Script cleared")

    def customscript(self, path=None):
        """HammerDB loads a driver script to run as the workload. Sledge
        cannot run one, and measuring its own driver under the custom
        script's name would mislead: vurun runs nothing (prints an error,
        returns "Benchmark Run (No jobid)") until loadscript or clearscript."""
        p = _s(path)
        if path is None or not os.path.isfile(p) or not p.endswith(".tcl"):
            self._notice("Usage: customscript scriptname.tcl")
            return
        self.custom = p
        self._notice("Notice: customscript %s: Sledge cannot run HammerDB driver scripts; vurun runs nothing until "
                     "loadscript or clearscript selects Sledge's built-in %s driver" % (p, self.bm))

    def custommonitor(self, mode=None):
        if _s(mode) not in ("test", "timed"):
            self._notice("Usage: custommonitor test|timed")
            return
        self._notice("Notice: custommonitor %s: Sledge cannot run custom scripts, so there is no monitor virtual "
                     "user to add" % _s(mode))

    def savescript(self, path=None):
        if path is None:
            self._notice("Usage: savescript filename")
            return
        self._notice("Notice: savescript %s: Sledge's drivers are built into the engine; there is no driver script "
                     "to save (nothing written)" % _s(path))

    def distributescript(self):
        self._notice("Notice: distributescript: Sledge runs in Local mode only (no Primary/Replica); there is nothing "
                     "to distribute")

    def switchmode(self, mode="current", *args):
        """Sledge has no Primary/Replica multi-client mode yet: it stays in
        Local mode and says so."""
        m = _s(mode).lower()
        if m in ("", "current"):
            self._notice("Mode currently set to Local")
        elif m == "local":
            self._notice("Already in Local mode")
        elif m in ("primary", "replica"):
            self._notice("Notice: switchmode %s: Sledge has no Primary/Replica multi-client mode yet; staying in "
                         "Local mode (runs use this machine's virtual users)" % _s(mode))
        else:
            self._notice("Error:Mode to switch to must be one of Local, Primary or Replica")

    def steprun(self):
        """HammerDB's step workload as one staged run: the primary's virtual
        users (vuset vu, rampup, duration) with the replicas of steps.xml
        ($SLEDGE_HAMMERDB_CONFIG, else ./config; HammerDB's default steps
        when there is none) joining and leaving as the run's stages. Blocks
        until the run ends and returns vurun's answer, "Benchmark Run
        jobid=ID" ("(No jobid)" when nothing ran: a replica overrunning the
        primary is refused). Like HammerDB's it runs the built-in driver and
        destroys the virtual users when done."""
        if self.bm != "TPROC-C":
            self._notice("Error: Step Workload does not support %s" % self.bm)
            return None
        job_id, _status = self._do("steprun")
        if job_id is not None:
            self.custom = None
            self.vus_created = False
            self.job_status = None
        return _answer("Benchmark Run", job_id)

    def runtimer(self, *args):
        """HammerDB's runtimer waited until the run completed or SECONDS
        passed; vurun returns when its run has ended, so this returns at
        once. A value that is not seconds is reported, not raised (HammerDB
        6 ignores it)."""
        try:
            ok = len(args) == 1 and float(args[0]) >= 0
        except (TypeError, ValueError):
            ok = False
        if not ok:
            self._notice("Notice: runtimer %s: want seconds; ignored (vurun returns when its run has ended)"
                         % " ".join(_s(a) for a in args))

    def waittocomplete(self, *args):
        """Returns at once: vurun returns when its run has ended."""
        return None

    @staticmethod
    def numberOfCPUs():  # noqa: N802 - HammerDB's name
        """The machine's CPUs as HammerDB counts them: the processors
        /proc/cpuinfo lists (every one, whatever this process may use),
        elsewhere the system's count (what vuset('vu', 'vcpu') takes)."""
        try:
            with open("/proc/cpuinfo", encoding="utf-8", errors="replace") as f:
                n = len(re.findall(r"(?m)^processor\s", f.read()))
            if n > 0:
                return n
        except OSError:
            pass
        return os.cpu_count() or 1

    # HammerDB's most warehouses numberOfWHs chooses (lowered only in its CI
    # configuration, which Sledge does not have).
    WAREHOUSE_LIMIT = 4000

    @staticmethod
    def warehouses(cpus, limit=WAREHOUSE_LIMIT):
        """HammerDB's schema size for a machine of CPUS CPUs: 8 warehouses a
        CPU, rounded up to a multiple of 10 while that is 100 or fewer, at
        most LIMIT."""
        wh = cpus * 8
        if wh <= 100:
            wh = (wh + 9) // 10 * 10
        return min(wh, limit)

    def numberOfWHs(self):  # noqa: N802 - HammerDB's name
        """HammerDB's warehouse count for this machine; says what it chose."""
        cpus = self.numberOfCPUs()
        wh = self.warehouses(cpus)
        self._notice("numberOfWHs: %d warehouses for %d CPUs (HammerDB's sizing: 8 a CPU, rounded up to a multiple "
                     "of 10 up to 100, at most %d)" % (wh, cpus, self.WAREHOUSE_LIMIT))
        return wh

    # ------------------------------------------------- transaction counter

    def tcstart(self):
        """Sledge records every run's transaction count (jobs ID tcount)
        whether or not tcstart was called; tcstart/tcstop only change what
        tcstatus reports."""
        if self.tc:
            self._notice("Transaction Counter thread already running")
            return
        self.tc = True
        self._notice("Notice: tcstart: Sledge records the transaction count of every run (jobs ID tcount); no "
                     "counter thread to start")

    def tcstop(self):
        if not self.tc:
            self._notice("Transaction Counter is not running")
            return
        self.tc = False
        self._notice("Stopping Transaction Counter")

    def tcstatus(self):
        if self.tc:
            self._notice("Transaction Counter thread running (Sledge records it with every run: jobs ID tcount)")
        else:
            self._notice("Transaction Counter is not running (Sledge records it with every run anyway: jobs ID tcount)")

    def threshold(self, *exprs):
        """Sledge's own command (HammerDB has none): pass/fail criteria
        judged on the result of every later run, as sledge run --threshold;
        each is printed with its verdict under the result and stored with
        the job. threshold(EXPR, ...) adds them, threshold('clear') removes
        them all, threshold() lists them. The engine reads them at vurun,
        refusing a bad one."""
        exprs = [_s(e) for e in exprs]
        if not exprs:
            self._notice("\n".join("Threshold: " + t for t in self.thresholds) or "No thresholds set")
            return
        if exprs == ["clear"]:
            self.thresholds = []
            self._notice("Thresholds cleared")
            return
        for t in exprs:
            self.thresholds.append(t)
            self._notice("Threshold set: " + t)

    def tcset(self, key=None, value=None):
        usage = "Usage: tcset [refreshrate|logtotemp|unique|timestamps] value"
        keys = {"refreshrate": ("tc_refresh_rate", "refresh rate"), "logtotemp": ("tc_log_to_temp", "log to temp"),
                "unique": ("tc_unique_log_name", "unique log name"), "timestamps": ("tc_log_timestamps", "timestamps")}
        if key is None or value is None:
            self._notice(usage)
            return
        if _s(key) not in keys:
            self._notice("Error: invalid option\n" + usage)
            return
        name, label = keys[_s(key)]
        v = _s(value).strip()
        if key == "refreshrate":
            if not v.isdigit() or not 0 < int(v) < 60:
                self._notice("Refresh rate must be an integer more than 0 secs and less than 60 secs")
                v = "10"
        else:
            v = _flag(v)
            if v is None:
                self._notice("%s must be 0 or 1" % label.capitalize())
                v = "0"
        self.dicts.setdefault("transaction_counter", {})[name] = v
        self._notice("Transaction Counter %s set to %s" % (label, v))
        self._notice("Notice: tcset %s: kept for print tcconf; Sledge samples the count at each run's own interval"
                     % _s(key))

    # ---------------------------------------------------------- CPU metrics

    def metset(self, key=None, value=None):
        """Kept for HammerDB scripts: Sledge needs no metrics agent."""
        usage = "Usage: metset [agent_hostname|agent_id] value"
        if key is None or value is None:
            self._notice(usage)
            return
        v = _s(value)
        if key == "agent_id":
            if not re.fullmatch(r"[+-]?\d+", v):
                self._notice("agent_id be an integer\nsetting to value: 10000")
                v = "10000"
            self._notice("Metrics agent id set to %s" % v)
        elif key == "agent_hostname":
            self._notice("Metrics agent hostname set to %s" % v)
        else:
            self._notice("Error: invalid option\n" + usage)
            return
        self.dicts.setdefault("metrics", {})[key] = v

    # Every run observes the database server and this host (unless its spec
    # says metrics off) and stores it with the job: metstart and metstop
    # only say so, and the script goes on.

    def metstart(self):
        self._notice("Notice: metstart: Sledge observes the database server and this host during every run "
                     "(wait events, server statistics, settings, CPU, memory, disk and network) and stores it "
                     "with the job (jobs ID metrics); no metrics agent to start")

    def metstatus(self):
        self._notice("Notice: metstatus: Sledge observes the database server and %s during every run "
                     "(jobs ID metrics); no metrics agent runs" % socket.gethostname())

    def metstop(self):
        self._notice("Notice: metstop: Sledge observes the database server and this host during every run "
                     "(jobs ID metrics), without a metrics agent (id: %s:%s); nothing to stop" % (
                         self._generic("metrics", "agent_hostname"), self._generic("metrics", "agent_id")))

    # ---------------------------------------------------------- web service

    def _ws_port(self):
        return self._generic("webservice", "ws_port")

    @staticmethod
    def _ws_probe(port):
        """None when something serves HTTP on 127.0.0.1:PORT, else why not."""
        try:
            urllib.request.urlopen("http://127.0.0.1:%s/api/openapi.json" % port, timeout=2).close()
        except urllib.error.HTTPError:
            return None  # it answered
        except (OSError, ValueError) as e:
            return str(getattr(e, "reason", e))
        return None

    def wsport(self, *args):
        if not args:
            self._notice("Web Service Port set to %s" % self._ws_port())
        elif len(args) == 1:
            p = _s(args[0])
            if not p.isdigit() or not 0 < int(p) < 65536:
                self._notice("Error: Web Service port should be an integer")
            else:
                self.dicts.setdefault("webservice", {})["ws_port"] = p
                self._notice("Setting Web Service port to %s" % p)
        else:
            self._notice("Error :wsport accepts none or one integer argument")

    def wsstart(self):
        """Starts `sledge serve` (which answers HammerDB's /jobs endpoints)
        on 127.0.0.1:wsport in the background; it keeps running after the
        script, as HammerDB's web service does."""
        port = self._ws_port()
        if self._ws_probe(port) is None:
            self._notice("Notice: wsstart: a web service already answers on port %s; not starting another" % port)
            return
        log = os.path.join(_tmpdir(), "sledge-ws-%s.log" % port)
        argv = [find_binary(self.binary)] + (["--repo", os.fspath(self.repo)] if self.repo else [])
        with open(log, "ab") as f:
            self.ws = subprocess.Popen(argv + ["serve", "--listen", "127.0.0.1:%s" % port], stdin=subprocess.DEVNULL,
                                       stdout=f, stderr=subprocess.STDOUT, start_new_session=True)
        for _ in range(50):
            if self._ws_probe(port) is None or self.ws.poll() is not None:
                break
            time.sleep(0.1)
        self._notice("Starting Sledge web service (sledge serve) on http://127.0.0.1:%s, pid %d, output in %s"
                     % (port, self.ws.pid, log))

    def wsstatus(self):
        port = self._ws_port()
        why = self._ws_probe(port)
        if why is None:
            self._notice("Web Service running: http://127.0.0.1:%s" % port)
        else:
            self._notice("Web Service not running: %s" % why)

    def wsstop(self):
        port = self._ws_port()
        if self.ws is not None:
            self.ws.terminate()
            try:
                self.ws.wait(timeout=10)
            except subprocess.TimeoutExpired:
                self.ws.kill()
                self.ws.wait()
            self._notice("Stopping Web Service on port %s (sledge serve, pid %d)" % (port, self.ws.pid))
            self.ws = None
            return
        why = self._ws_probe(port)
        if why is None:
            self._notice("Notice: wsstop: the web service on port %s was not started by this session; Sledge stops "
                         "only its own" % port)
        else:
            self._notice("Web Service not running: %s" % why)

    # ------------------------------------------------------------------ CI

    def noci(self, cmd):
        """HammerDB's CI pipelines (pipes, cilisten, cipush ...): Sledge has
        none; a notice, and the script carries on."""
        self._notice("Notice: %s: Sledge has no CI pipeline service (HammerDB's GitHub-webhook database builds); "
                     "nothing done" % cmd)
