"""Means (and ranges) of % of a copy per case and form in a width.py output:
`python3 summary.py width-RUN.txt`"""
import collections, statistics, sys
d = collections.defaultdict(list)
for line in open(sys.argv[1]):
    f = line.split()
    pct = float(f[-1]); rest = f[1:-4]
    i = next(k for k, t in enumerate(rest) if t in ("float32", "bfloat16"))
    case = " ".join(rest[:i+2]); label = " ".join(rest[i+2:i+4])
    d[(case, label)].append(pct)
for c in dict.fromkeys(c for c, _ in d):
    row = f"{c:34}"
    for (cc, lab), v in d.items():
        if cc == c:
            row += f" | {lab:16} {statistics.mean(v):5.1f} ({min(v):.1f}-{max(v):.1f})"
    print(row)
