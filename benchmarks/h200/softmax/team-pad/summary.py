import re, collections, sys
d = collections.defaultdict(lambda: collections.defaultdict(list))
order=[]
for f in sys.argv[1:]:
  for l in open(f):
    m = re.match(r"(old|new)\s+(\[[^\]]+\])\s+(\w+)\s+(\w+)\s+(\w+)\s+(-?\d+)\s+([\d.]+)\s+(\d+)\s+([\d.]+)", l)
    if m:
        t, sh, dt, op, k, bad, ms, gb, pc = m.groups()
        key=(sh, dt, op, k)
        if key not in order: order.append(key)
        d[key][t].append(float(pc))
        if int(bad) > 0: print("BAD", l)
for k in order:
    v=d[k]; o, n = v['old'], v['new']
    print(f"{k[3]:11} {k[0]:18} {k[1]:9} {k[2]}  old {' '.join(f'{x:5.1f}' for x in o)}  new {' '.join(f'{x:5.1f}' for x in n)}  diff {sum(n)/len(n)-sum(o)/len(o):+5.1f}")
