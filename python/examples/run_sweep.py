"""A HammerDB-style virtual-user sweep: 1, 2 and 4 VUs on 2 warehouses.

Run it with the HammerDB commands pre-imported (`sledge cli py auto
run_sweep.py`, or `python -m sledge run_sweep.py`) or as a plain Python
script: the import below makes it work either way. The connection settings
come from the engine's defaults; set them with diset('connection', ...).
"""

import re

from sledge.hammerdb import *  # noqa: F401,F403

dbset('db', 'pg')
dbset('bm', 'TPROC-C')
diset('tpcc', 'pg_count_ware', 2)
results = {}
for z in (1, 2, 4):
    vuset('vu', z)
    vucreate()
    jobid = vurun()
    vudestroy()
    # HammerDB's shape: [id, timestamp, "N Active Virtual Users configured",
    # "TEST RESULT : System achieved N NOPM from M PostgreSQL TPM"]
    line = jobs(jobid, 'result')[-1]
    nopm = int(re.search(r"achieved (\d+) NOPM", line).group(1))
    results[z] = nopm

print("VUs  NOPM")
for z, nopm in results.items():
    print("%3d  %s" % (z, nopm))
