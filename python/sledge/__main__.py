"""python -m sledge [SCRIPT [ARGS...]]

Runs a HammerDB-style Python script with the HammerDB commands (dbset, diset,
vuset, vucreate, vurun, jobs, ...) already imported, as `sledge cli py` does;
with no script, an interactive console with them imported.
"""

import code
import runpy
import sys

from . import hammerdb


def main(argv=None):
    argv = list(sys.argv[1:] if argv is None else argv)
    names = {n: getattr(hammerdb, n) for n in hammerdb.__all__}
    names["printdict"] = hammerdb.printdict
    if argv and argv[0] in ("-h", "--help"):
        print(__doc__.strip())
        return 0
    if not argv:
        names["__name__"] = "__console__"
        code.interact(banner="Sledge Python CLI: HammerDB commands are loaded (print_('dict'), vurun(), jobs(), quit())",
                      local=names, exitmsg="")
        return 0
    sys.argv = argv
    runpy.run_path(argv[0], init_globals=names, run_name="__main__")
    return 0


if __name__ == "__main__":
    sys.exit(main())
