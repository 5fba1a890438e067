"""bfloat16 log-softmax with its sum kept 2^16 larger (Forward<true,true>, bias.patch: terms and
rescales down to 2^-142 kept, where ex2 flushed them below 2^-126) against the kernels before it
(Forward<true>), for the dispatch's kernel of each case: the tree before is this tree's kernels folder
with bias.patch taken out again, in a temporary folder. float32 cases: the same kernel both ways
(Forward<true> is unchanged), a control of the timing.
Each form is checked first (../stored-terms/probe.py's bad_count, inputs of sigma 1), then both are
timed alternately, ROUNDS rounds (events around batches of 8 calls, the median of 9 batches), beside
a copy of the same bytes. From this folder: PYTHONPATH=../../../../src python3 ab.py [PATCH]
PATCH (default bias.patch): the kernels' change taken out for the form before. With bias64.patch (applied
to the tree), "before" is the 2^16 form and "after" the 2^64 one, both Forward<true,true>."""
import dataclasses
import re
import shutil
import statistics
import sys
import tempfile
from pathlib import Path

import torch

import bwlab
from bwlab.workloads.softmax import calls, plans
from bwlab.workloads.softmax.launch import runner

HERE = Path(__file__).resolve().parent
sys.path.insert(0, str(HERE.parent / "stored-terms"))
from probe import DT, bad_count, timed  # noqa: E402

CASES = [("bfloat16", (16, 8192, 1024), 1), ("bfloat16", (8192, 8192), 0), ("bfloat16", (4, 32768, 1024), 1),
         ("bfloat16", (8192, 16, 1024), 1), ("bfloat16", (1024, 131072), -1), ("bfloat16", (4096, 262144), -1),
         ("bfloat16", (64, 4194304), -1), ("bfloat16", (32768, 4096), -1), ("bfloat16", (128, 1024, 1024), 2),
         ("float32", (16, 8192, 1024), 1)]
ROUNDS = 3
PATCH = sys.argv[1] if len(sys.argv) > 1 else "bias.patch"


def unpatched(kernels: Path) -> Path:
    """A copy of `kernels` with PATCH's hunks reversed."""
    out = Path(tempfile.mkdtemp()) / "kernels"
    shutil.copytree(kernels, out)
    for part in re.split(r"^diff --git ", (HERE / PATCH).read_text(), flags=re.M)[1:]:
        name = re.search(r"^\+\+\+ b/(\S+)", part, re.M).group(1).split("/")[-1]
        path = out / name
        text = path.read_text()
        for hunk in re.split(r"^@@.*@@.*\n", part, flags=re.M)[1:]:
            lines = [ln for ln in hunk.splitlines() if ln[:1] in (" ", "+", "-")]
            new = "".join(ln[1:] + "\n" for ln in lines if ln[0] in " +")
            old = "".join(ln[1:] + "\n" for ln in lines if ln[0] in " -")
            assert text.count(new) == 1, (name, new[:80])
            text = text.replace(new, old)
        path.write_text(text)
    return out


def main():
    old_dir = unpatched(plans.KERNELS)
    print(f"{'dtype':8s} {'shape':18s} {'dim':>3s} {'kernel':12s} {'bad':>7s} {'before %copy':>12s} "
          f"{'after %copy':>12s}  rounds before | after")
    for dt, shape, dim in CASES:
        d = dim % len(shape)
        N = M = 1
        for s in shape[:d]:
            N *= s
        for s in shape[d + 1:]:
            M *= s
        p = plans.Problem(N, shape[d], M, dt, "forward", True)
        new = calls.plan_for(p, 0).choice
        was = {f: getattr(new, f).replace("Forward<true,true>", "Forward<true>")
               for f in ("expression", "finish", "merge") if getattr(new, f) and PATCH == "bias.patch"}
        old = dataclasses.replace(new, source=old_dir / new.source.name, **was)
        forms = {"before": calls.Plan(old, runner(old, N, shape[d], M, 0)),
                 "after": calls.Plan(new, runner(new, N, shape[d], M, 0))}
        g = torch.Generator(device="cuda").manual_seed(1)
        x = torch.randn(shape, device="cuda", generator=g).to(DT[dt])
        out = torch.empty_like(x)
        bad = {}
        for k, plan in forms.items():
            calls._plans[(p, 0)] = plan
            out.fill_(float("nan"))
            bwlab.softmax(x, dim, log=True, out=out)
            torch.cuda.synchronize()
            bad[k] = bad_count(out, x, dim, True)
        moved = 2 * x.numel() * x.element_size()
        src = torch.empty(moved // 2, dtype=torch.uint8, device="cuda")
        dst = torch.empty_like(src)
        ms = {k: [] for k in forms}
        cms = []
        for _ in range(ROUNDS):
            for k, plan in forms.items():
                calls._plans[(p, 0)] = plan
                ms[k].append(timed(lambda: bwlab.softmax(x, dim, log=True, out=out), reps=9, batch=8))
            cms.append(timed(lambda: dst.copy_(src), reps=9, batch=8))
        c = statistics.median(cms)
        pct = {k: [100 * c / v for v in ms[k]] for k in ms}
        print(f"{dt:8s} {str(list(shape)):18s} {dim:3d} {new.kernel:12s} {bad['before']:3d} {bad['after']:3d} "
              f"{statistics.mean(pct['before']):12.1f} {statistics.mean(pct['after']):12.1f}  "
              + " ".join(f"{v:.1f}" for v in pct["before"]) + " | " + " ".join(f"{v:.1f}" for v in pct["after"]),
              flush=True)
        calls._plans.clear()
        del x, out, src, dst
        torch.cuda.empty_cache()


if __name__ == "__main__":
    main()
