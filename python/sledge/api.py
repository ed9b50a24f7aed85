"""The Pythonic API: sledge.run() and sledge.build().

Both describe the job as a spec: a dict with the JSON keys of the HTTP API's
request body (Sledge's config.Spec), built by _spec. Without server= they
pipe it to the sledge binary (`sledge cli job`, which runs it and ends with
the line "SLEDGE-JOB ID STATUS"); with server="http://host:port" they POST it
to a `sledge serve` (urllib only). Either way the Go engine does the work.
"""

import dataclasses
import datetime
import json
import os
import re
import time
import urllib.error
import urllib.parse
import urllib.request
import warnings
from typing import Any, Dict, List, Optional

from ._engine import SledgeError, call_json, stream
from .session import _JOB_LINE

__all__ = ["Result", "Job", "run", "build"]

# Spec fields that are durations (Go duration strings in the spec).
_DURATIONS = ("rampup", "duration", "interval")


@dataclasses.dataclass
class Result:
    """A run's result. raw is the engine's result JSON (`sledge jobs show ID
    result --format json`); transactions is raw["transactions"]: per
    transaction name, count, errors, mean/p50/p95/p99/max ms, ...
    nopm and tpm are None for a TPROC-H run (see raw)."""

    job_id: str
    status: str
    nopm: Optional[float]
    tpm: Optional[float]
    raw: Dict[str, Any] = dataclasses.field(repr=False)
    transactions: Dict[str, Any] = dataclasses.field(default_factory=dict, repr=False)
    # The run's thresholds (run(thresholds=[...])) with their verdicts, as
    # the job object has them: threshold, metric, name, op, limit, unit,
    # value (None when it could not be measured), passed, note.
    thresholds: List[Dict[str, Any]] = dataclasses.field(default_factory=list)

    @classmethod
    def from_json(cls, job_id, raw, job=None):
        return cls(
            job_id=str(raw.get("job_id", job_id)),
            status=raw.get("status", ""),
            nopm=raw.get("nopm"),
            tpm=raw.get("tpm"),
            raw=raw,
            transactions=raw.get("transactions") or {},
            thresholds=list((job or {}).get("thresholds") or []),
        )

    @property
    def passed(self):
        """Whether every threshold passed (True for a run without any)."""
        return all(t.get("passed") for t in self.thresholds)

    @property
    def iterations(self):
        """Transactions per VU of an iteration run; 0 for a timed run."""
        return self.raw.get("iterations") or 0

    @property
    def elapsed_s(self):
        """The measured window in seconds: an iteration run's elapsed time."""
        return self.raw.get("duration_s")


@dataclasses.dataclass
class Job:
    """A job as the engine records it (`sledge jobs show ID status`): kind is
    build, run, check or drop; status completed, failed, interrupted or
    running; raw the whole record."""

    job_id: str
    kind: str
    status: str
    raw: Dict[str, Any] = dataclasses.field(repr=False)

    @classmethod
    def from_json(cls, job_id, raw):
        return cls(
            job_id=str(raw.get("id", job_id)),
            kind=raw.get("kind", ""),
            status=raw.get("status", ""),
            raw=raw,
        )

    @property
    def error(self):
        return self.raw.get("error", "")


# ------------------------------------------------------------------ helpers


def _duration(v):
    """A Go duration string: "1m", "90s"; numbers are seconds."""
    if v is None:
        return None
    if isinstance(v, datetime.timedelta):
        v = v.total_seconds()
    if isinstance(v, bool):
        raise SledgeError("duration %r: want a number of seconds or a string like \"30s\"" % (v,))
    if isinstance(v, (int, float)):
        return ("%d" % v if float(v).is_integer() else repr(float(v))) + "s"
    return str(v)


def _spec(kind, workload, db=None, **fields):
    """The job's spec: the HTTP API's request body, which `sledge cli job`
    reads too (config.Spec's JSON keys: vu, rampup, duration, mode,
    warehouses, workers, scale, max_retries, isolation, seed, ...). Fields
    that are None are left out: the engine's defaults apply. Durations become
    Go duration strings ("30s")."""
    spec = {"kind": kind}
    if workload is not None:
        spec["workload"] = workload
    if db is not None:
        spec["db"] = db
    for k, v in fields.items():
        if v is None:
            continue
        spec[k] = _duration(v) if k in _DURATIONS else v
    return spec


