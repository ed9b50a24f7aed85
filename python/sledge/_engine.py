"""Spawning the Go engine: finding the binary, running it, collecting output.

Everything goes through argv lists (never a shell) and JSON on stdin, so
values with spaces, braces, dollar signs and quotes arrive intact.
"""

import collections
import json
import os
import shutil
import subprocess
import sys
import threading

__all__ = ["SledgeError", "find_binary", "call", "stream"]

# Lines of output kept for the message of a SledgeError.
TAIL_LINES = 20


class SledgeError(Exception):
    """A Sledge command failed: the engine exited non-zero, printed something
    unexpected, the HTTP API answered with an error, or a HammerDB command was
    used out of order (e.g. vurun before vucreate)."""

    def __init__(self, message, *, returncode=None, output=None, job_id=None):
        super().__init__(message)
        self.returncode = returncode
        self.output = output  # the tail of the output, a str (or None)
        self.job_id = job_id


def find_binary(binary=None):
    """The sledge executable: `binary` if given, else $SLEDGE_BIN, else
    `sledge` on PATH."""
    cand = binary or os.environ.get("SLEDGE_BIN") or "sledge"
    if os.sep in cand or (os.altsep and os.altsep in cand):
        if os.path.isfile(cand) and os.access(cand, os.X_OK):
            return cand
        raise SledgeError("sledge binary %r is not an executable file (set $SLEDGE_BIN)" % cand)
    found = shutil.which(cand)
    if not found:
        raise SledgeError(
            "sledge binary %r not found: set $SLEDGE_BIN to its path or put it on PATH" % cand
        )
    return found


def _argv(binary, args, repo):
    argv = [find_binary(binary)]
    if repo:
        argv += ["--repo", os.fspath(repo)]
    return argv + [str(a) for a in args]


def _fail(what, returncode, tail, job_id=None):
    text = "\n".join(tail).rstrip()
    msg = "%s failed (exit status %d)" % (what, returncode)
    if text:
        msg += ":\n" + text
    return SledgeError(msg, returncode=returncode, output=text, job_id=job_id)


def call(args, *, binary=None, repo=None, stdin=None):
    """Run sledge ARGS to completion, capturing its output; returns stdout.
    Raises SledgeError with the tail of the output on a non-zero exit."""
    argv = _argv(binary, args, repo)
    try:
        p = subprocess.run(
            argv,
            input=stdin if stdin is not None else "",
            stdout=subprocess.PIPE,
            stderr=subprocess.PIPE,
            encoding="utf-8",
            errors="replace",
        )
    except OSError as e:
        raise SledgeError("cannot start %s: %s" % (argv[0], e)) from e
    if p.returncode != 0:
        tail = p.stdout.splitlines()[-TAIL_LINES:] + p.stderr.splitlines()[-TAIL_LINES:]
        raise _fail("sledge " + " ".join(str(a) for a in args), p.returncode, tail)
    return p.stdout


def call_json(args, **kw):
    out = call(list(args) + ["--format", "json"], **kw)
    try:
        return json.loads(out)
    except ValueError as e:
        raise SledgeError(
            "sledge %s: output is not JSON: %s\n%s" % (" ".join(map(str, args)), e, out[-2000:]),
            output=out,
        ) from e


def stream(args, *, binary=None, repo=None, stdin=None, echo=True, on_line=None, what=None):
    """Run sledge ARGS, writing STDIN to it, echoing each stdout line to
    sys.stdout as it arrives (when echo) and stderr lines to sys.stderr.

    on_line(line) is called for every stdout line (without its newline).
    Returns (returncode, stdout_lines, tail) where tail is the last lines of
    stdout followed by the last lines of stderr. Does not raise on a non-zero exit."""
    argv = _argv(binary, args, repo)
    try:
        p = subprocess.Popen(
            argv,
            stdin=subprocess.PIPE,
            stdout=subprocess.PIPE,
            stderr=subprocess.PIPE,
            encoding="utf-8",
            errors="replace",
            bufsize=1,
        )
    except OSError as e:
        raise SledgeError("cannot start %s: %s" % (argv[0], e)) from e

    # Separate tails: the error is usually on stderr, and the two pipes are
    # read concurrently, so one interleaved tail could lose it.
    out_tail = collections.deque(maxlen=TAIL_LINES)
    err_tail = collections.deque(maxlen=TAIL_LINES)

    def feed():
        try:
            if stdin:
                p.stdin.write(stdin)
            p.stdin.close()
        except (BrokenPipeError, OSError, ValueError):
            pass  # the engine exited without reading; its exit status says why

    def drain_err():
        for line in p.stderr:
            line = line.rstrip("\r\n")
            err_tail.append(line)
            try:
                sys.stderr.write(line + "\n")
                sys.stderr.flush()
            except (OSError, ValueError):
                pass

    threads = [threading.Thread(target=feed, daemon=True), threading.Thread(target=drain_err, daemon=True)]
    for t in threads:
        t.start()
    lines = []
    try:
        for line in p.stdout:
            line = line.rstrip("\r\n")
            lines.append(line)
            out_tail.append(line)
            if echo:
                sys.stdout.write(line + "\n")
                sys.stdout.flush()
            if on_line is not None:
                on_line(line)
        p.wait()
    except KeyboardInterrupt:
        # The engine, in our process group, got the SIGINT too: give it a
        # moment to stop its job cleanly (it records it as interrupted).
        try:
            p.wait(timeout=30)
        except subprocess.TimeoutExpired:
            p.kill()
            p.wait()
        raise
    finally:
        for t in threads:
            t.join(timeout=5)
        for f in (p.stdout, p.stderr):
            try:
                f.close()
            except OSError:
                pass
    return p.returncode, lines, list(out_tail) + list(err_tail)


SledgeError.__module__ = "sledge"  # shown as sledge.SledgeError in tracebacks
