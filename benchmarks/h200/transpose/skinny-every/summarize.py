"""probe.txt -> the mean of the two rounds for each (short side, variant), the dispatch beside the
best forced variant. From this folder: python3 summarize.py probe.txt"""
import sys
from collections import defaultdict

pct = defaultdict(list)
for line in open(sys.argv[1]):
    f = line.split()
    if len(f) >= 7 and f[5].replace(".", "").isdigit():
        pct[(int(f[1].split("x")[1]), f[3])].append(float(f[5]))
sides = sorted({s for s, _ in pct})
print(f"{'cols':>4} {'dispatch':>8} {'reg':>6} {'best forced':>16} {'gain':>5}  all (mean of rounds)")
for s in sides:
    m = {v: sum(p) / len(p) for (t, v), p in pct.items() if t == s}
    best = max((v for v in m if v != "dispatch"), key=m.get)
    print(f"{s:>4} {m['dispatch']:8.1f} {m['reg']:6.1f} {best:>11} {m[best]:4.1f} {m[best] - m['dispatch']:+5.1f}  "
          + " ".join(f"{v}={m[v]:.1f}" for v in m if v not in ("dispatch",)))