def _spawn_job(spec, binary, repo, quiet):
    """Run the job spec describes with `sledge cli job` (the spec as JSON on
    stdin), echoing its output unless quiet; returns (job id, status) from
    its last line, "SLEDGE-JOB ID STATUS". Raises SledgeError when the job
    did not complete (with the job id, when one was created) or was never
    created (an invalid spec: the engine's "Error: FIELD: ..." lines)."""
    found = {}

    def on_line(line):
        m = _JOB_LINE.match(line)
        if m:
            found["id"], found["status"] = m.group(1), m.group(2)
        elif not quiet:
            print(line, flush=True)

    what = spec["kind"]
    rc, _lines, tail = stream(["cli", "job"], binary=binary, repo=repo, stdin=json.dumps(spec), echo=False,
                              on_line=on_line)
    job_id, status = found.get("id"), found.get("status")
    if rc != 0:
        text = "\n".join(line for line in tail if not _JOB_LINE.match(line)).rstrip()
        msg = "sledge %s failed (exit status %d)" % (what, rc)
        if job_id:
            msg += ": job %s %s" % (job_id, status)
        if text:
            msg += "\n" + text
        raise SledgeError(msg, returncode=rc, output=text, job_id=job_id)
    if job_id is None:
        raise SledgeError("sledge %s: the engine did not report a job (no SLEDGE-JOB line)" % what,
                          output="\n".join(tail))
    return job_id, status


class _Client:
    """A minimal client of `sledge serve`'s JSON API."""

    def __init__(self, server, token=None, timeout=60.0):
        if not re.match(r"^https?://", server):
            server = "http://" + server
        self.base = server.rstrip("/")
        self.token = token if token is not None else os.environ.get("SLEDGE_TOKEN") or None
        self.timeout = timeout

    def request(self, method, path, body=None):
        data = None
        headers = {"Accept": "application/json"}
        if body is not None:
            data = json.dumps(body).encode("utf-8")
            headers["Content-Type"] = "application/json"
        if self.token:
            headers["Authorization"] = "Bearer " + self.token
        req = urllib.request.Request(self.base + path, data=data, headers=headers, method=method)
        try:
            with urllib.request.urlopen(req, timeout=self.timeout) as resp:
                raw = resp.read()
                status = resp.status
        except urllib.error.HTTPError as e:
            raw = e.read()
            msg = raw.decode("utf-8", "replace").strip()
            try:
                j = json.loads(raw)
                if isinstance(j, dict) and j.get("error"):
                    msg = j["error"] + (" (field %s)" % j["field"] if j.get("field") else "")
            except ValueError:
                pass
            raise SledgeError("%s %s: HTTP %d: %s" % (method, path, e.code, msg), returncode=e.code, output=msg) from None
        except urllib.error.URLError as e:
            raise SledgeError("%s %s%s: %s" % (method, self.base, path, e.reason)) from None
        if not raw.strip():
            return None
        try:
            return json.loads(raw)
        except ValueError:
            raise SledgeError("%s %s: HTTP %d: the answer is not JSON" % (method, path, status)) from None

    def start(self, body):
        ans = self.request("POST", "/api/jobs", body)
        if not isinstance(ans, dict) or "id" not in ans:
            raise SledgeError("POST /api/jobs: no job id in the answer: %r" % (ans,))
        return str(ans["id"])

    def wait(self, job_id, poll):
        path = "/api/jobs/%s" % urllib.parse.quote(job_id)
        while True:
            j = self.request("GET", path)
            if j.get("status") != "running":
                return j
            time.sleep(poll)


def _check_warehouses(res, warehouses):
    if warehouses is None:
        return
    got = res.raw.get("warehouses")
    if got is not None and int(got) != int(warehouses):
        warnings.warn("run: asked for %s warehouses, the schema has %s (run uses the schema as built; "
                      "build it with sledge.build(warehouses=...))" % (warehouses, got), stacklevel=3)


# ---------------------------------------------------------------- run/build


