"""The Pythonic API: sledge.run() and sledge.build().

Without server= they spawn the sledge binary (`sledge run ...`,
`sledge build ...`); with server="http://host:port" they drive a
`sledge serve` over its HTTP API (urllib only). Either way the Go engine
does the work.
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
from typing import Any, Dict, Optional

from ._engine import SledgeError, call_json, stream

__all__ = ["Result", "Job", "run", "build"]

_RUN_LINE = re.compile(r"run job (\d+)")
_BUILD_LINE = re.compile(r"build job (\d+)")


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

    @classmethod
    def from_json(cls, job_id, raw):
        return cls(
            job_id=str(raw.get("job_id", job_id)),
            status=raw.get("status", ""),
            nopm=raw.get("nopm"),
            tpm=raw.get("tpm"),
            raw=raw,
            transactions=raw.get("transactions") or {},
        )


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


def _flags(opts):
    """CLI flags from keyword options: foo_bar=1 -> --foo-bar 1; True ->
    --flag; False -> --flag=false; None is left out."""
    out = []
    for k, v in opts.items():
        if v is None:
            continue
        name = "--" + k.replace("_", "-")
        if isinstance(v, bool):
            out.append(name if v else name + "=false")
        else:
            out += [name, str(v)]
    return out


def _spawn_job(args, pattern, what, binary, repo, quiet):
    """Run sledge ARGS; returns the job id from the first line matching
    pattern. Raises SledgeError on a non-zero exit."""
    found = []

    def on_line(line):
        if not found:
            m = pattern.search(line)
            if m:
                found.append(m.group(1))

    rc, _lines, tail = stream(args, binary=binary, repo=repo, echo=not quiet, on_line=on_line)
    job_id = found[0] if found else None
    if rc != 0:
        text = "\n".join(tail).rstrip()
        msg = "sledge %s failed (exit status %d)" % (what, rc)
        if job_id:
            msg += ": job %s" % job_id
        if text:
            msg += "\n" + text
        raise SledgeError(msg, returncode=rc, output=text, job_id=job_id)
    if job_id is None:
        raise SledgeError("sledge %s: no job id in its output (no line like %r)" % (what, pattern.pattern),
                          output="\n".join(tail))
    return job_id


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


def run(db=None, vu=4, duration="1m", rampup="10s", workload="tprocc", mode=None, warehouses=None,
        server=None, *, token=None, binary=None, repo=None, quiet=False, poll=1.0, **other):
    """Run a workload on the Go engine and return its Result.

    db: a URL (postgres://user:pass@host:port/db, mysql://..., sqlite:PATH) or
    None for the engine's default. vu: virtual users. duration, rampup: Go
    duration strings ("1m", "10s") or seconds. workload: tprocc or tproch.
    mode: procs, sql or auto. warehouses: the run uses the schema as built;
    when given it is checked against the result (a warning if it differs).
    Other keywords are passed on as engine options (max_retries=3 ->
    --max-retries 3, isolation="serializable", seed=7, random_home=True, ...).

    server: the URL of a `sledge serve` (token from token= or $SLEDGE_TOKEN)
    to run there over the HTTP API instead of spawning the binary.
    binary, repo, quiet: the sledge executable, a --repo file and whether to
    hide the engine's output (binary mode only). poll: seconds between
    status checks (server mode only).
    """
    if server:
        c = _Client(server, token)
        body = {"kind": "run", "workload": workload}
        if db is not None:
            body["db"] = db
        if vu is not None:
            body["vu"] = int(vu)
        for k, v in (("rampup", _duration(rampup)), ("duration", _duration(duration)), ("mode", mode)):
            if v is not None:
                body[k] = v
        if warehouses is not None:
            body["warehouses"] = int(warehouses)
        for k, v in other.items():
            if v is not None:
                body[k] = _duration(v) if k == "interval" else v
        job_id = c.start(body)
        j = c.wait(job_id, poll)
        if j.get("status") == "failed":
            raise SledgeError("run job %s failed: %s" % (job_id, j.get("error") or "see its output"), job_id=job_id)
        try:
            raw = c.request("GET", "/api/jobs/%s/result" % job_id)
        except SledgeError as e:
            raise SledgeError("run job %s %s: no result: %s" % (job_id, j.get("status"), e), job_id=job_id) from None
        res = Result.from_json(job_id, raw)
        _check_warehouses(res, warehouses)
        return res

    opts = {"db": db, "vu": vu, "duration": _duration(duration), "rampup": _duration(rampup),
            "workload": workload, "mode": mode}
    for k, v in other.items():
        opts[k] = _duration(v) if k == "interval" else v
    job_id = _spawn_job(["run"] + _flags(opts), _RUN_LINE, "run", binary, repo, quiet)
    raw = call_json(["jobs", "show", job_id, "result"], binary=binary, repo=repo)
    res = Result.from_json(job_id, raw)
    _check_warehouses(res, warehouses)
    return res


def result(job_id, *, binary=None, repo=None):
    """The Result of a run already in the repository (for example the job id
    vurun() returned): Sledge's own figures, where jobs(id, 'result') gives
    HammerDB's lines."""
    job_id = str(job_id).strip()
    raw = call_json(["jobs", "show", job_id, "result"], binary=binary, repo=repo)
    return Result.from_json(job_id, raw)


def build(db=None, warehouses=1, workers=None, workload="tprocc", scale=None, server=None, *,
          token=None, binary=None, repo=None, quiet=False, poll=1.0, **other):
    """Build a schema on the Go engine and return its Job.

    warehouses (TPROC-C) or scale (TPROC-H scale factor) size it; workers
    are the parallel loading sessions (default: the engine's). Other
    keywords are engine options (force=True, engine="InnoDB",
    loader="insert", seed=...). server/token/binary/repo/quiet/poll as for
    run(). Raises SledgeError when the build fails.
    """
    tproch = str(workload).lower().replace("-", "") in ("tproch", "tpch")
    if server:
        c = _Client(server, token)
        body = {"kind": "build", "workload": workload}
        if db is not None:
            body["db"] = db
        if warehouses is not None and not tproch:
            body["warehouses"] = int(warehouses)
        if workers is not None:
            body["workers"] = int(workers)
        if scale is not None:
            body["scale"] = float(scale)
        body.update({k: v for k, v in other.items() if v is not None})
        job_id = c.start(body)
        job = Job.from_json(job_id, c.wait(job_id, poll))
        if job.status != "completed":
            raise SledgeError("build job %s %s: %s" % (job_id, job.status, job.error or "see its output"), job_id=job_id)
        return job

    opts = {"db": db, "warehouses": None if tproch else warehouses, "workers": workers,
            "workload": workload, "scale": scale}
    opts.update(other)
    job_id = _spawn_job(["build"] + _flags(opts), _BUILD_LINE, "build", binary, repo, quiet)
    raw = call_json(["jobs", "show", job_id, "status"], binary=binary, repo=repo)
    return Job.from_json(job_id, raw)
