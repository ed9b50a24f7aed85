"""Sledge from Python: HammerDB-style commands and a small Pythonic API.

Nothing here generates load: every action runs the Go engine, by spawning the
sledge binary ($SLEDGE_BIN, else `sledge` on PATH) or, for run()/build() with
server=, through a `sledge serve` HTTP API.

    import sledge
    r = sledge.run(db="postgres://tpcc:tpcc@localhost/tpcc", vu=8, duration="5m")
    print(r.nopm, r.tpm)

    from sledge.hammerdb import *      # dbset, diset, vuset, vucreate, vurun, jobs, ...
"""

from ._engine import SledgeError
from .api import Job, Result, build, result, run
from .hammerdb import *  # noqa: F401,F403 - the HammerDB commands
from .hammerdb import __all__ as _hammerdb_all
from .hammerdb import printdict, reset, session
from .session import Session

__version__ = "0.1.0"

__all__ = ["SledgeError", "Session", "Result", "Job", "run", "build", "result", "session", "reset", "printdict"] + list(
    _hammerdb_all
)
