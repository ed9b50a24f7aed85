import json
import os
import re
import socket
import stat
import sys
import textwrap

import pytest

HERE = os.path.dirname(os.path.abspath(__file__))
sys.path.insert(0, os.path.dirname(HERE))  # the package, without installing it

FAKE = textwrap.dedent(
    """\
    #!{python}
    # A fake sledge: records argv and stdin, answers from rules.json.
    import json, os, sys
    d = os.path.dirname(os.path.abspath(__file__))
    argv = sys.argv[1:]
    data = sys.stdin.read() if not sys.stdin.isatty() else ""
    with open(os.path.join(d, "calls.jsonl"), "a", encoding="utf-8") as f:
        f.write(json.dumps({{"argv": argv, "stdin": data}}) + "\\n")
    args = argv[2:] if argv[:1] == ["--repo"] else argv
    with open(os.path.join(d, "rules.json"), encoding="utf-8") as f:
        rules = json.load(f)
    for i, r in enumerate(rules):
        if args[: len(r["match"])] == r["match"]:
            cf = os.path.join(d, "count.%d" % i)
            n = int(open(cf).read()) + 1 if os.path.exists(cf) else 1
            open(cf, "w").write(str(n))
            out = r.get("stdout", "")
            if isinstance(out, list):
                out = out[min(n, len(out)) - 1]
            sys.stdout.write(out.replace("{{n}}", str(n)))
            sys.stdout.flush()
            sys.stderr.write(r.get("stderr", ""))
            sys.exit(r.get("rc", 0))
    sys.stderr.write("fake sledge: no rule for %r\\n" % (args,))
    sys.exit(2)
    """
)


# A small key table in the shape `sledge cli keys` prints (the real one is
# Go's, internal/script/keys.go; cmd/sledge/cli_keys_test.go runs the Python
# front end against it).
def _keys_dicts(spec):
    return [{"dict": d, "keys": [{"key": k, "default": v, "treatment": "maps", "sledge": ""} for k, v in kv]}
            for d, kv in spec]


KEYS = {
    "databases": [
        {"db": "pg", "product": "PostgreSQL", "prefix": "pg_", "dicts": _keys_dicts([
            ("connection", [("pg_host", "localhost"), ("pg_port", "5432"), ("pg_sslmode", "prefer")]),
            ("tpcc", [("pg_count_ware", "1"), ("pg_user", "tpcc"), ("pg_pass", "tpcc"), ("pg_dbase", "tpcc"),
                      ("pg_driver", "timed"), ("pg_rampup", "2")]),
            ("tpch", [("pg_scale_fact", "1"), ("pg_tpch_dbase", "tpch")]),
        ])},
        {"db": "maria", "product": "MariaDB", "prefix": "maria_", "dicts": _keys_dicts([
            ("connection", [("maria_host", "127.0.0.1"), ("maria_port", "3306")]),
            ("tpcc", [("maria_count_ware", "1"), ("maria_pass", "maria"), ("maria_no_stored_procs", "false")]),
            ("tpch", [("maria_scale_fact", "1")]),
        ])},
        {"db": "mysql", "product": "MySQL", "prefix": "mysql_", "dicts": _keys_dicts([
            ("connection", [("mysql_host", "127.0.0.1")]), ("tpcc", [("mysql_count_ware", "1")]),
            ("tpch", [("mysql_scale_fact", "1")]),
        ])},
    ],
    "generic": _keys_dicts([("commandline", [("keepalive_margin", "60"), ("jobs_profile_id", "0")]),
                            ("timeprofile", [("xt_gather_timeout", "60")])]),
}
KEYS_RULE = {"match": ["cli", "keys"], "stdout": json.dumps(KEYS)}


class Fake:
    """A fake sledge binary. It always answers `cli keys` (with KEYS);
    calls() leaves those calls out."""

    def __init__(self, d):
        self.dir = d
        self.path = os.path.join(d, "sledge")
        with open(self.path, "w") as f:
            f.write(FAKE.format(python=sys.executable))
        os.chmod(self.path, os.stat(self.path).st_mode | stat.S_IXUSR | stat.S_IXGRP | stat.S_IXOTH)
        self.rules([])

    def rules(self, rules):
        with open(os.path.join(self.dir, "rules.json"), "w") as f:
            json.dump(list(rules) + [KEYS_RULE], f)

    def all_calls(self):
        p = os.path.join(self.dir, "calls.jsonl")
        if not os.path.exists(p):
            return []
        with open(p, encoding="utf-8") as f:
            return [json.loads(line) for line in f]

    def calls(self):
        return [c for c in self.all_calls() if c["argv"][-2:] != ["cli", "keys"]]


@pytest.fixture
def fake(tmp_path, monkeypatch):
    fk = Fake(str(tmp_path))
    monkeypatch.setenv("SLEDGE_BIN", fk.path)
    monkeypatch.delenv("SLEDGE_TOKEN", raising=False)
    monkeypatch.delenv("SLEDGE_REPO", raising=False)
    import sledge.hammerdb

    sledge.hammerdb.reset()
    yield fk
    sledge.hammerdb.reset()


import http.server  # noqa: E402
import subprocess  # noqa: E402
import threading  # noqa: E402

import sledge  # noqa: E402
import sledge.hammerdb as h  # noqa: E402
from sledge import SledgeError  # noqa: E402

TRICKY = 'a b {c} $d "e"'
BASE_VU = {
    "vu": "1", "delay": "500", "repeat": "500", "iterations": "1",
    "showoutput": "1", "logtotemp": "0", "unique": "0", "timestamps": "0", "nobuff": "0",
}

RESULT = {
    "job_id": 12, "status": "completed", "vu": 8, "warehouses": 2, "nopm": 1234.5, "tpm": 2900.25,
    "transactions": {"new_order": {"count": 100, "p95_ms": 3.5}, "payment": {"count": 98, "p95_ms": 1.5}},
}


# ------------------------------------------------------------ HammerDB state


def test_state_json_sent_for_each_action(fake, tmp_path):
    fake.rules([{"match": ["cli", "do"], "stdout": "working\ndone\n"}])
    h.dbset("db", "maria")
    h.dbset("bm", "TPROC-C")
    h.diset("connection", "maria_host", "db1")
    h.diset("connection", "maria_port", 3307)
    h.diset("tpcc", "maria_count_ware", 4)
    h.diset("tpcc", "maria_no_stored_procs", True)
    h.giset("commandline", "keepalive_margin", 5)
    h.vuset("vu", 3)
    h.dgset("directory", str(tmp_path))
    h.threshold("nopm>=100", "p99(new_order)<50ms")
    expected = {
        "db": "maria",
        "bm": "TPROC-C",
        "dicts": {
            "connection": {"maria_host": "db1", "maria_port": "3307"},
            "tpcc": {"maria_count_ware": "4", "maria_no_stored_procs": "true"},
            "tpch": {},
            "commandline": {"keepalive_margin": "5"},
        },
        "vu": dict(BASE_VU, vu="3"),
        "dg": {"directory": str(tmp_path)},
        "profileid": 0,
        "thresholds": ["nopm>=100", "p99(new_order)<50ms"],
    }
    # HammerDB's answers; the fake engine created no job.
    answers = {"buildschema": "Schema Build (No jobid)", "checkschema": "Schema Check (No jobid)",
               "deleteschema": "Schema Delete (No jobid)", "librarycheck": None, "datagenrun": None}
    for action, answer in answers.items():
        assert getattr(h, action)() == answer
    calls = fake.calls()
    assert [c["argv"] for c in calls] == [
        ["cli", "do", a] for a in ("buildschema", "checkschema", "deleteschema", "librarycheck", "datagenrun")
    ]
    for c in calls:
        assert json.loads(c["stdin"]) == expected


def test_default_state(fake):
    fake.rules([{"match": ["cli", "do", "checkschema"]}])
    h.checkschema()
    assert json.loads(fake.calls()[0]["stdin"]) == {
        "db": "pg", "bm": "TPROC-C", "dicts": {"connection": {}, "tpcc": {}, "tpch": {}}, "vu": BASE_VU, "dg": {},
        "profileid": 0, "thresholds": [],
    }


