"""ab.txt's rounds averaged per case: `python3 summary.py > summary.txt` (no GPU)."""
import collections
import statistics

d = collections.defaultdict(list)
order = []
for line in open("ab.txt"):
    f = line.split()
    if len(f) < 9 or f[0] not in ("old", "new"):
        continue
    key = (" ".join(f[1:-6]), f[-6], f[-5])
    if key not in order:
        order.append(key)
    d[key, f[0]].append(float(f[-1]))
print("sigma 3, two rounds alternately (ab.txt): % of a copy, old tree (67427e2) -> new tree "
      "(before the colsRegs change)")
for k in order:
    o, n = d[k, "old"], d[k, "new"]
    print(f"{k[0]:24} {k[1]:9} {k[2]:12} {statistics.mean(o):6.1f} -> {statistics.mean(n):6.1f}  "
          f"({n[0] - o[0]:+.1f}, {n[1] - o[1]:+.1f})")
