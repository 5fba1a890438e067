"""rowRelay with its first reads persisting in L2 (run from this folder as `PYTHONPATH=../../../../src
python3 probe.py`). rowRelay reads each chunk twice, the second time a row and some slack later, and
most second reads of a 16 MiB row miss the L2. Here its first reads go under an evict_last L2 policy
(HINT 4; HINT 12 adds evict_first on the second read), and the context's L2 set-aside for persisting
lines (cuCtxSetLimit CU_LIMIT_PERSISTING_L2_CACHE_SIZE) is set to each of several sizes; an
evict_last line stays in that set-aside until newer persisting lines push it out. Each variant goes
through the public API with its plan forced, its output (poisoned first) checked against a float64
reference in the first round of the first set-aside, then timed beside a device-to-device copy of the same bytes
(../meet-tree/probe.py's measure); variants alternate for two rounds at each set-aside. "api" is
the dispatch's own plan (HINT 0)."""
import ctypes
import dataclasses
import sys
from pathlib import Path

import torch

import bwlab
from bwlab.core import launch as core_launch
from bwlab.workloads.softmax import calls, plans
from bwlab.workloads.softmax.launch import runner

sys.path.insert(0, str(Path(__file__).resolve().parent.parent / "meet-tree"))
from probe import columns, measure  # noqa: E402

MiB = 1 << 20
LIMIT, ATTR_MAX = 0x06, 108  # CU_LIMIT_PERSISTING_L2_CACHE_SIZE, CU_DEVICE_ATTRIBUTE_MAX_PERSISTING_L2_CACHE_SIZE
CASES = [((64, 4194304), "float32", "fwd"), ((64, 4194304), "bfloat16", "fwd"), ((64, 4194304), "float32", "log"),
         ((64, 2097152), "float32", "bwd"), ((128, 2097152), "float32", "fwd"), ((256, 1048576), "float32", "fwd")]
DT = {"float32": torch.float32, "bfloat16": torch.bfloat16}


def driver():
    lib = core_launch._driver()
    lib.cuCtxSetLimit.argtypes = [ctypes.c_int, ctypes.c_size_t]
    lib.cuCtxGetLimit.argtypes = [ctypes.POINTER(ctypes.c_size_t), ctypes.c_int]
    lib.cuDeviceGetAttribute.argtypes = [ctypes.POINTER(ctypes.c_int), ctypes.c_int, ctypes.c_int]
    return lib


def set_aside(lib, nbytes):
    """The persisting set-aside as the driver took it (it may round), persisting lines cleared."""
    assert lib.cuCtxSetLimit(LIMIT, nbytes) == 0
    assert lib.cuCtxResetPersistingL2Cache() == 0
    got = ctypes.c_size_t(0)
    assert lib.cuCtxGetLimit(ctypes.byref(got), LIMIT) == 0
    return got.value


def hinted(p, hint):
    c = plans.row_relay(p)
    return dataclasses.replace(c, expression=c.expression.replace(" >", f",{hint}>"))


def main():
    torch.zeros(1, device="cuda")  # a current context
    lib = driver()
    top = ctypes.c_int(0)
    assert lib.cuDeviceGetAttribute(ctypes.byref(top), ATTR_MAX, 0) == 0
    print(f"max persisting L2 set-aside: {top.value / MiB:.1f} MiB", flush=True)
    sizes = sorted({0, 16 * MiB, 32 * MiB, top.value})
    g0 = torch.Generator(device="cuda").manual_seed(0)
    print(f"{'case':18} {'dtype':9} {'op':4} {'set-aside':>9} {'kernel':24} {'bad':>4} {'ms':>8} {'GB/s':>6} "
          f"{'%copy':>6}", flush=True)
    for shape, d, op in CASES:
        N, L = shape
        x = (torch.randn(*shape, device="cuda", generator=g0) * 3).to(DT[d])
        g = torch.randn(*shape, device="cuda", generator=g0).to(DT[d]) if op == "bwd" else None
        if op == "bwd":
            x = torch.softmax(x.float(), -1).to(DT[d])
        log = op == "log"
        p = plans.Problem(N, L, 1, d, "backward" if op == "bwd" else "forward", log)
        out = torch.empty_like(x)

        def call():
            if op == "bwd":
                return bwlab.softmax_backward(x, g, dim=-1, out=out)
            return bwlab.softmax(x, -1, log=log, out=out)
        moved = (3 if op == "bwd" else 2) * x.numel() * x.element_size()
        todo = [("api", None), ("hint 4", hinted(p, 4)), ("hint 12", hinted(p, 12))]
        for size in sizes:
            got = set_aside(lib, size)
            for rnd in (1, 2):
                for label, c in todo:
                    calls._plans.clear()
                    if c is not None:
                        calls._plans[(p, 0)] = calls.Plan(c, runner(c, N, L, 1, 0))
                    bad, ms, copy = measure(call, out, x, g, -1, op, moved, check=rnd == 1 and size == sizes[0])
                    assert list(calls._plans) == [(p, 0)], "the plan ran was not the one cached"
                    print(f"{str(list(shape)):18} {d:9} {op:4} {got / MiB:8.1f}M {label + f' #{rnd}':24} "
                          + columns(bad, ms, copy, moved), flush=True)
                calls._plans.clear()
        set_aside(lib, 0)
        x = g = out = None
        torch.cuda.empty_cache()


if __name__ == "__main__":
    main()