def test_threshold_command(fake, capsys):
    h.threshold()
    h.threshold("tpm>0", "errors<1%")
    h.threshold()
    assert h.session().state()["thresholds"] == ["tpm>0", "errors<1%"]
    h.threshold("clear")
    assert h.session().state()["thresholds"] == []
    assert capsys.readouterr().out.splitlines() == [
        "No thresholds set", "Threshold set: tpm>0", "Threshold set: errors<1%",
        "Threshold: tpm>0", "Threshold: errors<1%", "Thresholds cleared",
    ]


def test_dbset_and_dict_errors(fake):
    h.dbset("bm", "tproc-h")
    assert h.session().bm == "TPROC-H"
    h.dbset("bm", "TPROC-C")
    h.dbset("db", "mysql")
    assert h.session().db == "mysql"
    # A database Sledge cannot drive stops the script; the rest is printed
    # as HammerDB does and the script carries on.
    with pytest.raises(SledgeError, match="Sledge drives pg, maria and mysql"):
        h.dbset("db", "ora")
    h.dbset("bm", "TPC-X")
    h.dbset("nope", "pg")
    assert (h.session().db, h.session().bm) == ("mysql", "TPROC-C")
    h.diset("tpcx", "k", "v")  # HammerDB prints why and carries on
    h.vuset("bogus", 1)
    h.vuset("vu", 0)
    assert h.session().vu["vu"] == "1"
    h.vuset("vu", "vcpu")
    assert h.session().vu["vu"] == str(h.numberOfCPUs())


def test_output_echo_and_showoutput(fake, capsys):
    fake.rules([{"match": ["cli", "do", "buildschema"], "stdout": "line one\nline two\n", "stderr": "a warning\n"}])
    h.buildschema()
    out, err = capsys.readouterr()
    assert "line one\nline two\n" in out
    assert "a warning" in err
    h.vuset("showoutput", 0)
    h.buildschema()
    out, err = capsys.readouterr()
    assert "line one" not in out
    assert "a warning" in err


def test_action_failure_is_printed_and_the_script_goes_on(fake, capsys):
    # As in HammerDB: a failed build prints its errors and returns; the
    # engine's own "Error:" lines are shown even with showoutput 0.
    fake.rules([{"match": ["cli", "do", "buildschema"], "rc": 1,
                 "stdout": "Building 2 warehouses\nError: database \"tpcc\" exists\nSLEDGE-JOB 3 failed\n"},
                {"match": ["cli", "do", "checkschema"], "rc": 1, "stdout": "progress\n", "stderr": "a warning\n"}])
    h.vuset("showoutput", 0)
    assert h.buildschema() == "Schema Build jobid=3"
    assert h.checkschema() == "Schema Check (No jobid)"
    out, err = capsys.readouterr()
    assert out == 'Error: database "tpcc" exists\nError: checkschema failed (exit status 1)\n'
    assert "a warning" in err and "SLEDGE-JOB" not in out
    h.vucreate()
    assert h.buildschema() is None
    assert "Error: Cannot build schema with Virtual Users active, destroy Virtual Users first" in capsys.readouterr().out
    assert [c["argv"][2] for c in fake.calls()] == ["buildschema", "checkschema"]


def test_failed_virtual_users_stop_the_script(fake, capsys):
    # A build whose virtual users finished FAILED raises after its lines,
    # shown even with showoutput 0: the script's next line (HammerDB's
    # "SCHEMA BUILD COMPLETED") is never printed after FINISHED FAILED.
    fake.rules([{"match": ["cli", "do", "buildschema"], "rc": 1,
                 "stdout": "Vuser 1:RUNNING\nError in Virtual User 1: build: database already holds a schema\n"
                           "Vuser 1:FINISHED FAILED\nALL VIRTUAL USERS COMPLETE\nSLEDGE-JOB 4 failed\n"}])
    h.vuset("showoutput", 0)
    with pytest.raises(SledgeError) as e:
        h.buildschema()
    assert str(e.value) == "buildschema: Schema Build jobid=4 ended FAILED: the script stops here"
    out = capsys.readouterr().out
    assert out.startswith("Error in Virtual User 1: build: database already holds a schema\n")
    assert "Error: buildschema failed" not in out


# --------------------------------------------------------------- vurun


def test_vurun_returns_hammerdbs_answer(fake, capsys):
    fake.rules([{"match": ["cli", "do", "vurun"], "stdout": "Vuser 1:RUNNING\nTEST RESULT 1234 NOPM\nSLEDGE-JOB 42 completed\n"}])
    h.vuset("vu", 2)
    assert h.vucomplete() is False
    # Without vucreate, vurun creates the virtual users first, as HammerDB's.
    assert h.vurun() == "Benchmark Run jobid=42"
    assert h.session().job_id == "42"
    out = capsys.readouterr().out
    assert out == "2 Virtual Users Created\nVuser 1:RUNNING\nTEST RESULT 1234 NOPM\n"
    assert h.vustatus() == "1 = FINISH SUCCESS\n2 = FINISH SUCCESS"
    assert capsys.readouterr().out == "1 = FINISH SUCCESS\n2 = FINISH SUCCESS\n"  # printed, as HammerDB's
    assert h.vucomplete() is True
    assert json.loads(fake.calls()[0]["stdin"])["vu"]["vu"] == "2"
    h.vudestroy()
    assert h.vucomplete() is False
    assert h.vustatus() == "No Virtual Users found"


def test_vurun_failure(fake, capsys):
    fake.rules([{"match": ["cli", "do", "vurun"], "stdout": "Error: deadlock storm\nSLEDGE-JOB 7 failed\n", "rc": 1}])
    h.vucreate()
    assert h.vurun() == "Benchmark Run jobid=7"  # a failed run is still a job
    assert "Error: deadlock storm" in capsys.readouterr().out
    assert "FINISH FAILED" in h.vustatus()
    assert h.vucomplete() is True


def test_vurun_without_job(fake, capsys):
    fake.rules([{"match": ["cli", "do", "vurun"], "stdout": "Error: vuset vu: too many\n", "rc": 1}])
    h.vucreate()
    assert h.vurun() == "Benchmark Run (No jobid)"
    assert "Error: vuset vu: too many" in capsys.readouterr().out


def test_vu_bookkeeping(fake, capsys):
    assert h.vustatus() == "No Virtual Users found"
    h.vudestroy()  # nothing to destroy: a notice, no error
    h.vucreate()
    h.vucreate()
    h.vuset("vu", 4)
    h.vudestroy()
    h.vuset("vu", 4)
    assert capsys.readouterr().out == (
        "No Virtual Users found\nNo Virtual Users found to destroy\n1 Virtual Users Created\n"
        "Error: Virtual Users exist, destroy with vudestroy before creating\n"
        "Error: Virtual Users exist, destroy with vudestroy before changing settings\nvudestroy success\n")
    assert h.session().vu["vu"] == "4"
    assert h.vucomplete() is False


