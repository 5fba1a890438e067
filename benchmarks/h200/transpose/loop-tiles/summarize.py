"""Mean % of a copy per shape and variant over the rounds of ab.txt (probe.py's lines): the old and new
trees' dispatch, and each skinnyWordsLoop variant, best first. `python3 summarize.py ab.txt`."""
import collections
import sys

runs = collections.defaultdict(list)
ok = True
for line in open(sys.argv[1]):
    f = line.split()
    if len(f) < 7 or f[0] not in ("old", "new"):
        continue
    shape, e = f[1], f[2]
    variant = f[0] if not f[3].startswith("R=") else f"{f[3]} {f[4]}"
    pct = float(f[-3] if variant in ("old", "new") else f[-3])
    ok &= f[-2] == "True"
    runs[(shape, e)].append((variant, pct))
print("every output checked:", ok)
for (shape, e), rows in runs.items():
    by = collections.defaultdict(list)
    for v, p in rows:
        by[v].append(p)
    mean = {v: sum(p) / len(p) for v, p in by.items()}
    loops = sorted((v for v in mean if v not in ("old", "new")), key=lambda v: -mean[v])
    best = f"{loops[0]:>9} {mean[loops[0]]:5.1f}" if loops else ""
    rest = " ".join(f"[{v} {mean[v]:.1f}]" for v in loops[1:])
    print(f"{shape:14} {e} old {mean.get('old', 0):5.1f} new {mean.get('new', 0):5.1f}  loop best {best}  {rest}")
