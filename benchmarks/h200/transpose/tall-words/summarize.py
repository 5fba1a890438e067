"""Mean % of a copy per case and label over the rounds of an A/B file (../async-tiles/probe.py's measure lines),
the second label against the first: `python3 summarize.py FILE [BASE NEW]` (base and new when not given)."""
import sys
from collections import defaultdict

path = sys.argv[1] if len(sys.argv) > 1 else "ab.txt"
base, new = sys.argv[2:4] if len(sys.argv) > 3 else ("base", "new")
pct, ok = defaultdict(list), True
for line in open(path):
    f = line.split()
    if len(f) >= 7 and f[0] in (base, new):
        pct[(f[1], f[2], f[0])].append(float(f[4]))
        ok &= f[5] == "True"
print(f"{'case':16} {'E':3} {base:>6} {new:>6} {'delta':>6}  (mean % of a copy; rounds: min-max)")
for case, e in sorted({(c, e) for c, e, _ in pct}, key=lambda k: (k[1], min(int(v) for v in k[0].split('x')), k[0])):
    b, n = pct[(case, e, base)], pct[(case, e, new)]
    mb, mn = sum(b) / len(b), sum(n) / len(n)
    spread = f"{min(b):.1f}-{max(b):.1f} / {min(n):.1f}-{max(n):.1f}"
    print(f"{case:16} {e:3} {mb:6.1f} {mn:6.1f} {mn - mb:+6.1f}  ({spread})")
print("every output bit-exact:", ok)