def test_vuset_values_as_hammerdb(fake, capsys):
    for key, value in (("showoutput", True), ("logtotemp", 1), ("unique", "on"), ("timestamps", "yes"),
                       ("nobuff", "false"), ("delay", "0"), ("repeat", 10), ("iterations", "3")):
        h.vuset(key, value)
    assert capsys.readouterr().out == ""  # HammerDB says nothing when a value is taken
    assert {k: h.session().vu[k] for k in ("showoutput", "logtotemp", "unique", "timestamps", "nobuff", "delay",
                                           "repeat", "iterations")} == {
        "showoutput": "1", "logtotemp": "1", "unique": "1", "timestamps": "1", "nobuff": "0", "delay": "0",
        "repeat": "10", "iterations": "3"}
    for key, value in (("vu", "x"), ("vu", 0), ("delay", -1), ("repeat", "1.5"), ("iterations", 0),
                       ("logtotemp", 2), ("showoutput", "maybe")):
        h.vuset(key, value)
    assert capsys.readouterr().out == (
        "The number of virtual users must be an integer\nsetting to value: 1\n"
        "The number of virtual users must be 1 or greater\nsetting to value: 1\n"
        "User Delay(ms) must be 0 or greater\nsetting to value: 500\n"
        "Repeat Delay(ms) must be an integer\nsetting to value: 500\n"
        "Iterations must be 1 or greater\nsetting to value: 1\n"
        "Log Output must be 0 or 1\nsetting to value: 0\n"
        "Show Output must be 0 or 1\nsetting to value: 1\n")
    assert (h.session().vu["delay"], h.session().vu["logtotemp"]) == ("500", "0")
    h.vuset("vu")
    h.vuset("nobypass", 1)
    assert capsys.readouterr().out == (
        "Usage: vuset [vu|delay|repeat|iterations|showoutput|logtotemp|unique|nobuff|timestamps] value\n"
        "Error: invalid option\n"
        "Usage: vuset [vu|delay|repeat|iterations|showoutput|logtotemp|unique|nobuff|timestamps] value\n")


def test_noops_and_helpers(fake, capsys):
    for f in (h.tcstart, h.tcstatus, h.tcstop, h.tcstop, h.loadscript, h.waittocomplete):
        f()
    h.tcset("refreshrate", 10)
    out = capsys.readouterr().out
    assert out.splitlines()[:4] == [
        "Notice: tcstart: Sledge records the transaction count of every run (jobs ID tcount); no counter thread to start",
        "Transaction Counter thread running (Sledge records it with every run: jobs ID tcount)",
        "Stopping Transaction Counter", "Transaction Counter is not running"]
    assert "Notice: loadscript: Sledge's TPROC-C driver is built in" in out
    assert "Transaction Counter refresh rate set to 10" in out
    assert h.numberOfCPUs() >= 1
    h.runtimer(0)
    h.runtimer("soon")
    assert "Notice: runtimer soon: want seconds; ignored" in capsys.readouterr().out
    with pytest.raises(SystemExit):
        h.quit()
    assert fake.calls() == []


def test_print(fake, capsys):
    h.diset("tpcc", "pg_count_ware", 8)
    text = h.print_("dict")
    assert "pg_count_ware = 8" in text
    assert text in capsys.readouterr().out
    assert h.print_("db", echo=False) == (
        "Database PostgreSQL set.\nTo change do: dbset db prefix, one of:\nPostgreSQL = pg MariaDB = maria MySQL = mysql")
    assert h.print_("vuconf", echo=False).splitlines() == [
        "Virtual Users = 1", "User Delay(ms) = 500", "Repeat Delay(ms) = 500", "Iterations = 1", "Show Output = 1",
        "Log Output = 0", "Unique Log Name = 0", "No Log Buffer = 0", "Log Timestamps = 0"]
    assert json.loads(h.print_("state", echo=False))["dicts"]["tpcc"] == {"pg_count_ware": "8"}
    assert "tpch" in h.printdict("tpch")
    assert h.print_("vucreated", echo=False) == "0 Virtual Users created"
    assert h.print_("vucomplete", echo=False) == "false"
    assert h.print_("ci", echo=False) == "CI Dictionary Settings\nNo CI configuration loaded"
    assert h.print_("datagen", echo=False).startswith(
        "Data Generation set to build a TPROC-C schema for PostgreSQL with 1 warehouses with 1 virtual users in ")
    capsys.readouterr()
    assert h.print_("nonsense") is None
    assert capsys.readouterr().out == (
        "Error: invalid option\n"
        "Usage: print [db|bm|ci|dict|generic|script|vuconf|vucreated|vustatus|vucomplete|datagen|tcconf]\n")


def test_diset_giset_refuse_as_hammerdb(fake, capsys):
    h.diset("tpcc", "pg_cuont_ware", 5)
    h.diset("conection", "pg_host", "x")
    h.diset("tpcc", "pg_host", "x")
    h.diset("tpcc", "maria_count_ware", 5)  # not PostgreSQL's
    h.diset("tpcc", "pg_driver", "fast")
    h.diset("tpcc", "pg_count_ware", 1)  # the default already
    h.giset("commandline", "nokey", 1)
    h.giset("nodict", "k", 1)
    assert capsys.readouterr().out == (
        'Dictionary "tpcc" for PostgreSQL exists but key "pg_cuont_ware" doesn\'t, key "pg_cuont_ware" cannot be found '
        'in any PostgreSQL dictionary\n'
        'Type "print dict" for valid dictionaries and keys for PostgreSQL\n'
        'Usage: diset dict key value\n'
        'Dictionary "conection" for PostgreSQL does not exist\n'
        'Type "print dict" for valid dictionaries and keys for PostgreSQL\n'
        'Dictionary "tpcc" for PostgreSQL exists but key "pg_host" doesn\'t, key "pg_host" is in the "connection" dictionary\n'
        'Type "print dict" for valid dictionaries and keys for PostgreSQL\n'
        'Dictionary "tpcc" for PostgreSQL exists but key "maria_count_ware" doesn\'t, key "maria_count_ware" cannot be '
        'found in any PostgreSQL dictionary\n'
        'Type "print dict" for valid dictionaries and keys for PostgreSQL\n'
        'Error: Driver script must be either "test" or "timed"\n'
        'Value 1 for tpcc:pg_count_ware is the same as existing value 1, no change made\n'
        'Dictionary "commandline" exists but key "nokey" doesn\'t\n'
        'Type "print generic" for valid dictionaries and keys\n'
        'Usage: giset dict key value\n'
        'Type "print generic" for valid dictionaries and keys\n'
    )
    assert h.session().dicts == {"connection": {}, "tpcc": {}, "tpch": {}}  # nothing changed
    h.diset("tpcc", "pg_driver", "test")
    h.dbset("db", "maria")
    h.diset("tpcc", "maria_count_ware", " 5 ")
    h.giset("commandline", "keepalive_margin", 5)
    # Spaces around a dictionary or key name are lost, as in HammerDB's
    # Python CLI, whose own maria_tproch_checkschema.py writes ' tpch'.
    h.diset(" tpch", "maria_scale_fact ", "0.01")
    h.giset(" timeprofile ", " xt_gather_timeout", 1200)
    out = capsys.readouterr().out
    assert "Changed tpcc:pg_driver from timed to test for PostgreSQL\n" in out
    assert "Changed tpcc:maria_count_ware from 1 to 5 for MariaDB\n" in out
    assert "Changed commandline:keepalive_margin from 60 to 5 for generic\n" in out
    assert "Changed tpch:maria_scale_fact from 1 to 0.01 for MariaDB\n" in out
    assert "Changed timeprofile:xt_gather_timeout from " in out
    assert h.session().dicts["tpcc"] == {"pg_driver": "test", "maria_count_ware": "5"}
    assert h.session().dicts["tpch"] == {"maria_scale_fact": "0.01"}
    # The table was asked for once.
    assert [c["argv"] for c in fake.all_calls()] == [["cli", "keys"]]


def test_print_dict_as_hammerdb(fake):
    h.diset("tpcc", "pg_count_ware", 8)
    assert h.print_("dict", echo=False) == (
        "Dictionary Settings for PostgreSQL\n"
        "connection {\n pg_host    = localhost\n pg_port    = 5432\n pg_sslmode = prefer\n}\n"
        "tpcc       {\n pg_count_ware = 8\n pg_user       = tpcc\n pg_pass       = tpcc\n pg_dbase      = tpcc\n"
        " pg_driver     = timed\n pg_rampup     = 2\n}"
    )
    h.giset("timeprofile", "xt_gather_timeout", 30)
    assert h.print_("generic", echo=False) == (
        "Generic Dictionary Settings\n"
        "commandline {\n keepalive_margin = 60\n jobs_profile_id  = 0\n}\n"
        "timeprofile {\n xt_gather_timeout = 30\n}"
    )


