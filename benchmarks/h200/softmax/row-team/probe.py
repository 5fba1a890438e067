"""rowTeam beside the dispatch on long last-axis rows (run from this folder as
`PYTHONPATH=../../../../src python3 probe.py`): rowStream's kernel with a row's blocks meeting
through global memory instead of a cluster, so a row may span any number of blocks (up to every
block the GPU holds at once) and teams are not bound to a GPC. Each geometry's output, poisoned
first, is checked against a float64 reference, then timed beside a device-to-device copy of the
same bytes (../meet-tree/probe.py's loop). G teams of T blocks are launched only where the GPU
holds all G * T blocks at once (a block waits for the other blocks of its row)."""
import ctypes
import sys

import torch

import bwlab
from bwlab.core import launch as core_launch
from bwlab.workloads.softmax import plans
from bwlab.workloads.softmax.launch import _function

sys.path.insert(0, "../meet-tree")
from probe import columns, measure  # noqa: E402

THREADS, K, S = 512, 8, 4
CASES = [((64, 4194304), "float32"), ((64, 4194304), "bfloat16"), ((4096, 262144), "float32"),
         ((4096, 262144), "bfloat16"), ((1024, 131072), "float32")]
DT = {"float32": torch.float32, "bfloat16": torch.bfloat16}
# `python3 probe.py more`: float32 rows of 5, 6 and 12 blocks and few rows, the dispatch (teams)
# beside the kernel the row takes without teams, both through the API's launch path
MORE = [((2048, 81920), "float32"), ((1024, 98304), "float32"), ((512, 196608), "float32"),
        ((8, 262144), "float32"), ((32, 262144), "float32"), ((8, 131072), "float32"), ((64, 131072), "float32")]


def without_teams(x, out, log):
    """The API's launch of the kernel the row takes without teams (its workspace allocated once)."""
    from bwlab.workloads.softmax import calls

    N, L = x.shape
    plan = calls.plan_for(plans.Problem(N, L, 1, "float32", "forward", log), 0, teams=False)
    ws = torch.empty(max(1, plan.choice.workspace_bytes), dtype=torch.uint8, device="cuda")
    s = torch.cuda.current_stream().cuda_stream
    return plan.choice.kernel, lambda: plan.run(x.data_ptr(), 0, out.data_ptr(), ws.data_ptr(), s)


def resident(fn, smem):
    """Blocks of fn an SM holds at once (the driver's occupancy)."""
    lib = core_launch._driver()
    n = ctypes.c_int(0)
    lib.cuOccupancyMaxActiveBlocksPerMultiprocessor.argtypes = [ctypes.POINTER(ctypes.c_int), ctypes.c_void_p,
                                                                ctypes.c_int, ctypes.c_size_t]
    err = lib.cuOccupancyMaxActiveBlocksPerMultiprocessor(ctypes.byref(n), ctypes.c_void_p(fn.kernel.ptr), THREADS,
                                                          smem)
    assert err == 0, err
    return n.value


def team_call(x, out, log, T, G):
    N, L = x.shape
    ct, v = {"float32": ("float", 4), "bfloat16": ("bf16", 8)}[str(x.dtype).split(".")[1]]
    expr = f"rowTeam<{ct},{v},{THREADS},{K},{S},{plans.OPS['forward', log]} >"
    smem = K * THREADS * 16
    fn = _function(plans.SRC["rowstream"], expr, smem, 0, 1)
    held = resident(fn, smem) * torch.cuda.get_device_properties(0).multi_processor_count
    if G * T > held:
        return None, held
    ws = torch.empty((N + 3) // 4 * 16 + 8 * N * T, dtype=torch.uint8, device="cuda")
    k = core_launch.PackedLaunch(fn, (G * T, 1, 1), (THREADS, 1, 1),
                                 [("ptr", 0), ("ptr", 0), ("ptr", 0), ("ptr", 0), ("i64", N), ("i64", L),
                                  ("i64", T), ("i64", G)], smem)
    s = torch.cuda.current_stream().cuda_stream

    def call():
        core_launch.memset_async(ws.data_ptr(), (N + 3) // 4 * 16, s)
        k.call_at(s, {0: x.data_ptr(), 1: 0, 2: out.data_ptr(), 3: ws.data_ptr()})
    return call, held


# `python3 probe.py ab LABEL`: the dispatch alone on the float32 rows teams take (an A/B of two trees)
AB = [((4096, 262144), "float32"), ((1024, 131072), "float32"), ((2048, 81920), "float32")]
RELAY_AB = [((64, 4194304), "float32"), ((64, 4194304), "bfloat16")]  # `ab LABEL relay`: rowRelay's rows


def main(more=False, ab=None):
    g0 = torch.Generator(device="cuda").manual_seed(0)
    print(f"{'case':18} {'dtype':9} {'op':4} {'kernel':26} {'bad':>4} {'ms':>8} {'GB/s':>6} {'%copy':>6}", flush=True)
    for shape, d in (RELAY_AB if "relay" in sys.argv[3:] else AB) if ab else MORE if more else CASES:
        x = (torch.randn(*shape, device="cuda", generator=g0) * 3).to(DT[d])
        N, L = shape
        T = -(-(L // (16 // x.element_size())) // (THREADS * K))
        for log in (False, True):
            op = "log" if log else "fwd"
            out = torch.full_like(x, float("nan"))
            kern = bwlab.explain_softmax(x, -1, log=log).split(" ")[0]
            variants = [(kern, lambda: bwlab.softmax(x, -1, log=log, out=out))]
            if ab:
                variants = [(f"{ab} {kern}", variants[0][1])]
            if more:
                variants.append(without_teams(x, out, log))
                variants[-1] = (variants[-1][0] + " (no teams)", variants[-1][1])
            _, held = team_call(x, out, log, T, 1 << 30)  # how many blocks the GPU holds at once
            top = min(N, held // T)
            for G in sorted(({1, 2} if top <= 4 else {top // 2}) | {top} if top and not (more or ab) else set()):
                call, _ = team_call(x, out, log, T, G)
                if call is not None:
                    variants.append((f"rowTeam T{T} G{G}", call))
            for label, fn in variants:
                moved = 2 * x.numel() * x.element_size()
                bad, ms, copy = measure(fn, out, x, None, -1, op, moved)
                print(f"{str(list(shape)):18} {d:9} {op:4} {label:26} " + columns(bad, ms, copy, moved), flush=True)
            out = None
        x = None
        torch.cuda.empty_cache()


if __name__ == "__main__":
    main("more" in sys.argv[1:], sys.argv[2] if sys.argv[1:2] == ["ab"] else None)
