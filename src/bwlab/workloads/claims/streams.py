"""The null-stream claim, measured with the streams workload's own scenario (the one `bwlab streams
--only null-stream` runs): spin kernels that stamp their start and end on the GPU's clock, K1 on
a blocking stream, K2 on the legacy default (null) stream, K3 and K4 on a second blocking
stream; and the same without K2. The overlaps and gaps come from the scenario's own arithmetic;
the rule reads them with the thresholds `bwlab streams` uses. Several passes, median of each
number."""
from __future__ import annotations

import statistics

from ..streams.scenarios import SOURCE, scenario
from ..streams import analysis as A
from .claim import DEPENDS, FAILS, HOLDS, Bars, Claim, Kernels, Verdict, pct, x

TOPIC = "notes on streams"
SCENARIO = "null-stream"
KERNEL_US, SMALL_KERNEL_US = 2000.0, 200.0   # how long each kernel spins
PASSES, SMALL_PASSES = 5, 2
KEYS = ("overlap_k1_k2", "overlap_k2_k3", "gap_k1_k2_us", "gap_k2_k3_us", "overlap_k1_k3_without_null",
        "span_with_null_us", "span_without_null_us")


def measure(ctx) -> dict:
    s = scenario(SCENARIO)
    kernel_us = SMALL_KERNEL_US if ctx.small else KERNEL_US
    passes = SMALL_PASSES if ctx.small else PASSES
    rows = []
    for p in range(passes):
        cases = ctx.timelines(s.cases(), kernel_us)
        v = s.verdict(cases, {"kernel_us": kernel_us})
        ctx.require(f"null-stream timelines, pass {p + 1}", v["holds"] is not None, v["text"])
        rows.append(v["numbers"])
    out = {k: statistics.median(float(r[k]) for r in rows) for k in KEYS}
    for c in cases:  # the last pass, one record per case
        ctx.record(f"{SCENARIO}: {c['label']}", family="timeline", shape=(len(c["ops"]),),
                   notes=[f"span {c['metrics']['span_us']:.0f} us, {c['metrics']['peak_concurrency']} kernels at "
                          f"once at most (last of {passes} passes)"],
                   check="every block stamped its start and end", block=(c["metrics"]["threads_per_block"], 1),
                   grid=(c["metrics"]["blocks_per_kernel"], 1))
    out.update(kernel_us=kernel_us, passes=passes)
    return out


def decide(n: dict) -> Verdict:
    o12, o23, o13 = n["overlap_k1_k2"], n["overlap_k2_k3"], n["overlap_k1_k3_without_null"]
    g12, g23 = n["gap_k1_k2_us"], n["gap_k2_k3_us"]
    span, free = n["span_with_null_us"], n["span_without_null_us"]
    serial = max(o12, o23) <= A.SERIAL_MAX and min(g12, g23) >= -A.TOL_US
    together = o13 >= A.CONCURRENT_MIN
    text = (f"Kernels of {n['kernel_us'] / 1e3:.1f} ms each, times from the GPU's clock (medians of "
            f"{n['passes']:.0f} passes): K1 on blocking stream1, K2 on the legacy default stream, K3 and K4 on "
            f"blocking stream2. K2 started {g12:.1f} us after K1 ended and K3 {g23:.1f} us after K2 ended "
            f"(overlaps {pct(o12)} and {pct(o23)} of the shorter kernel); all four took {span / 1e3:.2f} ms. "
            f"Without K2, K1 and K3 overlapped {pct(o13)}, and the three took {free / 1e3:.2f} ms: K2 on the null "
            f"stream made the sequence {x(span / free)} as long.")
    if not serial:
        return Verdict(FAILS, text + " The null-stream kernel ran beside the blocking streams' kernels: it did not "
                                     "wait for them, or they did not wait for it.")
    if together:
        return Verdict(HOLDS, text)
    return Verdict(DEPENDS, text + " Without the null-stream kernel K1 and K3 did not run at once either, so this "
                                   "GPU does not show what the null stream takes away.",
                   "whether kernels of different streams run at once on this GPU in the first place")


CLAIMS = (
    Claim("null-stream", "streams", TOPIC,
          "The legacy default stream waits for, and blocks, every blocking stream, so kernels around it run one "
          "after another.",
          f"The null-stream scenario of `bwlab streams`: single-block kernels that spin for {KERNEL_US / 1e3:.0f} ms "
          "and stamp their start and end on the GPU's clock, K1 on blocking stream1, K2 on the legacy default (null) "
          "stream, K3 and K4 on blocking stream2, issued in that order; then the same without K2. Overlap = time "
          "two kernels ran together over the shorter one's duration; 'one after another' = overlaps of at most "
          f"{A.SERIAL_MAX:.0%} and no start more than {A.TOL_US:.0f} us before the previous end; 'at once' = an "
          f"overlap of at least {A.CONCURRENT_MIN:.0%}. {PASSES} passes, median of each number.",
          measure, decide, kernels=(Kernels(SOURCE, ("spin",)),),
          charts=(Bars("time from the first start to the last end", "us",
                       (("K1, K2 (null stream), K3, K4", "span_with_null_us"),
                        ("K1, K3, K4 (no null-stream kernel)", "span_without_null_us"))),)),
)