def test_star_import_exports_exactly_the_commands():
    ns = {}
    exec("from sledge.hammerdb import *", ns)
    names = {k for k in ns if k != "__builtins__"}
    # HammerDB 6's commands (help's index, runtimer, waittocomplete, job,
    # numberOfCPUs, numberOfWHs) and tclpy; print and help would shadow Python's.
    assert names == {
        "dbset", "diset", "giset", "vuset", "dgset", "print_", "buildschema", "checkschema", "deleteschema",
        "vucreate", "vurun", "vudestroy", "vustatus", "vucomplete", "tcstart", "tcstop", "tcstatus", "tcset",
        "runtimer", "waittocomplete", "jobs", "job", "librarycheck", "datagenrun", "numberOfCPUs", "numberOfWHs", "loadscript",
        "quit", "clearscript", "customscript", "custommonitor", "savescript", "distributescript", "switchmode",
        "steprun", "metset", "metstart", "metstatus", "metstop", "wsport", "wsstart", "wsstatus", "wsstop",
        "pipes", "pipe", "ci", "citmp", "cifix", "ciset", "cilisten", "cistatus", "cistop", "cireset", "cipush",
        "tclpy", "threshold",
    }
    assert "print" not in names and "help" not in names
    ns2 = {}
    exec("from sledge import *", ns2)
    assert "print" not in ns2 and "run" in ns2 and "vurun" in ns2


def test_sessions_are_independent(fake):
    fake.rules([{"match": ["cli", "do", "checkschema"]}])
    a, b = sledge.Session(), sledge.Session(repo="/tmp/x y.db")
    a.diset("tpcc", "pg_count_ware", 1)
    b.diset("tpcc", "pg_count_ware", 2)
    b.checkschema()
    c = fake.calls()[0]
    assert c["argv"] == ["--repo", "/tmp/x y.db", "cli", "do", "checkschema"]
    assert json.loads(c["stdin"])["dicts"]["tpcc"] == {"pg_count_ware": "2"}


def test_missing_binary(monkeypatch, tmp_path):
    monkeypatch.setenv("SLEDGE_BIN", str(tmp_path / "nope" / "sledge"))
    with pytest.raises(SledgeError, match="SLEDGE_BIN"):
        sledge.Session().checkschema()
    monkeypatch.delenv("SLEDGE_BIN")
    monkeypatch.setenv("PATH", str(tmp_path))
    with pytest.raises(SledgeError, match="not found"):
        sledge.Session().checkschema()


# ---------------------------------------------------------------- quoting


def test_quoting_state_and_argv(fake, tmp_path):
    tricky_dir = tmp_path / TRICKY  # dgset directory takes only a writable directory
    tricky_dir.mkdir()
    fake.rules([
        {"match": ["cli", "do"]},
        {"match": ["cli", "job"], "stdout": "run job 5: TPROC-C on x\nSLEDGE-JOB 5 completed\n"},
        {"match": ["jobs", "show", "5", "result"], "stdout": json.dumps(dict(RESULT, job_id=5))},
    ])
    h.diset("tpcc", "pg_pass", TRICKY)
    h.diset("tpcc", "pg_dbase", TRICKY)
    h.dgset("directory", str(tricky_dir))
    h.buildschema()
    st = json.loads(fake.calls()[0]["stdin"])
    assert st["dicts"]["tpcc"]["pg_pass"] == TRICKY
    assert st["dicts"]["tpcc"]["pg_dbase"] == TRICKY
    assert st["dg"]["directory"] == str(tricky_dir)
    sledge.run(db=TRICKY, isolation=TRICKY, quiet=True)
    assert fake.calls()[1]["argv"] == ["cli", "job"]
    spec = json.loads(fake.calls()[1]["stdin"])
    assert spec["db"] == TRICKY
    assert spec["isolation"] == TRICKY
    # Non-ASCII survives too.
    h.diset("tpcc", "pg_pass", "pässwörd €")
    h.checkschema()
    assert json.loads(fake.calls()[-1]["stdin"])["dicts"]["tpcc"]["pg_pass"] == "pässwörd €"


# ------------------------------------------------------------------ jobs


def _jobs_answer(printed, returned="", fmt="JSON", pid=0):
    """What `sledge cli jobs` writes: printed text, 0x1E line, session, returned value."""
    return "%s\x1e\n%s %d\n%s" % (printed, fmt, pid, returned)


TIMING = {"NEWORD": {"calls": "10", "p95_ms": "1.5"}}


def test_jobs(fake):
    result = ["3", "2026-11-23 15:16:33", "4 Active Virtual Users configured",
              "TEST RESULT : System achieved 65069 NOPM from 150166 PostgreSQL TPM"]
    fake.rules([
        {"match": ["cli", "jobs", "--format", "JSON", "--profileid", "0", "--", "3", "result"],
         "stdout": _jobs_answer(json.dumps(result, indent=2) + "\n")},
        {"match": ["cli", "jobs", "--format", "JSON", "--profileid", "0", "--", "3", "timing"],
         "stdout": _jobs_answer(json.dumps(TIMING) + "\n")},
        {"match": ["cli", "jobs", "--format", "JSON", "--profileid", "0", "--", "joblist"],
         "stdout": _jobs_answer("", "1 2 3")},
        {"match": ["cli", "jobs", "--format", "JSON", "--profileid", "0", "--", "3", "delete"],
         "stdout": _jobs_answer("Deleted Jobid 3\n")},
        {"match": ["cli", "jobs", "--format", "JSON", "--profileid", "0", "--", "99", "result"],
         "stdout": _jobs_answer("Jobid 99 does not exist\n")},
        {"match": ["cli", "jobs", "--format", "JSON", "--profileid", "0", "--", "format", "text"],
         "stdout": _jobs_answer("Setting jobs output format to text\n", fmt="text")},
        {"match": ["cli", "jobs", "--format", "text", "--profileid", "0", "--", "profileid", "7"],
         "stdout": _jobs_answer("Setting performance profile id to 7\n", fmt="text", pid=7)},
        {"match": ["cli", "jobs", "--format", "text", "--profileid", "7", "--", "3", "result"],
         "stdout": _jobs_answer("\n".join(result) + "\n", fmt="text", pid=7)},
        {"match": ["cli", "jobs", "--format", "text", "--profileid", "7", "--"],
         "stdout": _jobs_answer("", "TPROC-C Jobs\nJobid ...", fmt="text", pid=7)},
    ])
    assert h.jobs(3, "result") == result
    assert h.jobs("3", "timing") == TIMING
    assert h.jobs("joblist") == ["1", "2", "3"]
    assert h.jobs(3, "delete") is None
    assert h.jobs(99, "result") is None  # HammerDB prints the error and the script carries on
    assert h.jobs("format", "text") is None
    assert h.jobs("profileid", 7) is None
    assert h.session().profile_id == 7 and h.session().jobs_format == "text"
    assert h.jobs(3, "result") == "\n".join(result)
    assert h.jobs().startswith("TPROC-C Jobs")
    # The profile id goes with the state of the actions, to be recorded with runs.
    assert h.session().state()["profileid"] == 7


def test_jobs_unexpected_answer(fake):
    fake.rules([{"match": ["cli", "jobs"], "stdout": "ID KIND\n"}])
    with pytest.raises(SledgeError, match="unexpected answer"):
        h.jobs()


# ------------------------------------------------------ Pythonic: binary


def test_run_via_binary(fake, capsys):
    fake.rules([
        {"match": ["cli", "job"], "stdout": "starting\nrun job 12: TPROC-C on postgres (PostgreSQL 16), 8 VUs\n"
                                            "[    10s] measure ...\nrun job 13 is not this one\nSLEDGE-JOB 12 completed\n"},
        {"match": ["jobs", "show", "12", "result", "--format", "json"], "stdout": json.dumps(RESULT)},
    ])
    r = sledge.run(db="postgres://u:p@h/tpcc", vu=8, duration=30, rampup="5s", max_retries=3, random_home=True)
    assert isinstance(r, sledge.Result)
    assert (r.job_id, r.status, r.nopm, r.tpm) == ("12", "completed", 1234.5, 2900.25)
    assert r.transactions["new_order"]["count"] == 100
    assert r.raw == RESULT
    # The spec goes on stdin as JSON, in the HTTP API's keys; no text is scraped.
    assert fake.calls()[0]["argv"] == ["cli", "job"]
    assert json.loads(fake.calls()[0]["stdin"]) == {
        "kind": "run", "db": "postgres://u:p@h/tpcc", "vu": 8, "rampup": "5s",
        "duration": "30s", "max_retries": 3, "random_home": True,
    }
    out = capsys.readouterr().out
    assert "run job 12" in out
    assert "SLEDGE-JOB" not in out  # the contract's line is not echoed


