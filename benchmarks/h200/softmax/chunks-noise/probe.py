"""Where do [4, 32768, 1024] colsChunks' slow repetitions come from? The public softmax timed as
the bench times it (an event pair around each call, calls queued back to back), in rounds of 200
calls, while `nvidia-smi` samples the SM clock, power and throttle reasons every 10 ms in the
background; per round, the calls' times beside the lowest clock and the throttle reasons seen
during it. Mode "queued": the GPU is first held by a sleep kernel, so that every call of the round
is queued before the first runs (no gap from the host between them).
Run from the repository root: `PYTHONPATH=src python3 benchmarks/h200/softmax/chunks-noise/probe.py`."""
import csv
import statistics
import subprocess
import tempfile
import time

import torch

import bwlab

CASES = [("bfloat16", False), ("bfloat16", True), ("float32", False)]
DT = {"float32": torch.float32, "bfloat16": torch.bfloat16}
ROUNDS, CALLS, SLOW = 6, 200, 1.15  # a call is slow above 1.15x the round's fastest


def sampler(path):
    q = "timestamp,clocks.sm,clocks.mem,power.draw,clocks_throttle_reasons.active,temperature.gpu"
    return subprocess.Popen(["nvidia-smi", f"--query-gpu={q}", "--format=csv,noheader,nounits", "-lms", "10"],
                            stdout=open(path, "w"), stderr=subprocess.DEVNULL)


def rnd(fn, queued):
    ev = [(torch.cuda.Event(enable_timing=True), torch.cuda.Event(enable_timing=True)) for _ in range(CALLS)]
    torch.cuda.synchronize()
    t0 = time.time()
    if queued:
        torch.cuda._sleep(200_000_000)  # about 0.1 s at 1.98 GHz: the host queues every call meanwhile
    for a, b in ev:
        a.record()
        fn()
        b.record()
    torch.cuda.synchronize()
    return t0, time.time(), [a.elapsed_time(b) for a, b in ev]


def main():
    log = tempfile.NamedTemporaryFile(suffix=".csv", delete=False).name
    proc = sampler(log)
    time.sleep(0.5)
    rows = []
    g = torch.Generator(device="cuda").manual_seed(0)
    for d, lg in CASES:
        x = torch.randn(4, 32768, 1024, device="cuda", generator=g).to(DT[d])
        out = torch.empty_like(x)
        fn = lambda: bwlab.softmax(x, 1, log=lg, out=out)  # noqa: E731
        for _ in range(3):
            fn()
        for r in range(ROUNDS):
            for queued in (False, True):
                t0, t1, ms = rnd(fn, queued)
                rows.append((d, lg, r, queued, t0, t1, ms))
        x = out = None
        torch.cuda.empty_cache()
    time.sleep(0.2)
    proc.terminate()
    proc.wait()
    samples = []
    for rec in csv.reader(open(log)):
        try:
            ts = time.mktime(time.strptime(rec[0].strip().split(".")[0], "%Y/%m/%d %H:%M:%S")) + \
                float("0." + rec[0].strip().split(".")[1])
            samples.append((ts, float(rec[1]), float(rec[2]), float(rec[3]), rec[4].strip(), float(rec[5])))
        except (ValueError, IndexError):
            pass
    print(f"{'dtype':9} {'op':4} {'round':5} {'queued':6} {'min ms':>7} {'median':>7} {'max':>7} {'slow':>4} "
          f"{'SM MHz min-max':>15} {'W max':>6} {'temp':>4} throttle reasons (nvidia-smi bit masks)")
    for d, lg, r, queued, t0, t1, ms in rows:
        inside = [s for s in samples if t0 - 0.01 <= s[0] <= t1 + 0.01]
        fast = min(ms)
        slow = sum(m > SLOW * fast for m in ms)
        clk = f"{min(s[1] for s in inside):.0f}-{max(s[1] for s in inside):.0f}" if inside else "-"
        pw = f"{max(s[3] for s in inside):.0f}" if inside else "-"
        tp = f"{max(s[5] for s in inside):.0f}" if inside else "-"
        reasons = ",".join(sorted({s[4] for s in inside})) if inside else "-"
        print(f"{d:9} {'log' if lg else 'fwd':4} {r:5d} {str(queued):6} {fast:7.4f} {statistics.median(ms):7.4f} "
              f"{max(ms):7.4f} {slow:4d} {clk:>15} {pw:>6} {tp:>4} {reasons}", flush=True)
    print(f"\n{len(samples)} samples of nvidia-smi; a call is slow above {SLOW}x the round's fastest")


if __name__ == "__main__":
    main()
