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
import time

from ._engine import SledgeError, call, call_json, stream

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
}
# vuset keys HammerDB knows (nobypass is accepted and passed on).
VU_KEYS = tuple(DEFAULT_VU) + ("nobypass",)

_JOB_LINE = re.compile(r"^SLEDGE-JOB\s+(\S+)\s+(\S+)\s*$")


def _s(value):
    """HammerDB values are strings; booleans as Tcl writes them."""
    if isinstance(value, bool):
        return "true" if value else "false"
    if value is None:
        return ""
    return str(value)


def _job_id(jobid):
    s = _s(jobid).strip()
    if not s:
        raise SledgeError("jobs: empty job id")
    return s


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

    def __init__(self, binary=None, repo=None):
        self.binary = binary
        self.repo = repo
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
        self.running = None  # the action in progress, if any
        self.job_id = None  # the last job an action reported
        self.job_status = None
        self.jobs_format = "JSON"  # jobs format JSON|text
        self.profile_id = 0  # jobs profileid N: the profile new runs are recorded under

    def state(self):
        """The JSON document sent to `sledge cli do ACTION` (a deep copy)."""
        return {
            "db": self.db,
            "bm": self.bm,
            "dicts": copy.deepcopy(self.dicts),
            "vu": dict(self.vu),
            "dg": dict(self.dg),
            "profileid": self.profile_id,
        }

    def state_json(self):
        return json.dumps(self.state(), ensure_ascii=False)

    @property
    def showoutput(self):
        return self.vu.get("showoutput", "1").strip() not in ("0", "false", "False", "")

    # ---------------------------------------------------------- settings

    def dbset(self, what, value):
        """dbset db pg|maria|mysql, dbset bm TPROC-C|TPROC-H (HammerDB's older names too)."""
        what = _s(what).strip().lower()
        v = _s(value).strip()
        if what == "db":
            db = _DB_ALIASES.get(v.lower())
            if db is None:
                raise SledgeError(
                    "dbset db %s: unknown database; Sledge supports %s"
                    % (v, ", ".join("%s (%s)" % kv for kv in DB_NAMES.items()))
                )
            self.db = db
            self._notice("Database set to %s" % DB_NAMES[db])
        elif what == "bm":
            bm = _BM_ALIASES.get(v.lower().replace("-", ""))
            if bm is None:
                raise SledgeError("dbset bm %s: unknown benchmark; use TPROC-C or TPROC-H" % v)
            self.bm = bm
            self._notice("Benchmark set to %s for %s" % (bm, DB_NAMES[self.db]))
        else:
            raise SledgeError("dbset %s: usage: dbset [db|bm] value" % what)

    def diset(self, dict, key, value):  # noqa: A002 - HammerDB's name
        """diset connection|tpcc|tpch KEY VALUE: a benchmark setting (e.g.
        diset tpcc pg_count_ware 4). The value is stored as a string."""
        name = _s(dict).strip()
        if name not in DICT_NAMES:
            raise SledgeError("diset %s: no such dictionary; use one of %s" % (name, ", ".join(DICT_NAMES)))
        key = _s(key)
        if not key:
            raise SledgeError("diset %s: empty key" % name)
        self.dicts[name][key] = _s(value)
        self._notice("Changed %s:%s for %s" % (name, key, DB_NAMES[self.db]))

    def giset(self, dict, key, value):  # noqa: A002
        """giset DICT KEY VALUE: a generic setting, kept in dicts[DICT]."""
        name, key = _s(dict).strip(), _s(key)
        if not name or not key:
            raise SledgeError("giset: usage: giset dict key value")
        self.dicts.setdefault(name, {})[key] = _s(value)
        self._notice("Changed %s:%s for generic" % (name, key))

    def vuset(self, key, value):
        """vuset vu|delay|repeat|iterations|showoutput|logtotemp|unique|nobypass|timestamps VALUE.
        `vuset vu vcpu` means one VU per CPU."""
        key = _s(key).strip()
        if key not in VU_KEYS:
            raise SledgeError("vuset %s: unknown setting; use one of %s" % (key, ", ".join(VU_KEYS)))
        if self.vus_created:
            raise SledgeError("vuset: Virtual Users exist, destroy with vudestroy before changing settings")
        v = _s(value).strip()
        if key == "vu" and v.lower() == "vcpu":
            v = str(os.cpu_count() or 1)
        if key == "vu":
            try:
                if int(v) < 1:
                    raise ValueError
            except ValueError:
                raise SledgeError("vuset vu %s: the number of virtual users must be a positive integer" % v) from None
        self.vu[key] = v

    def dgset(self, key, value):
        """dgset KEY VALUE: a datagen setting (e.g. dgset directory /data, dgset scale_fact 10, dgset vu 4)."""
        key = _s(key).strip()
        if not key:
            raise SledgeError("dgset: usage: dgset key value")
        self.dg[key] = _s(value)

    # ----------------------------------------------------------- printing

    @staticmethod
    def _fmt_dict(name, d):
        if not d:
            return "%s {\n (engine defaults)\n}" % name
        width = max(len(k) for k in d)
        return "%s {\n%s\n}" % (name, "\n".join(" %-*s = %s" % (width, k, v) for k, v in d.items()))

    def printdict(self, *names):
        """The named dictionaries as text (default: connection and the
        benchmark's dictionary)."""
        names = names or ("connection", BENCH_DICT[self.bm])
        parts = ["Dictionary Settings for %s" % DB_NAMES[self.db]]
        for n in names:
            if n not in self.dicts:
                raise SledgeError("printdict: no dictionary %s" % n)
            parts.append(self._fmt_dict(n, self.dicts[n]))
        return "\n".join(parts)

    def print_text(self, what="dict"):
        """HammerDB's `print WHAT` as text: db, bm, dict, generic, vuconf,
        vucreated, vustatus, datagen, tcconf, state (the JSON sent)."""
        what = _s(what).strip()
        if what == "db":
            return "Database set to %s" % DB_NAMES[self.db]
        if what == "bm":
            return "Benchmark set to %s" % self.bm
        if what == "dict":
            return self.printdict()
        if what == "generic":
            names = [n for n in self.dicts if n not in DICT_NAMES]
            if not names:
                return "Generic Dictionary Settings\n(none set)"
            return "\n".join(["Generic Dictionary Settings"] + [self._fmt_dict(n, self.dicts[n]) for n in names])
        if what == "vuconf":
            width = max(len(k) for k in self.vu)
            return "\n".join("%-*s = %s" % (width, k, v) for k, v in self.vu.items())
        if what == "vucreated":
            return "%s Virtual Users created" % (self.vu["vu"] if self.vus_created else "0")
        if what == "vustatus":
            return self.vustatus()
        if what == "datagen":
            return self._fmt_dict("datagen", self.dg)
        if what == "tcconf":
            return "Sledge always records the transaction counter (see jobs ID tcount)"
        if what == "state":
            return json.dumps(self.state(), indent=2, ensure_ascii=False)
        raise SledgeError("print %s: use one of db, bm, dict, generic, vuconf, vucreated, vustatus, datagen, tcconf, state" % what)

    def print_(self, what="dict", echo=True):
        """print WHAT: prints the text (unless echo=False) and returns it."""
        text = self.print_text(what)
        if echo:
            print(text, flush=True)
        return text

    # ---------------------------------------------------- virtual users

    def vucreate(self):
        """Mark the virtual users as created (the engine starts them when a
        run starts). Errors if they already exist."""
        if self.vus_created:
            raise SledgeError("vucreate: Virtual Users exist, destroy with vudestroy before creating")
        self.vus_created = True
        self.job_status = None
        self._notice("%s Virtual Users Created" % self.vu["vu"])

    def vudestroy(self):
        if self.running:
            raise SledgeError("vudestroy: a run is in progress")
        if not self.vus_created:
            self._notice("No Virtual Users found")
            return
        self.vus_created = False
        self.job_status = None
        self._notice("vudestroy success")

    def vustatus(self):
        """HammerDB-style status: one line per VU, or "No Virtual Users found"."""
        if not self.vus_created:
            return "No Virtual Users found"
        if self.running == "vurun":
            state = "RUNNING"
        elif self.job_status is None:
            state = "WAIT IDLE"
        elif self.job_status == "completed":
            state = "FINISH SUCCESS"
        else:
            state = "FINISH FAILED"
        try:
            n = int(self.vu.get("vu", "1"))
        except ValueError:
            n = 1
        return "\n".join("%d = %s" % (i, state) for i in range(1, n + 1))

    def vucomplete(self):
        """True when no run is in progress (runs are synchronous, so always
        True between commands)."""
        return self.running != "vurun"

    # ------------------------------------------------------------ actions

    def _do(self, action):
        if self.running:
            raise SledgeError("%s: %s is in progress" % (action, self.running))
        found = {}

        def on_line(line):
            m = _JOB_LINE.match(line)
            if m:
                found["id"], found["status"] = m.group(1), m.group(2)

        self.running = action
        try:
            rc, _lines, tail = stream(
                ["cli", "do", action],
                binary=self.binary,
                repo=self.repo,
                stdin=self.state_json(),
                echo=self.showoutput,
                on_line=on_line,
            )
        finally:
            self.running = None
        job_id, status = found.get("id"), found.get("status")
        if job_id is not None:
            self.job_id, self.job_status = job_id, status
        elif action == "vurun":
            self.job_status = "failed"
        if rc != 0:
            msg = "%s failed (exit status %d)" % (action, rc)
            if job_id is not None:
                msg += ": job %s %s" % (job_id, status)
            text = "\n".join(tail).rstrip()
            if text:
                msg += "\n" + text
            raise SledgeError(msg, returncode=rc, output=text, job_id=job_id)
        return job_id, status

    def buildschema(self):
        """Build the schema of the current benchmark (diset ... count_ware,
        num_vu etc.). Returns the job id if the engine reports one."""
        return self._do("buildschema")[0]

    def checkschema(self):
        return self._do("checkschema")[0]

    def deleteschema(self):
        return self._do("deleteschema")[0]

    def librarycheck(self):
        return self._do("librarycheck")[0]

    def datagenrun(self):
        return self._do("datagenrun")[0]

    def vurun(self):
        """Run the workload with the created virtual users; blocks until the
        run ends. Returns the job id (a str) and makes it the current job."""
        if not self.vus_created:
            raise SledgeError("vurun: no Virtual Users found: create them with vucreate first")
        job_id, _status = self._do("vurun")
        if job_id is None:
            raise SledgeError("vurun: the engine did not report a job (no SLEDGE-JOB line)")
        return job_id

    # --------------------------------------------------------------- jobs

    def jobs(self, *args):
        """HammerDB's jobs command, with HammerDB's sub-commands and shapes.

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

        A job id that does not exist or a wrong sub-command raises SledgeError
        with HammerDB's message.
        """
        argv = ["cli", "jobs", "--format", self.jobs_format, "--profileid", str(self.profile_id), "--"]
        argv += [_s(a) for a in args]
        out = call(argv, binary=self.binary, repo=self.repo)
        printed, sep, rest = out.partition("\x1e\n")
        if not sep:
            raise SledgeError("jobs: unexpected answer from sledge:\n" + out[-2000:], output=out)
        session, _, returned = rest.partition("\n")
        fmt, _, pid = session.partition(" ")
        changed = (fmt, pid) != (self.jobs_format, str(self.profile_id))
        self.jobs_format, self.profile_id = fmt, int(pid or 0)
        text = printed.rstrip("\n")
        first = text.split("\n", 1)[0]
        if first.startswith("Error:") or first.startswith("Jobs Two Parameter Usage") or (
                first.startswith("Jobid ") and ("does not exist" in first)):
            raise SledgeError("jobs %s: %s" % (" ".join(_s(a) for a in args), text), output=out)
        if returned:
            if text:
                print(text, flush=True)
            return returned.split() if args and _s(args[0]).lower() == "joblist" else returned
        if args and _s(args[0]).lower() == "joblist":
            return []
        if changed or not text or (len(args) == 2 and _s(args[1]) == "delete"):
            if text:
                self._notice(text)
            return None
        if self.jobs_format == "JSON" and text[:1] in "[{":
            try:
                return json.loads(text)
            except ValueError:
                pass
        if text.startswith("Notice:") or text.startswith("Performance profile id") or \
                text.startswith("No ") or text.startswith("Jobs output format"):
            self._notice(text)
            return None
        return text

    # ---------------------------------------------------------- no-ops etc

    @staticmethod
    def _notice(text):
        print(text, flush=True)

    def tcstart(self):
        self._notice("tcstart: Sledge always records the transaction counter (see jobs ID tcount)")

    def tcstop(self):
        self._notice("tcstop: Sledge always records the transaction counter (see jobs ID tcount)")

    def tcstatus(self):
        self._notice("tcstatus: Sledge always records the transaction counter (see jobs ID tcount)")

    def tcset(self, key=None, value=None):
        self._notice("tcset %s: ignored; Sledge always records the transaction counter" % _s(key))

    def runtimer(self, seconds):
        """HammerDB's runtimer waits until the run completes or SECONDS pass.
        Runs are synchronous here (vurun returns when the job has ended), so
        it returns at once; the argument is still checked."""
        try:
            s = float(seconds)
        except (TypeError, ValueError):
            raise SledgeError("runtimer %s: seconds must be a number" % _s(seconds)) from None
        if s < 0:
            raise SledgeError("runtimer %s: seconds must not be negative" % _s(seconds))
        return s

    def waittocomplete(self):
        """Returns at once: vurun blocks until its run ends."""
        return None

    @staticmethod
    def numberOfCPUs():  # noqa: N802 - HammerDB's name
        return os.cpu_count() or 1

    def loadscript(self, *args):
        self._notice("loadscript: not needed; Sledge runs its built-in %s driver" % self.bm)