def test_run_via_binary_thresholds(fake):
    """thresholds go in the spec; the verdicts come from the job's record,
    and a failed one raises nothing: Result.passed says it."""
    verdicts = [
        {"threshold": "nopm>=1000", "metric": "nopm", "name": "", "op": ">=", "limit": 1000, "unit": "",
         "value": 1234.5, "passed": True, "note": ""},
        {"threshold": "p99(new_order)<1ms", "metric": "p99", "name": "new_order", "op": "<", "limit": 1, "unit": "ms",
         "value": 3.5, "passed": False, "note": ""},
    ]
    fake.rules([
        {"match": ["cli", "job"], "stdout": "SLEDGE-JOB 12 completed\n"},
        {"match": ["jobs", "show", "12", "result", "--format", "json"], "stdout": json.dumps(RESULT)},
        {"match": ["jobs", "show", "12", "status", "--format", "json"],
         "stdout": json.dumps({"id": 12, "kind": "run", "status": "completed", "thresholds": verdicts})},
    ])
    r = sledge.run(thresholds=["nopm>=1000", "p99(new_order)<1ms"], quiet=True)
    assert json.loads(fake.calls()[0]["stdin"]) == {"kind": "run", "thresholds": ["nopm>=1000", "p99(new_order)<1ms"]}
    assert r.thresholds == verdicts
    assert not r.passed
    fake.rules([
        {"match": ["cli", "job"], "stdout": "SLEDGE-JOB 12 completed\n"},
        {"match": ["jobs", "show", "12", "result", "--format", "json"], "stdout": json.dumps(RESULT)},
    ])
    r = sledge.run(quiet=True)  # none asked: no extra call, nothing to fail
    assert (r.thresholds, r.passed) == ([], True)


def test_run_via_binary_defaults_and_failure(fake):
    fake.rules([{"match": ["cli", "job"], "stdout": "run job 4: TPROC-C\nError: run: database went away\nSLEDGE-JOB 4 failed\n",
                 "stderr": "a warning\n", "rc": 1}])
    with pytest.raises(SledgeError) as ei:
        sledge.run(quiet=True)
    assert ei.value.job_id == "4"
    assert "job 4 failed" in str(ei.value)
    assert "database went away" in str(ei.value)
    assert fake.calls()[0]["argv"] == ["cli", "job"]
    assert json.loads(fake.calls()[0]["stdin"]) == {"kind": "run"}  # the engine's defaults apply


def test_run_via_binary_invalid_spec(fake):
    # Nothing was created: no SLEDGE-JOB line, the engine's field errors.
    fake.rules([{"match": ["cli", "job"], "stdout": "Error: vu: vu must be at least 1 (got 0)\n", "rc": 1}])
    with pytest.raises(SledgeError, match="vu must be at least 1") as ei:
        sledge.run(vu=0, quiet=True)
    assert ei.value.job_id is None
    assert ei.value.returncode == 1
    assert [c["argv"] for c in fake.calls()] == [["cli", "job"]]  # no jobs show


def test_run_via_binary_without_job_line(fake):
    fake.rules([{"match": ["cli", "job"], "stdout": "run job 12: x\n"}])
    with pytest.raises(SledgeError, match="SLEDGE-JOB"):
        sledge.run(quiet=True)


def test_run_warehouses_mismatch_warns(fake):
    fake.rules([
        {"match": ["cli", "job"], "stdout": "SLEDGE-JOB 12 completed\n"},
        {"match": ["jobs", "show", "12", "result"], "stdout": json.dumps(RESULT)},
    ])
    with pytest.warns(UserWarning, match="warehouses"):
        sledge.run(warehouses=5, quiet=True)
    assert "warehouses" not in json.loads(fake.calls()[0]["stdin"])


def test_build_via_binary(fake):
    fake.rules([
        {"match": ["cli", "job"], "stdout": "build job 8: 2 warehouses into x with 2 workers\nSLEDGE-JOB 8 completed\n"},
        {"match": ["jobs", "show", "8", "status", "--format", "json"], "stdout": json.dumps({"id": 8, "kind": "build", "status": "completed"})},
    ])
    j = sledge.build(db="postgres://x", warehouses=2, workers=2, force=True, quiet=True)
    assert (j.job_id, j.kind, j.status) == ("8", "build", "completed")
    assert fake.calls()[0]["argv"] == ["cli", "job"]
    assert json.loads(fake.calls()[0]["stdin"]) == {"kind": "build", "db": "postgres://x",
                                                    "warehouses": 2, "workers": 2, "force": True, "confirm": True}
    sledge.build(workload="tproch", scale=0.01, quiet=True)
    assert json.loads(fake.calls()[2]["stdin"]) == {"kind": "build", "workload": "tproch", "scale": 0.01}


def test_binary_and_http_send_the_same_spec(fake, api):
    """One function builds the body of both paths."""
    fake.rules([
        {"match": ["cli", "job"], "stdout": "SLEDGE-JOB 17 completed\n"},
        {"match": ["jobs", "show", "17"], "stdout": json.dumps(dict(RESULT, job_id=17, id=17, kind="build", status="completed"))},
    ])
    for fn, kw in ((sledge.run, dict(db="sqlite:/tmp/x.db", vu=3, duration=90, rampup=0, mode="sql", interval=5, seed=7)),
                   (sledge.build, dict(db="sqlite:/tmp/x.db", warehouses=2, workers=1, loader="insert")),
                   (sledge.build, dict(workload="tproch", scale=1, warehouses=4))):
        fn(quiet=True, binary=fake.path, **kw)  # the api fixture hides $SLEDGE_BIN
        fn(server=api["url"], poll=0.01, **kw)
    sent = [json.loads(c["stdin"]) for c in fake.calls() if c["argv"] == ["cli", "job"]]
    assert sent == api["posts"]
    assert sent[0] == {"kind": "run", "db": "sqlite:/tmp/x.db", "vu": 3, "rampup": "0s",
                       "duration": "90s", "mode": "sql", "interval": "5s", "seed": 7}


# -------------------------------------------------------- Pythonic: HTTP


class FakeAPI(http.server.BaseHTTPRequestHandler):
    state = None  # set per test

    def log_message(self, *a):
        pass

    def _send(self, code, body):
        data = json.dumps(body).encode()
        self.send_response(code)
        self.send_header("Content-Type", "application/json")
        self.send_header("Content-Length", str(len(data)))
        self.end_headers()
        self.wfile.write(data)

    def _auth(self):
        st = self.state
        st["auth"].append(self.headers.get("Authorization"))
        if st.get("token") and self.headers.get("Authorization") != "Bearer " + st["token"]:
            self._send(401, {"error": "unauthorized"})
            return False
        return True

    def do_POST(self):  # noqa: N802
        if not self._auth():
            return
        body = json.loads(self.rfile.read(int(self.headers["Content-Length"])))
        self.state["posts"].append(body)
        if body.get("vu") == 0:
            self._send(400, {"error": "vu must be at least 1", "field": "vu"})
            return
        self._send(201, {"id": "17"})

    def do_GET(self):  # noqa: N802
        if not self._auth():
            return
        st = self.state
        st["gets"].append(self.path)
        if self.path == "/api/jobs/17":
            st["polls"] += 1
            status = "running" if st["polls"] < 3 else st.get("final", "completed")
            self._send(200, {"id": 17, "kind": st["posts"][-1]["kind"], "status": status, "error": st.get("error", "")})
        elif self.path == "/api/jobs/17/result":
            if st.get("final") == "failed":
                self._send(404, {"error": "job 17 has no run result"})
            else:
                self._send(200, dict(RESULT, job_id=17))
        else:
            self._send(404, {"error": "not found"})


