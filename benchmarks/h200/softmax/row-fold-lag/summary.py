"""Medians (and ranges) of % of a copy per case and tree in an A/B file, each tree against the first:
`python3 summary.py ab.txt TREE,TREE,...`"""
import collections, statistics, sys
d = collections.defaultdict(list); names={}
trees=sys.argv[2].split(",")
for line in open(sys.argv[1]):
    f = line.split()
    if len(f) < 9 or f[0] not in trees: continue
    k=" ".join(f[1:-5]); d[(k, f[0])].append(float(f[-1])); names[k]=f[-5]
for k in dict.fromkeys(k for k,_ in d):
    row=f"{k:36} {names[k]:10}"
    base=statistics.median(d[(k,trees[0])])
    for t in trees:
        v=d[(k,t)]; m=statistics.median(v)
        row+=f" {t} {m:5.1f}({min(v):4.1f}-{max(v):4.1f})"+("" if t==trees[0] else f"{m-base:+4.1f}")
    print(row)
