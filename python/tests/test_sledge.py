import json
import os
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


class Fake:
    def __init__(self, d):
        self.dir = d
        self.path = os.path.join(d, "sledge")
        with open(self.path, "w") as f:
            f.write(FAKE.format(python=sys.executable))
        os.chmod(self.path, os.stat(self.path).st_mode | stat.S_IXUSR | stat.S_IXGRP | stat.S_IXOTH)
        self.rules([])

    def rules(self, rules):
        with open(os.path.join(self.dir, "rules.json"), "w") as f:
            json.dump(rules, f)

    def calls(self):
        p = os.path.join(self.dir, "calls.jsonl")
        if not os.path.exists(p):
            return []
        with open(p, encoding="utf-8") as f:
            return [json.loads(line) for line in f]


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
    "showoutput": "1", "logtotemp": "0", "unique": "0", "timestamps": "0",
}

RESULT = {
    "job_id": 12, "status": "completed", "vu": 8, "warehouses": 2, "nopm": 1234.5, "tpm": 2900.25,
    "transactions": {"new_order": {"count": 100, "p95_ms": 3.5}, "payment": {"count": 98, "p95_ms": 1.5}},
}


# ------------------------------------------------------------ HammerDB state


def test_state_json_sent_for_each_action(fake):
    fake.rules([{"match": ["cli", "do"], "stdout": "working\ndone\n"}])
    h.dbset("db", "maria")
    h.dbset("bm", "TPROC-C")
    h.diset("connection", "maria_host", "db1")
    h.diset("connection", "maria_port", 3307)
    h.diset("tpcc", "maria_count_ware", 4)
    h.diset("tpcc", "maria_storedprocs", True)
    h.giset("commandline", "keepalive_margin", 5)
    h.vuset("vu", 3)
    h.dgset("directory", "/tmp/dg")
    expected = {
        "db": "maria",
        "bm": "TPROC-C",
        "dicts": {
            "connection": {"maria_host": "db1", "maria_port": "3307"},
            "tpcc": {"maria_count_ware": "4", "maria_storedprocs": "true"},
            "tpch": {},
            "commandline": {"keepalive_margin": "5"},
        },
        "vu": dict(BASE_VU, vu="3"),
        "dg": {"directory": "/tmp/dg"},
        "profileid": 0,
    }
    for action in ("buildschema", "checkschema", "deleteschema", "librarycheck", "datagenrun"):
        assert getattr(h, action)() is None
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
        "profileid": 0,
    }


def test_dbset_and_dict_errors(fake):
    h.dbset("bm", "tproc-h")
    assert h.session().bm == "TPROC-H"
    h.dbset("bm", "TPROC-C")
    h.dbset("db", "mysql")
    assert h.session().db == "mysql"
    for args in (("db", "ora"), ("bm", "TPC-X"), ("nope", "pg")):
        with pytest.raises(SledgeError):
            h.dbset(*args)
    with pytest.raises(SledgeError, match="no such dictionary"):
        h.diset("tpcx", "k", "v")
    with pytest.raises(SledgeError, match="unknown setting"):
        h.vuset("bogus", 1)
    with pytest.raises(SledgeError):
        h.vuset("vu", 0)
    h.vuset("vu", "vcpu")
    assert h.session().vu["vu"] == str(os.cpu_count())


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


def test_action_failure_raises_with_tail(fake):
    lines = "".join("progress %d\n" % i for i in range(100))
    fake.rules([{"match": ["cli", "do", "buildschema"], "stdout": lines, "stderr": "error: connection refused\n", "rc": 1}])
    with pytest.raises(SledgeError) as ei:
        h.buildschema()
    e = ei.value
    assert e.returncode == 1
    assert "connection refused" in str(e)
    assert "progress 99" in str(e)
    assert "progress 0\n" not in str(e)  # only the tail


# --------------------------------------------------------------- vurun


def test_vurun_returns_job_id(fake, capsys):
    fake.rules([{"match": ["cli", "do", "vurun"], "stdout": "Vuser 1:RUNNING\nTEST RESULT 1234 NOPM\nSLEDGE-JOB 42 completed\n"}])
    with pytest.raises(SledgeError, match="vucreate"):
        h.vurun()
    assert fake.calls() == []
    h.vuset("vu", 2)
    h.vucreate()
    assert h.vustatus() == "1 = WAIT IDLE\n2 = WAIT IDLE"
    assert h.vurun() == "42"
    assert h.session().job_id == "42"
    assert h.vustatus() == "1 = FINISH SUCCESS\n2 = FINISH SUCCESS"
    assert h.vucomplete() is True
    assert json.loads(fake.calls()[0]["stdin"])["vu"]["vu"] == "2"
    assert "TEST RESULT 1234 NOPM" in capsys.readouterr().out
    h.vudestroy()
    assert h.vustatus() == "No Virtual Users found"


def test_vurun_failure(fake):
    fake.rules([{"match": ["cli", "do", "vurun"], "stdout": "Error: deadlock storm\nSLEDGE-JOB 7 failed\n", "rc": 1}])
    h.vucreate()
    with pytest.raises(SledgeError) as ei:
        h.vurun()
    assert ei.value.job_id == "7"
    assert "job 7 failed" in str(ei.value)
    assert "deadlock storm" in str(ei.value)
    assert "FINISH FAILED" in h.vustatus()