@pytest.fixture
def api(monkeypatch):
    monkeypatch.delenv("SLEDGE_TOKEN", raising=False)
    monkeypatch.setenv("SLEDGE_BIN", "/nonexistent/sledge")  # must not be spawned
    st = {"posts": [], "gets": [], "auth": [], "polls": 0}
    handler = type("H", (FakeAPI,), {"state": st})
    srv = http.server.ThreadingHTTPServer(("127.0.0.1", 0), handler)
    t = threading.Thread(target=srv.serve_forever, daemon=True)
    t.start()
    st["url"] = "http://127.0.0.1:%d" % srv.server_address[1]
    yield st
    srv.shutdown()
    srv.server_close()


def test_run_via_http(api):
    api["token"] = "s3cret"
    r = sledge.run(db=TRICKY, vu=2, duration="1m", rampup=0, mode="sql", server=api["url"], token="s3cret", poll=0.01)
    assert (r.job_id, r.status, r.nopm) == ("17", "completed", 1234.5)
    assert r.transactions["payment"]["count"] == 98
    assert api["posts"] == [{"kind": "run", "db": TRICKY, "vu": 2, "rampup": "0s",
                             "duration": "1m", "mode": "sql"}]
    assert api["polls"] == 3
    assert api["gets"][-1] == "/api/jobs/17/result"
    assert set(api["auth"]) == {"Bearer s3cret"}


def test_run_via_http_token_from_env(api, monkeypatch):
    api["token"] = "from-env"
    monkeypatch.setenv("SLEDGE_TOKEN", "from-env")
    assert sledge.run(server=api["url"], poll=0.01).nopm == 1234.5
    monkeypatch.setenv("SLEDGE_TOKEN", "wrong")
    with pytest.raises(SledgeError, match="401"):
        sledge.run(server=api["url"], poll=0.01)


def test_run_via_http_errors(api):
    with pytest.raises(SledgeError, match="vu must be at least 1"):
        sledge.run(vu=0, server=api["url"], poll=0.01)
    api["final"], api["error"] = "failed", "connection refused"
    with pytest.raises(SledgeError, match="connection refused") as ei:
        sledge.run(server=api["url"], poll=0.01)
    assert ei.value.job_id == "17"


def test_build_via_http(api):
    j = sledge.build(db="postgres://x", warehouses=3, workers=2, server=api["url"], poll=0.01)
    assert (j.job_id, j.kind, j.status) == ("17", "build", "completed")
    assert api["posts"] == [{"kind": "build", "db": "postgres://x", "warehouses": 3, "workers": 2}]


# ------------------------------------------------------ scripts end to end


def _script_env(fake):
    env = dict(os.environ, SLEDGE_BIN=fake.path, PYTHONPATH=os.path.dirname(HERE))
    return env


def test_example_sweep(fake):
    fake.rules([
        {"match": ["cli", "do", "vurun"], "stdout": "running\nSLEDGE-JOB {n} completed\n"},
        {"match": ["cli", "jobs"], "stdout": _jobs_answer(json.dumps(
            ["1", "2026-11-23 15:16:33", "1 Active Virtual Users configured",
             "TEST RESULT : System achieved 1234 NOPM from 2900 PostgreSQL TPM"]) + "\n")},
    ])
    p = subprocess.run([sys.executable, os.path.join(os.path.dirname(HERE), "examples", "run_sweep.py")],
                       env=_script_env(fake), capture_output=True, text=True, timeout=60)
    assert p.returncode == 0, p.stderr
    runs = [c for c in fake.calls() if c["argv"][:3] == ["cli", "do", "vurun"]]
    assert [json.loads(c["stdin"])["vu"]["vu"] for c in runs] == ["1", "2", "4"]
    assert all(json.loads(c["stdin"])["dicts"]["tpcc"]["pg_count_ware"] == "2" for c in runs)
    assert [c["argv"] for c in fake.calls() if c["argv"][:2] == ["cli", "jobs"]] == [
        ["cli", "jobs", "--format", "JSON", "--profileid", "0", "--", str(i), "result"] for i in (1, 2, 3)
    ]
    assert len(re.findall(r"(?m)^ +[124]  1234$", p.stdout)) == 3  # the table
    assert p.stdout.count("TEST RESULT : System achieved 1234 NOPM") == 3  # jobs printed its answers, as HammerDB's


def test_python_m_sledge_runs_unqualified_script(fake, tmp_path):
    fake.rules([{"match": ["cli", "do", "vurun"], "stdout": "SLEDGE-JOB 9 completed\n"}])
    script = tmp_path / "s.py"
    script.write_text(
        "import sys\n"
        "dbset('db', 'maria')\n"
        "diset('tpcc', 'maria_pass', %r)\n"
        "vucreate()\n"
        "print('JOB', vurun(), sys.argv[1:])\n"
        "print('CPUS', numberOfCPUs())\n"
        "quit()\n"
        "print('not reached')\n" % TRICKY
    )
    p = subprocess.run([sys.executable, "-m", "sledge", str(script), "x y"], env=_script_env(fake),
                       capture_output=True, text=True, timeout=60)
    assert p.returncode == 0, p.stderr
    assert "JOB Benchmark Run jobid=9 ['x y']" in p.stdout  # vurun answers as HammerDB's
    assert "not reached" not in p.stdout
    st = json.loads(fake.calls()[0]["stdin"])
    assert st["db"] == "maria" and st["dicts"]["tpcc"]["maria_pass"] == TRICKY


# ------------------------------------------- HammerDB's other commands, tclpy

# The key table with the generic dictionaries tcset, metset and wsport keep
# their values in (HammerDB's genericdict).
KEYS_GENERIC = dict(KEYS, generic=KEYS["generic"] + _keys_dicts([
    ("transaction_counter", [("tc_refresh_rate", "10"), ("tc_log_to_temp", "0"), ("tc_unique_log_name", "0"),
                             ("tc_log_timestamps", "0")]),
    ("metrics", [("agent_hostname", "localhost"), ("agent_id", "10000")]),
    ("webservice", [("ws_port", "8080")]),
]))
KEYS_GENERIC_RULE = {"match": ["cli", "keys"], "stdout": json.dumps(KEYS_GENERIC)}


def _need_tkinter():
    """tclpy's Tcl interpreter needs Python's tkinter: skip without it, but
    fail under CI, where a skip would let the tests pass by not running."""
    try:
        import tkinter
        tkinter.Tcl()
    except Exception as e:  # ImportError, or TclError without Tcl's library
        if os.environ.get("CI"):
            pytest.fail("CI is set but Python's tkinter is missing (apt-get install python3-tk): %s" % e)
        pytest.skip("Python's tkinter is missing (apt-get install python3-tk)")


@pytest.fixture
def tcl(fake):
    """A fresh tclpy; the session's output goes back to Python's print after."""
    t = h.TclPy()
    yield t
    sledge.Session.output = None


# A stdout redirect in the manner of HammerDB's generic result scripts:
# `stdout off FILE` renames puts and appends what is put on stdout to FILE,
# `stdout on` restores it. Written for these tests.
REDIRECT = r'''
proc stdout {switch {file ""}} {
    if {$switch eq "off" && [info commands saved_puts] eq ""} {
        rename puts saved_puts
        proc puts {args} [string map [list @FILE@ [list $file]] {
            if {[llength $args] == 1 || ([llength $args] == 2 && [lindex $args 0] eq "stdout")} {
                set f [open @FILE@ a]
                saved_puts $f [lindex $args end]
                close $f
            } else {
                saved_puts {*}$args
            }
        }]
    } elseif {$switch eq "on" && [info commands saved_puts] ne ""} {
        rename puts {}
        rename saved_puts puts
    }
}
'''


