"""ab.txt -> the mean of the two rounds of each tree for each shape, new minus old, % of a copy.
From this folder: python3 summarize.py ab.txt"""
import sys
from collections import defaultdict

pct, kernel = defaultdict(list), {}
for line in open(sys.argv[1]):
    f = line.split()
    if len(f) >= 6 and f[0] in ("old", "new"):
        pct[(f[1], f[2], f[0])].append(float(f[4]))
        kernel[(f[1], f[2])] = f[-1]
shapes = sorted({(s, e) for s, e, _ in pct}, key=lambda t: (t[1], int(t[0].split("x")[1])))
print(f"{'shape':>14} {'E':>2} {'old':>6} {'new':>6} {'diff':>5}  kernel")
for s, e in shapes:
    old, new = (sum(pct[(s, e, t)]) / len(pct[(s, e, t)]) for t in ("old", "new"))
    print(f"{s:>14} {e:>2} {old:6.1f} {new:6.1f} {new - old:+5.1f}  {kernel[(s, e)]}")
