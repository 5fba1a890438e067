"""rowTwice (a block per row reading it twice, the second time from the L2, as torch.compile's looped
reduction does for these rows; rows.cu) against the dispatch and torch.compile on the last-axis
gradients of rows of 4096, timed as the bench times them (../roof-peers/probe.py: its main, with these
cases): `PYTHONPATH=../../../../src python3 probe.py` (from this folder), on a tree with rowTwice."""
import runpy

from bwlab.workloads.softmax import plans

roof = runpy.run_path("../roof-peers/probe.py", run_name="roof_peers")


def twice(T, K):
    def make(p):
        expr = f"rowTwice<{plans.CTYPE[p.dtype]},{p.vec},{T},{K},{plans.op_type(p)} >"
        return plans.Choice("rowTwice", plans.SRC["rows"], expr, (p.N, 1, 1), (T, 1, 1), why="twice")
    return f"rowTwice T{T} K{K}", make


GEOS = [twice(T, K) for T, K in ((128, 2), (256, 1), (256, 2), (512, 1), (128, 4), (256, 4))]
CASES = [((32768, 4096), d, op, GEOS) for d in ("bfloat16", "float32") for op in ("bwd", "lbwd")]

if __name__ == "__main__":
    roof["main"].__globals__["CASES"] = CASES
    roof["main"]()