def test_tclpy_runs_hammerdb_commands_in_tcl_and_redirects_their_output(tcl, fake, tmp_path, capsys):
    _need_tkinter()
    result = ["12", "2026-11-23 15:16:33", "1 Active Virtual Users configured",
              "TEST RESULT : System achieved 5 NOPM from 9 PostgreSQL TPM"]
    fake.rules([
        {"match": ["cli", "do", "vurun"], "stdout": "Vuser 1:RUNNING\nSLEDGE-JOB 12 completed\n"},
        {"match": ["cli", "jobs", "--format", "JSON", "--profileid", "0", "--", "12", "result"],
         "stdout": _jobs_answer(json.dumps(result, indent=2) + "\n")},
        {"match": ["cli", "jobs", "--format", "JSON", "--profileid", "0", "--", "12", "timing"],
         "stdout": _jobs_answer(json.dumps(TIMING) + "\n")},
    ])
    answer = tcl.eval("vurun")
    assert answer == "Benchmark Run jobid=12"
    assert capsys.readouterr().out == "1 Virtual Users Created\nVuser 1:RUNNING\n"
    # Tcl sees HammerDB's answers: vucomplete is true/false, vustatus prints.
    assert tcl.eval("set done [vucomplete]") == "true"
    assert tcl.eval("vustatus") == ""
    assert capsys.readouterr().out == "1 = FINISH SUCCESS\n"
    # The redirect: Tcl's puts and the commands' output go to the file;
    # Python's print does not.
    out = tmp_path / "job 12.out"
    tcl.eval(REDIRECT)
    tcl.eval("stdout off {%s}" % out)
    tcl.eval('puts "TRANSACTION RESPONSE TIMES"')
    h.jobs(answer, "timing")
    tcl.eval('puts "HAMMERDB RESULT"')
    h.job(answer, "result")
    print("python, not redirected")
    tcl.eval("stdout on")
    h.metstatus()
    captured = out.read_text()
    assert captured.startswith("TRANSACTION RESPONSE TIMES\n" + json.dumps(TIMING) + "\nHAMMERDB RESULT\n[\n")
    assert json.loads(captured.split("HAMMERDB RESULT\n", 1)[1]) == result
    stdout = capsys.readouterr().out
    assert stdout.startswith("python, not redirected\nNotice: metstatus: Sledge observes the database server and ")
    assert "NEWORD" not in stdout


def test_tclpy_errors_exit_and_every_command(tcl, fake):
    _need_tkinter()
    fake.rules([KEYS_GENERIC_RULE])
    # Every HammerDB command is a Tcl command of the interpreter.
    names = tcl.eval("info commands")
    missing = [n for n, _, _ in h.HELP if n not in names.split()]
    assert missing == [] and "job" in names.split()
    assert tcl.eval("expr {[numberOfCPUs] > 0}") == "1"
    tcl.eval("vuset vu 3; tcset refreshrate 20")
    assert h.session().vu["vu"] == "3"
    assert h.session().dicts["transaction_counter"] == {"tc_refresh_rate": "20"}
    # A Tcl error raises SledgeError; a Python error inside a command comes
    # back as itself; exit leaves Python with its code.
    with pytest.raises(SledgeError, match="boom"):
        tcl.eval("error boom")
    with pytest.raises(SledgeError, match="Sledge drives pg, maria and mysql"):
        tcl.eval("dbset db ora")
    assert tcl.eval("catch {dbset db ora} msg; set msg") == "dbset db ora: Sledge drives pg, maria and mysql"
    with pytest.raises(SystemExit) as ei:
        tcl.eval("exit 3; vuset vu 5")
    assert ei.value.code == 3 and h.session().vu["vu"] == "3"


def test_tclpy_without_tkinter_runs_one_command(fake, capsys, monkeypatch):
    monkeypatch.setattr(h.TclPy, "_make_interp", staticmethod(lambda: None))
    fake.rules([{"match": ["cli", "do", "vurun"], "stdout": "SLEDGE-JOB 4 completed\n"}])
    t = h.TclPy()
    assert t.eval("vuset vu {2}") == ""
    assert t.eval(' vurun ') == "Benchmark Run jobid=4"
    assert t.eval("vucomplete") == "true"
    assert h.session().vu["vu"] == "2"
    assert h._tcl_words(r'dgset directory "a \"b\" c" {d {e}} f\ g') == ["dgset", "directory", 'a "b" c', "d {e}", "f g"]
    for script in ('puts "x"', "vuset vu $n", "vurun; vudestroy", "vuset vu [numberOfCPUs]", "proc p {} {}",
                   "# comment", "vuset vu {2"):
        with pytest.raises(SledgeError, match="python3-tk"):
            t.eval(script)
    assert sledge.Session.output is None  # no interpreter, no Tcl output


def test_script_commands_and_modes(fake, tmp_path, capsys):
    custom = tmp_path / "driver.tcl"
    custom.write_text("puts custom\n")
    fake.rules([{"match": ["cli", "do", "vurun"], "stdout": "SLEDGE-JOB 8 completed\n"}])
    h.customscript(str(tmp_path / "missing.tcl"))
    h.customscript(str(custom))
    assert h.vurun() == "Benchmark Run (No jobid)"  # Sledge cannot run it: nothing runs
    assert h.print_("script", echo=False).startswith("Notice: print script: %s was named by customscript" % custom)
    h.loadscript()
    assert h.vurun() == "Benchmark Run jobid=8"
    h.customscript(str(custom))
    h.clearscript()
    h.vudestroy()
    assert h.vurun() == "Benchmark Run jobid=8"
    for call in (lambda: h.switchmode(), lambda: h.switchmode("Local"), lambda: h.switchmode("Primary"),
                 lambda: h.switchmode("replica", 1, "host"), lambda: h.switchmode("boss"),
                 lambda: h.savescript("x.tcl"), h.distributescript, lambda: h.custommonitor("timed"), h.pipes,
                 lambda: h.cipush("refs/heads/x", "single"), h.metstart):
        assert call() is None
    out = capsys.readouterr().out.splitlines()
    assert out[0] == "Usage: customscript scriptname.tcl"
    assert out[1].startswith("Notice: customscript %s: Sledge cannot run HammerDB driver scripts" % custom)
    assert out[2].startswith("Error: vurun: the script loaded is %s (customscript)" % custom)
    assert out[out.index("Mode currently set to Local"):] == [
        "Mode currently set to Local", "Already in Local mode",
        "Notice: switchmode Primary: Sledge has no Primary/Replica multi-client mode yet; staying in Local mode "
        "(runs use this machine's virtual users)",
        "Notice: switchmode replica: Sledge has no Primary/Replica multi-client mode yet; staying in Local mode "
        "(runs use this machine's virtual users)",
        "Error:Mode to switch to must be one of Local, Primary or Replica",
        "Notice: savescript x.tcl: Sledge's drivers are built into the engine; there is no driver script to save "
        "(nothing written)",
        "Notice: distributescript: Sledge runs in Local mode only (no Primary/Replica); there is nothing to distribute",
        "Notice: custommonitor timed: Sledge cannot run custom scripts, so there is no monitor virtual user to add",
        "Notice: pipes: Sledge has no CI pipeline service (HammerDB's GitHub-webhook database builds); nothing done",
        "Notice: cipush: Sledge has no CI pipeline service (HammerDB's GitHub-webhook database builds); nothing done",
        "Notice: metstart: Sledge observes the database server and this host during every run (wait events, "
        "server statistics, settings, CPU, memory, disk and network) and stores it with the job (jobs ID metrics); "
        "no metrics agent to start",
    ]
    # steprun is vurun's run with the steps as stages: a job, like vurun,
    # after which the virtual users are gone and a custom script forgotten.
    fake.rules([{"match": ["cli", "do", "steprun"], "stdout": "primary starts immediately\nSLEDGE-JOB 9 completed\n"}])
    h.vucreate()
    h.customscript(str(custom))
    assert h.steprun() == "Benchmark Run jobid=9"
    assert not h.session().vus_created and h.session().custom is None and h.session().job_id == "9"
    fake.rules([{"match": ["cli", "do", "steprun"], "stdout": "Error: replica1 would end 5 minutes after the start\n", "rc": 1}])
    h.vucreate()
    assert h.steprun() == "Benchmark Run (No jobid)"
    assert h.session().vus_created  # nothing ran: nothing destroyed
    capsys.readouterr()
    h.dbset("bm", "TPROC-H")
    assert h.steprun() is None
    assert capsys.readouterr().out.endswith("Error: Step Workload does not support TPROC-H\n")


