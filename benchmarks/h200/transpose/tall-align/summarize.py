"""Means of the rounds per (element size, short side) of a tall-align probe file: each variant beside
the dispatch. python3 summarize.py every.txt"""
import collections
import sys

VARIANTS = ("disp", "H1", "H16", "G16")


def table(path):
    d = collections.defaultdict(list)
    for line in open(path):
        f = line.split()
        if f and f[0] in VARIANTS:
            assert f[6] == "True", line
            d[(int(f[2][:-1]), int(f[1].split("x")[1]), f[0])].append(float(f[5]))
    return {k: sum(v) / len(v) for k, v in d.items()}


if __name__ == "__main__":
    m = table(sys.argv[1])
    names = [v for v in VARIANTS[1:] if any(k[2] == v for k in m)]
    for e in sorted({k[0] for k in m}):
        sides = sorted({k[1] for k in m if k[0] == e})
        print(f"# {e}-byte elements: side, disp, then each variant (minus disp)")
        for s in sides:
            a = m[(e, s, "disp")]
            rest = "  ".join(f"{v} {m[(e, s, v)]:5.1f} ({m[(e, s, v)] - a:+4.1f})" for v in names if (e, s, v) in m)
            print(f"{e:2}B {s:2} disp {a:5.1f}  {rest}")
