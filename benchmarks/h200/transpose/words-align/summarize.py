"""Means of the rounds per (element size, short side) of a words-align probe file: the dispatch, the
best variant and each variant's difference from the dispatch. python3 summarize.py probe.txt"""
import collections
import sys


def table(path):
    d = collections.defaultdict(list)
    for line in open(path):
        f = line.split()
        if f and not f[0].startswith("#"):
            assert f[6] == "True", line
            d[(int(f[2][:-1]), int(f[1].split("x")[1]), f[0])].append(float(f[5]))
    return {k: sum(v) / len(v) for k, v in d.items()}


if __name__ == "__main__":
    m = table(sys.argv[1])
    for e, s in sorted({k[:2] for k in m}):
        a = m[(e, s, "disp")]
        rest = {v: p for (e2, s2, v), p in m.items() if (e2, s2) == (e, s) and v != "disp"}
        best = max(rest, key=rest.get)
        print(f"{e}B {s:2} disp {a:5.1f}  best {best:4} {rest[best]:5.1f} ({rest[best] - a:+4.1f})  "
              + " ".join(f"{v}:{p - a:+.1f}" for v, p in sorted(rest.items())))