def test_vurun_without_job_line(fake):
    fake.rules([{"match": ["cli", "do", "vurun"], "stdout": "ok\n"}])
    h.vucreate()
    with pytest.raises(SledgeError, match="SLEDGE-JOB"):
        h.vurun()


def test_vu_bookkeeping(fake, capsys):
    assert h.vustatus() == "No Virtual Users found"
    h.vudestroy()  # nothing to destroy: a notice, no error
    h.vucreate()
    with pytest.raises(SledgeError, match="exist"):
        h.vucreate()
    with pytest.raises(SledgeError, match="vudestroy"):
        h.vuset("vu", 4)
    h.vudestroy()
    h.vuset("vu", 4)
    assert h.vucomplete() is True


def test_noops_and_helpers(fake, capsys):
    for f in (h.tcstart, h.tcstop, h.tcstatus, h.loadscript, h.waittocomplete):
        f()
    h.tcset("refreshrate", 10)
    out = capsys.readouterr().out
    assert out.count("transaction counter") == 4
    assert "loadscript" in out
    assert h.numberOfCPUs() == os.cpu_count()
    h.runtimer(0)
    with pytest.raises(SystemExit):
        h.quit()
    assert fake.calls() == []


def test_print(fake, capsys):
    h.diset("tpcc", "pg_count_ware", 8)
    text = h.print_("dict")
    assert "pg_count_ware = 8" in text
    assert text in capsys.readouterr().out
    assert h.print_("db", echo=False) == "Database set to PostgreSQL"
    assert "showoutput = 1" in h.print_("vuconf", echo=False)
    assert json.loads(h.print_("state", echo=False))["dicts"]["tpcc"] == {"pg_count_ware": "8"}
    assert "tpch" in h.printdict("tpch")


def test_star_import_exports_exactly_the_commands():
    ns = {}
    exec("from sledge.hammerdb import *", ns)
    names = {k for k in ns if k != "__builtins__"}
    assert names == {
        "dbset", "diset", "giset", "vuset", "dgset", "print_", "buildschema", "checkschema", "deleteschema",
        "vucreate", "vurun", "vudestroy", "vustatus", "vucomplete", "tcstart", "tcstop", "tcstatus", "tcset",
        "runtimer", "waittocomplete", "jobs", "librarycheck", "datagenrun", "numberOfCPUs", "loadscript", "quit",
    }
    assert "print" not in names
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


def test_quoting_state_and_argv(fake):
    fake.rules([
        {"match": ["cli", "do"]},
        {"match": ["cli", "job"], "stdout": "run job 5: TPROC-C on x\nSLEDGE-JOB 5 completed\n"},
        {"match": ["jobs", "show", "5", "result"], "stdout": json.dumps(dict(RESULT, job_id=5))},
    ])
    h.diset("connection", "pg_pass", TRICKY)
    h.diset("tpcc", TRICKY, TRICKY)
    h.dgset("directory", TRICKY)
    h.buildschema()
    st = json.loads(fake.calls()[0]["stdin"])
    assert st["dicts"]["connection"]["pg_pass"] == TRICKY
    assert st["dicts"]["tpcc"][TRICKY] == TRICKY
    assert st["dg"]["directory"] == TRICKY
    sledge.run(db=TRICKY, isolation=TRICKY, quiet=True)
    assert fake.calls()[1]["argv"] == ["cli", "job"]
    spec = json.loads(fake.calls()[1]["stdin"])
    assert spec["db"] == TRICKY
    assert spec["isolation"] == TRICKY
    # Non-ASCII survives too.
    h.diset("connection", "pg_pass", "pässwörd €")
    h.checkschema()
    assert json.loads(fake.calls()[-1]["stdin"])["dicts"]["connection"]["pg_pass"] == "pässwörd €"


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
    with pytest.raises(SledgeError, match="Jobid 99 does not exist"):
        h.jobs(99, "result")
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
                                            "[ 0:10] measure ...\nrun job 13 is not this one\nSLEDGE-JOB 12 completed\n"},
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
    assert p.stdout.count("1234") == 3  # the table


def test_python_m_sledge_runs_unqualified_script(fake, tmp_path):
    fake.rules([{"match": ["cli", "do", "vurun"], "stdout": "SLEDGE-JOB 9 completed\n"}])
    script = tmp_path / "s.py"
    script.write_text(
        "import sys\n"
        "dbset('db', 'maria')\n"
        "diset('connection', 'maria_pass', %r)\n"
        "vucreate()\n"
        "print('JOB', vurun(), sys.argv[1:])\n"
        "print('CPUS', numberOfCPUs())\n"
        "quit()\n"
        "print('not reached')\n" % TRICKY
    )
    p = subprocess.run([sys.executable, "-m", "sledge", str(script), "x y"], env=_script_env(fake),
                       capture_output=True, text=True, timeout=60)
    assert p.returncode == 0, p.stderr
    assert "JOB 9 ['x y']" in p.stdout
    assert "not reached" not in p.stdout
    st = json.loads(fake.calls()[0]["stdin"])
    assert st["db"] == "maria" and st["dicts"]["connection"]["maria_pass"] == TRICKY