def run(db=None, vu=None, duration=None, rampup=None, workload=None, mode=None, warehouses=None,
        server=None, *, iterations=None, token=None, binary=None, repo=None, quiet=False, poll=1.0, **other):
    """Run a workload on the Go engine and return its Result.

    db: a URL (postgres://user:pass@host:port/db, mysql://..., sqlite:PATH) or
    None for the engine's default. vu: virtual users. duration, rampup: Go
    duration strings ("1m", "10s") or seconds. workload: tprocc or tproch.
    mode: procs, sql or auto. Settings left as None take the engine's
    defaults (the job spec's: 4 VUs, 10s ramp-up, 1m window, tprocc). warehouses: the run uses the schema as built;
    when given it is checked against the result (a warning if it differs).
    iterations: TPROC-C, an iteration run (HammerDB's test driver with
    total_iterations): each VU runs this many transactions, then stops, and
    the run ends when all are done; rampup and duration are not used, and
    the Result's elapsed_s is the time from the start to the last VU's end
    (NOPM and TPM over it). None or 0: a timed run.
    Other keywords are passed on as fields of the job's spec, the HTTP API's
    JSON keys (max_retries=3, isolation="serializable", seed=7,
    random_home=True, interval="5s", ...).
    thresholds: a list of pass/fail criteria judged on the measured window
    (["nopm>=40000", "p99(new_order)<50ms", "errors<1%"], as sledge run
    --threshold): the Result's thresholds hold the verdicts and its passed
    says whether all held. A failed threshold raises nothing: check passed.

    server: the URL of a `sledge serve` (token from token= or $SLEDGE_TOKEN)
    to run there over the HTTP API instead of spawning the binary
    (`sledge cli job`, the spec on its stdin).
    binary, repo, quiet: the sledge executable, a --repo file and whether to
    hide the engine's output (binary mode only). poll: seconds between
    status checks (server mode only).
    """
    spec = _spec("run", workload, db, vu=None if vu is None else int(vu), rampup=rampup, duration=duration,
                 mode=mode, iterations=None if iterations is None else int(iterations), **other)
    if server:
        c = _Client(server, token)
        job_id = c.start(spec)
        j = c.wait(job_id, poll)
        if j.get("status") == "failed":
            raise SledgeError("run job %s failed: %s" % (job_id, j.get("error") or "see its output"), job_id=job_id)
        try:
            raw = c.request("GET", "/api/jobs/%s/result" % job_id)
        except SledgeError as e:
            raise SledgeError("run job %s %s: no result: %s" % (job_id, j.get("status"), e), job_id=job_id) from None
    else:
        job_id, _status = _spawn_job(spec, binary, repo, quiet)
        raw = call_json(["jobs", "show", job_id, "result"], binary=binary, repo=repo)
        j = call_json(["jobs", "show", job_id, "status"], binary=binary, repo=repo) if spec.get("thresholds") else None
    res = Result.from_json(job_id, raw, j)
    _check_warehouses(res, warehouses)
    return res


def result(job_id, *, binary=None, repo=None):
    """The Result of a run already in the repository (for example the job id
    vurun() returned): Sledge's own figures, where jobs(id, 'result') gives
    HammerDB's lines. HammerDB's answer itself ("Benchmark Run jobid=7")
    is accepted too."""
    job_id = str(job_id).strip().rsplit("jobid=", 1)[-1].strip()
    raw = call_json(["jobs", "show", job_id, "result"], binary=binary, repo=repo)
    return Result.from_json(job_id, raw)


def build(db=None, warehouses=None, workers=None, workload=None, scale=None, server=None, *,
          token=None, binary=None, repo=None, quiet=False, poll=1.0, **other):
    """Build a schema on the Go engine and return its Job.

    warehouses (TPROC-C) or scale (TPROC-H scale factor) size it (default:
    the engine's, 1); workers are the parallel loading sessions (default:
    the engine's). Other keywords are spec fields (force=True,
    engine="InnoDB", loader="insert", seed=...); force=True drops an
    existing schema, which the call confirms by itself (confirm=True).
    server/token/binary/repo/quiet/poll as for run(). Raises SledgeError
    when the build fails.
    """
    if other.get("force") and "confirm" not in other:
        other["confirm"] = True  # asking for force is the confirmation
    spec = _spec("build", workload, db, warehouses=None if warehouses is None else int(warehouses),
                 workers=None if workers is None else int(workers), scale=None if scale is None else float(scale),
                 **other)
    if server:
        c = _Client(server, token)
        job_id = c.start(spec)
        job = Job.from_json(job_id, c.wait(job_id, poll))
        if job.status != "completed":
            raise SledgeError("build job %s %s: %s" % (job_id, job.status, job.error or "see its output"), job_id=job_id)
        return job
    job_id, _status = _spawn_job(spec, binary, repo, quiet)
    raw = call_json(["jobs", "show", job_id, "status"], binary=binary, repo=repo)
    return Job.from_json(job_id, raw)