def test_generic_settings_tc_metrics_webservice(fake, capsys):
    fake.rules([KEYS_GENERIC_RULE])
    h.tcset("refreshrate", 60)
    h.tcset("unique", "true")
    h.tcset("logtotemp", "x")
    h.metset("agent_id", "abc")
    h.metset("agent_hostname", "db1")
    h.metstop()
    h.wsport("http")
    h.wsport(1)
    h.wsport()
    out = capsys.readouterr().out
    assert "Refresh rate must be an integer more than 0 secs and less than 60 secs\n" in out
    assert "Transaction Counter refresh rate set to 10\nNotice: tcset refreshrate:" in out
    assert "Transaction Counter unique log name set to 1\n" in out
    assert "Log to temp must be 0 or 1\nTransaction Counter log to temp set to 0\n" in out
    assert "agent_id be an integer\nsetting to value: 10000\nMetrics agent id set to 10000\n" in out
    assert ("Notice: metstop: Sledge observes the database server and this host during every run (jobs ID metrics), "
            "without a metrics agent (id: db1:10000); nothing to stop\n") in out
    assert out.endswith("Error: Web Service port should be an integer\nSetting Web Service port to 1\n"
                        "Web Service Port set to 1\n")
    assert h.print_("tcconf", echo=False) == (
        "tc_refresh_rate    = 10\ntc_log_to_temp     = 0\ntc_unique_log_name = 1\ntc_log_timestamps  = 0")
    # A port nothing listens on: wsstatus says so, wsstop has nothing to stop.
    with socket.socket() as sk:
        sk.bind(("127.0.0.1", 0))
        free = sk.getsockname()[1]
    h.wsport(free)
    h.wsstatus()
    h.wsstop()
    out = capsys.readouterr().out.splitlines()
    assert out[1].startswith("Web Service not running: ") and out[2].startswith("Web Service not running: ")


def test_dgset_as_hammerdb(fake, tmp_path, capsys):
    h.dgset("vu", 4)  # more than the 1 warehouse
    h.dgset("warehouse", 8)
    h.dgset("vu", 4)
    h.dgset("scale_fact", 7)
    h.dgset("directory", str(tmp_path / "none"))
    h.dgset("directory", str(tmp_path))
    h.dgset("colour", "red")
    assert h.session().dg == {"virtual_users": "4", "warehouses": "8", "directory": str(tmp_path)}
    out = capsys.readouterr().out.splitlines()
    assert out[:5] == [
        "Error:Build virtual users must be less than or equal to number of warehouses",
        "You have 4 virtual users building 1 warehouses", "Set virtual users to 4 for data generation",
        "Error: Scale Factor must be a value in 1 10 30 100 300 1000 3000 10000 30000 100000",
        "Files cannot be written to chosen directory you must create %s before generating data" % (tmp_path / "none"),
    ]
    assert out[5].startswith("Setting back to ") and out[6:] == [
        "Error: invalid option", "Usage: dgset [vu|scale_fact|warehouse|directory]"]


def test_jobs_takes_vuruns_answer(fake, capsys):
    fake.rules([{"match": ["cli", "jobs"], "stdout": _jobs_answer('["3"]\n')}])
    assert h.jobs("Benchmark Run jobid=3", "result") == ["3"]
    assert h.job("jobid=3") == ["3"]
    assert [c["argv"][-2:] for c in fake.calls()] == [["3", "result"], ["--", "3"]]
    assert capsys.readouterr().out == '["3"]\n["3"]\n'  # printed, as HammerDB's jobs


def test_help_and_hammerdb_print_in_scripts(fake, capsys):
    ns = h.script_namespace()
    ns["help"]()
    index = capsys.readouterr().out
    listed = re.findall(r"(?m)^  (\w+) ", index)
    # Every command a script has is listed, and each has its own help.
    commands = {n for n in h.__all__ if n not in ("print_", "job", "tclpy")} | {"help", "print"}
    assert set(listed) == commands
    for name in listed:
        ns["help"](name)
        assert capsys.readouterr().out.startswith("jobs()" if name == "jobs" else "%s - Usage: %s" % (name, name))
    ns["help"]("nonsense")
    assert capsys.readouterr().out.startswith("Error: invalid option")
    ns["print"]("vuconf")
    ns["print"]("a", "line")
    ns["print"]("plain words")
    assert capsys.readouterr().out == (
        "Virtual Users = 1\nUser Delay(ms) = 500\nRepeat Delay(ms) = 500\nIterations = 1\nShow Output = 1\n"
        "Log Output = 0\nUnique Log Name = 0\nNo Log Buffer = 0\nLog Timestamps = 0\na line\nplain words\n")
    assert ns["os"] is os and ns["sys"] is sys


@pytest.mark.parametrize("cpus,limit,want", [
    (1, 4000, 10), (2, 4000, 20), (3, 4000, 30), (12, 4000, 100), (13, 4000, 104), (64, 4000, 512),
    (500, 4000, 4000), (16, 100, 100),
])
def test_warehouse_sizing(cpus, limit, want):
    # HammerDB's: 8 a CPU, rounded up to a multiple of 10 up to 100, at most the limit.
    assert sledge.Session.warehouses(cpus, limit) == want


def test_number_of_whs_says_what_it_chose(fake, capsys, monkeypatch):
    monkeypatch.setattr(sledge.Session, "numberOfCPUs", staticmethod(lambda: 3))
    monkeypatch.setattr(h.TclPy, "_make_interp", staticmethod(lambda: None))
    assert h.numberOfWHs() == 30
    # HammerDB's Python scripts: warehouse = int(tclpy.eval('numberOfWHs')).
    assert int(h.TclPy().eval("numberOfWHs")) == 30
    assert capsys.readouterr().out == (
        "numberOfWHs: 30 warehouses for 3 CPUs (HammerDB's sizing: 8 a CPU, rounded up to a multiple of 10 up to 100, "
        "at most 4000)\n") * 2


def test_number_of_cpus_counts_as_hammerdb():
    try:
        with open("/proc/cpuinfo", encoding="utf-8") as f:
            want = len(re.findall(r"(?m)^processor\s", f.read()))
    except OSError:
        want = 0
    assert h.numberOfCPUs() == (want or os.cpu_count() or 1)


@pytest.mark.parametrize("script,want", [
    ("even 4", "1"), ("even 3", "0"), ("odd 3", "1"), ("findakey pg_count_ware configpostgresql", "tpcc"),
    ("findakey pg_host", "connection"), ("findakey pg_nosuchkey", ""), ("keepalive", ""), ("_runtimer 60", ""),
    ("_waittocomplete", ""), ("strip_html {<p>a <b>b</b></p>}", "a b"),
])
def test_tclpy_helpers_without_tkinter(fake, monkeypatch, script, want):
    monkeypatch.setattr(h.TclPy, "_make_interp", staticmethod(lambda: None))
    assert h.TclPy().eval(script) == want


def test_tclpy_helpers_in_tcl(tcl, fake, capsys):
    _need_tkinter()
    fake.rules([KEYS_GENERIC_RULE])
    assert tcl.eval("string insert abc 1 X") + tcl.eval("string insert abc end-1 Z") == "aXbcabZc"
    assert tcl.eval("expr {[even 2] && [odd 1]}") == "1"
    assert tcl.eval("get_ws_port") == "8080"
    tcl.eval("pdict {a 1 bb {c 2 d 3}}")
    tcl.eval("putscli done")
    assert capsys.readouterr().out == "a  = 1\nbb {\n    c = 2\n    d = 3\n}\ndone\n"
