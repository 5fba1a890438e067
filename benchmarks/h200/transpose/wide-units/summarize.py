"""Mean of the rounds, % of a copy, per side and variant (an ab*.txt), and each variant's change against
the first variant in the file (base, head). `python3 summarize.py ab-final.txt`."""
import collections
import sys

variants = list(dict.fromkeys(line.split()[0] for line in open(sys.argv[1])
                               if len(line.split()) > 5 and line.split()[5] in ("True", "False")))
rows = collections.defaultdict(list)
kern = {}
order = []
for line in open(sys.argv[1]):
    f = line.split()
    if len(f) < 7 or f[5] not in ("True", "False"):
        continue
    key = (f[1], f[2])
    if key not in order:
        order.append(key)
    rows[(f[0], key)].append(float(f[4]))
    kern[key] = f[6]
print(f"{'shape':14} {'size':4} " + " ".join(f"{v:>13}" for v in variants) + "  kernel")
for key in order:
    base = sum(rows[(variants[0], key)]) / len(rows[(variants[0], key)])
    cells = []
    for v in variants:
        m = sum(rows[(v, key)]) / len(rows[(v, key)])
        cells.append(f"{m:5.1f}" + (f" ({m - base:+4.1f})" if v != variants[0] else " " * 7))
    print(f"{key[0]:14} {key[1]:4} " + " ".join(f"{c:>13}" for c in cells) + f"  {kern[key]}")
