"""sledge.run(iterations=N): an iteration run's spec and result."""
import json

import pytest

import sledge
from test_sledge import RESULT, fake  # noqa: F401  (the fake sledge fixture)


def test_run_iterations_via_binary(fake):  # noqa: F811
    result = dict(RESULT, iterations=500, duration_s=12.5, rampup_s=0)
    fake.rules([
        {"match": ["cli", "job"], "stdout": "SLEDGE-JOB 12 completed\n"},
        {"match": ["jobs", "show", "12", "result"], "stdout": json.dumps(result)},
    ])
    r = sledge.run(vu=2, iterations="500", quiet=True)
    # The spec carries it by its JSON name, as an integer; no duration is sent.
    assert json.loads(fake.calls()[0]["stdin"]) == {"kind": "run", "vu": 2, "iterations": 500}
    assert (r.iterations, r.elapsed_s) == (500, 12.5)


def test_run_timed_has_no_iterations(fake):  # noqa: F811
    fake.rules([
        {"match": ["cli", "job"], "stdout": "SLEDGE-JOB 12 completed\n"},
        {"match": ["jobs", "show", "12", "result"], "stdout": json.dumps(RESULT)},
    ])
    r = sledge.run(quiet=True)
    assert "iterations" not in json.loads(fake.calls()[0]["stdin"])
    assert r.iterations == 0


def test_run_iterations_not_a_number(fake):  # noqa: F811
    with pytest.raises(ValueError):
        sledge.run(iterations="many", quiet=True)
    assert fake.calls() == []
