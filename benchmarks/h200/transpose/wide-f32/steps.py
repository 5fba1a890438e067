"""widePerm<4,S,K,...> for S = 9 to 16, where plans.perm_steps gives K = 4 (from a sweep of 1-byte
elements; 4-byte elements took it before this probe): K = 2 with whole-line loads (k2), K = 4 with them
(k4: NVRTC 13.5 spills 16 bytes at 13 rows) and with plain loads (k4p), beside skinnyTile's wide tile
(tile), at odd long sides and at rows in whole vectors, 256 MiB, ROUNDS rounds alternately. Every
expression first checked bit-exact at long sides 1 to 200003 (probe.py's LONGS), every timed output
against CuPy's transpose. From the repository root:
`PYTHONPATH=src python3 benchmarks/h200/transpose/wide-f32/steps.py [ROUNDS]`; `--warm`: compile only."""
import statistics
import sys
from concurrent.futures import ProcessPoolExecutor

from probe import LONGS, matrix
from probe import choice as probe_choice

SIDES = (9, 12, 13, 14, 16)
FORMS = {"k2": "widePerm<4,{},2,true>", "k4": "widePerm<4,{},4,true>", "k4p": "widePerm<4,{},4,false>"}


def _compile(expr):
    from bwlab.core import build
    from bwlab.workloads.transpose import plans
    r = build.compile_source(plans.SKINNYPERM, [expr], "sm_90").resources[expr]
    return f"# {r.registers:4} regs {r.spill_stores:3} spill {expr}"


def main(rounds):
    import cupy

    from bwlab.core import timing
    from bwlab.workloads.transpose import calls, plans
    from forced import check_forced

    # the launch geometry counts each warp's K steps from plans.perm_steps_of: K of the expression launched
    # (the recorded run, on the tree before perm_steps_of, patched plans.perm_steps the same way)
    steps = plans.perm_steps_of
    plans.perm_steps_of = lambda itemsize, short: int(current[0].split(",")[2]) if current else steps(itemsize, short)
    current = []

    def choice(expr):
        current[:] = [expr]
        calls._plans.clear()
        return probe_choice(expr)

    for s in SIDES:
        for f in FORMS.values():
            for n in LONGS:
                check_forced(choice(f.format(s)), s, n, "u4", seed=7919 * s + n)
    print("# forced checks passed (bit-exact, output poisoned)", flush=True)
    stream = cupy.cuda.get_current_stream()
    tile = plans.Choice("wide-tile", 4, plans.SKINNYTILE, "skinnyTile<4,false>", plans.SKINNYTILE_THREADS)
    rows = {}
    for aligned in (False, True):
        for s in SIDES:
            n, x, want, out = matrix(s, aligned)
            runs = {lab: choice(f.format(s)) for lab, f in FORMS.items()}
            runs["tile"] = tile
            def launch(ch):
                if ch.kind == "wide-perm":
                    current[:] = [ch.expression]
                calls.launch(ch, x.data.ptr, out.data.ptr, 1, s, n, x.nbytes, x.device.id, stream.ptr)

            for lab, ch in runs.items():
                out.fill(0xA5A5A5A5)
                launch(ch)
                assert bool((out == want).all()), (lab, s, n)
            for r in range(rounds):
                copy = timing.time_gpu(lambda: cupy.cuda.runtime.memcpyAsync(
                    out.data.ptr, x.data.ptr, x.nbytes, 3, stream.ptr), warmup=5, reps=50).median_ms
                for lab, ch in runs.items():
                    t = timing.time_gpu(lambda ch=ch: launch(ch), warmup=5, reps=50).median_ms
                    rows.setdefault((aligned, s, lab), []).append(100 * copy / t)
                    print(f"r{r} {s:2}x{n:<9} {lab:4} {100 * copy / t:6.1f}% of a copy", flush=True)
            x = want = out = None
            calls._plans.clear()
            cupy.get_default_memory_pool().free_all_blocks()
    print("# mean of the rounds, % of a copy:   rows   " + "  ".join(f"{lab:>5}" for lab in (*FORMS, "tile")))
    for (aligned, s) in sorted({k[:2] for k in rows}):
        means = [statistics.mean(rows[(aligned, s, lab)]) for lab in (*FORMS, "tile")]
        print(f"# {'aligned' if aligned else 'odd':8} {s:4} " + "  ".join(f"{m:5.1f}" for m in means))


if __name__ == "__main__":
    sys.path.insert(0, "tests/transpose")
    if sys.argv[1:] == ["--warm"]:
        with ProcessPoolExecutor(2) as pool:
            for line in pool.map(_compile, [f.format(s) for s in SIDES for f in FORMS.values()]):
                print(line, flush=True)
        sys.exit()
    main(int(sys.argv[1]) if len(sys.argv) > 1 else 2)
