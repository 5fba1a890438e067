"""The stream scenarios: what each one launches (as data the lab interprets), the claim it
tests, and the verdict its measured timeline gives (numbers included).

A case is a dict:
  label     what the case is, in words
  env       environment of the child process it must run in ({} = in the calling process);
            variables CUDA reads when a context is created (CUDA_DEVICE_MAX_CONNECTIONS) or
            CuPy reads at import (CUPY_CUDA_PER_THREAD_DEFAULT_STREAM) need a fresh process
  streams   {label: "blocking" | "non-blocking"}: streams the case creates
  steps     in issue order: ("launch", kernel name, stream, host thread),
            ("record", event, stream, host thread), ("wait", stream, event, host thread).
            A stream is one of `streams`, "null" (the legacy default stream, handle 0) or
            "default" (the process's default stream as CuPy sees it: legacy, or per-thread
            when CUPY_CUDA_PER_THREAD_DEFAULT_STREAM=1)
  blocks    blocks per kernel: an int, or "full" (enough 1024-thread blocks to fill every SM)
  threads   threads per block
The pipeline scenario is a procedure of its own (bwlab.lab.streams.run_pipeline).
"""
from __future__ import annotations

from dataclasses import dataclass
from pathlib import Path
from typing import Callable

from ...core import launch
from . import analysis as A

SOURCE = Path(__file__).parent / "kernels" / "timeline.cu"
KERNELS = ("spin", "fmaChain", "stamp")
SOURCES = {SOURCE: list(KERNELS)}
launch.register(SOURCE, KERNELS)

SPIN_THREADS = 32
CONNECTIONS = (1, 8, 32)
CONNECTION_STREAMS = 16
CONNECTION_KERNELS = ("A", "B", "C")
PTDS_ENV = "CUPY_CUDA_PER_THREAD_DEFAULT_STREAM"
CONN_ENV = "CUDA_DEVICE_MAX_CONNECTIONS"


@dataclass(frozen=True)
class Scenario:
    name: str
    title: str
    claim: str                      # what CUDA's stream semantics say should happen
    cases: Callable[[], list]       # () -> case dicts (empty for the pipeline)
    verdict: Callable[[list, dict], dict]  # (measured cases, scenario data) -> verdict
    grid: tuple[int, int] = (0, 1)  # chart panels: rows x columns (0 rows: one per case)

    @property
    def child(self) -> bool:
        return any(c["env"] for c in self.cases())


def _case(label, streams, steps, env=None, blocks=1, threads=SPIN_THREADS) -> dict:
    steps = [tuple(s) + (0,) * (4 - len(s)) for s in steps]  # host thread 0 unless given
    return {"label": label, "env": dict(env or {}), "streams": dict(streams), "steps": steps, "blocks": blocks,
            "threads": threads}


def _verdict(holds, text, **numbers) -> dict:
    return {"holds": holds, "text": text, "numbers": {k: round(v, 4) if isinstance(v, float) else v
                                                     for k, v in numbers.items()}}


def _failed(cases) -> dict | None:
    bad = [c for c in cases if c.get("error") or not c.get("ops")]
    if bad:
        why = "; ".join(f"{c['label']}: {c.get('error') or 'no timeline'}" for c in bad)
        return _verdict(None, f"not measured: {why}")
    return None


def _by_label(cases) -> dict:
    return {c["label"]: c["ops"] for c in cases}


# --- the legacy null stream between two blocking streams ------------------------------------

THREE = [("launch", "K1", "stream1"), ("launch", "K2", "null"), ("launch", "K3", "stream2"),
         ("launch", "K4", "stream2")]
WITH_NULL = "K2 on the null stream"
WITHOUT_NULL = "without K2"
BLOCKING = {"stream1": "blocking", "stream2": "blocking"}


def _null_cases():
    return [_case(WITH_NULL, BLOCKING, THREE),
            _case(WITHOUT_NULL, BLOCKING, [s for s in THREE if s[1] != "K2"])]


def _null_verdict(cases, data) -> dict:
    if (f := _failed(cases)) is not None:
        return f
    ops = _by_label(cases)
    a, b = ops[WITH_NULL], ops[WITHOUT_NULL]
    o12 = A.overlap_fraction(A.find(a, "K1"), A.find(a, "K2"))
    o23 = A.overlap_fraction(A.find(a, "K2"), A.find(a, "K3"))
    o13 = A.overlap_fraction(A.find(b, "K1"), A.find(b, "K3"))
    g12, g23 = A.gap_us(A.find(a, "K1"), A.find(a, "K2")), A.gap_us(A.find(a, "K2"), A.find(a, "K3"))
    serial = A.serialized(a, ["K1", "K2", "K3", "K4"])
    together = o13 >= A.CONCURRENT_MIN
    holds = serial and together
    text = (f"With K2 on the null stream, K1 -> K2 -> K3 -> K4 ran one after another ("
            f"K2 started {g12:.1f} us after K1 ended, K3 {g23:.1f} us after K2; overlaps {A.pct(o12)} and "
            f"{A.pct(o23)}; span {A.ms(A.span_us(a))}). " if serial else
            f"With K2 on the null stream the kernels were NOT serialized (K1/K2 overlap {A.pct(o12)}, "
            f"K2/K3 {A.pct(o23)}). ")
    text += (f"Without K2, K1 and K3 ran at once: overlap {A.pct(o13)} of the shorter, span "
             f"{A.ms(A.span_us(b))}." if together else
             f"Without K2, K1 and K3 overlapped only {A.pct(o13)}: no concurrency seen.")
    return _verdict(holds, text, overlap_k1_k2=o12, overlap_k2_k3=o23, gap_k1_k2_us=g12, gap_k2_k3_us=g23,
                    overlap_k1_k3_without_null=o13, span_with_null_us=A.span_us(a), span_without_null_us=A.span_us(b))


# --- blocking against non-blocking streams ------------------------------------------------------

NONBLOCKING_LABEL = "non-blocking stream1, stream2"
BLOCKING_LABEL = "blocking stream1, stream2"


def _nb_cases():
    return [_case(BLOCKING_LABEL, BLOCKING, THREE[:3]),
            _case(NONBLOCKING_LABEL, {"stream1": "non-blocking", "stream2": "non-blocking"}, THREE[:3])]


def _three_verdict(cases, serial_label, free_label, free_what) -> dict:
    if (f := _failed(cases)) is not None:
        return f
    ops = _by_label(cases)
    a, b = ops[serial_label], ops[free_label]
    sa = A.serialized(a, ["K1", "K2", "K3"])
    f12 = A.overlap_fraction(A.find(b, "K1"), A.find(b, "K2"))
    f23 = A.overlap_fraction(A.find(b, "K2"), A.find(b, "K3"))
    f13 = A.overlap_fraction(A.find(b, "K1"), A.find(b, "K3"))
    free = min(f12, f23) >= A.CONCURRENT_MIN
    mo, _ = A.max_pair_overlap(a)
    text = (f"{serial_label}: " + ("serialized" if sa else "NOT serialized") +
            f" (largest overlap {A.pct(mo)}, span {A.ms(A.span_us(a))}, peak {A.peak_concurrency(a)} at once). "
            f"{free_label}: " + (f"{free_what} ran at once" if free else "NOT concurrent") +
            f" (K1/K2 {A.pct(f12)}, K2/K3 {A.pct(f23)}, K1/K3 {A.pct(f13)}; span {A.ms(A.span_us(b))}, "
            f"peak {A.peak_concurrency(b)} at once).")
    return _verdict(sa and free, text, serial_max_overlap=mo, overlap_k1_k2=f12, overlap_k2_k3=f23,
                    overlap_k1_k3=f13, span_serial_us=A.span_us(a), span_free_us=A.span_us(b))


def _nb_verdict(cases, data):
    return _three_verdict(cases, BLOCKING_LABEL, NONBLOCKING_LABEL, "K1, K2 (null stream) and K3")


# --- the legacy against the per-thread default stream (fresh processes) ------------------------

LEGACY = "legacy default stream"
PER_THREAD = "per-thread default stream"
_DEFAULT_ENVS = ((LEGACY, {PTDS_ENV: "0"}), (PER_THREAD, {PTDS_ENV: "1"}))


def _default_cases():
    steps = [("launch", "K1", "stream1"), ("launch", "K2", "default"), ("launch", "K3", "stream2")]
    return [_case(label, BLOCKING, steps, env) for label, env in _DEFAULT_ENVS]


def _default_verdict(cases, data):
    return _three_verdict(cases, LEGACY, PER_THREAD, "K1, K2 (default stream) and K3")


def _threads_cases():
    steps = [("launch", "K1", "default", 0), ("launch", "K2", "default", 1)]
    return [_case(label, {}, steps, env) for label, env in _DEFAULT_ENVS]


def _threads_verdict(cases, data):
    if (f := _failed(cases)) is not None:
        return f
    ops = _by_label(cases)
    a, b = ops[LEGACY], ops[PER_THREAD]
    fa = A.overlap_fraction(A.find(a, "K1"), A.find(a, "K2"))
    fb = A.overlap_fraction(A.find(b, "K1"), A.find(b, "K2"))
    holds = fa <= A.SERIAL_MAX and fb >= A.CONCURRENT_MIN
    text = ("Two host threads, one kernel each on the default stream: legacy "
            + ("serialized them" if fa <= A.SERIAL_MAX else "did NOT serialize them") + f" (overlap {A.pct(fa)}, "
            f"span {A.ms(A.span_us(a))}); per-thread " + ("ran them at once" if fb >= A.CONCURRENT_MIN else
                                                           "did NOT run them at once")
            + f" (overlap {A.pct(fb)}, span {A.ms(A.span_us(b))}).")
    return _verdict(holds, text, overlap_legacy=fa, overlap_per_thread=fb, span_legacy_us=A.span_us(a),
                    span_per_thread_us=A.span_us(b))


# --- concurrency needs free resources ---------------------------------------------------------

FULL_LABEL = "two kernels, each filling every SM"


def _full_cases():
    return [_case(FULL_LABEL, BLOCKING, [("launch", "K1", "stream1"), ("launch", "K2", "stream2")],
                  blocks="full", threads=1024)]


def _full_verdict(cases, data):
    if (f := _failed(cases)) is not None:
        return f
    ops = cases[0]["ops"]
    k1, k2 = A.find(ops, "K1"), A.find(ops, "K2")
    f = A.overlap_fraction(k1, k2)
    span, total = A.span_us(ops), A.dur(k1) + A.dur(k2)
    holds = f < 0.5
    text = (f"Two full-GPU kernels on separate streams overlapped {A.pct(f)} of the shorter "
            f"(span {A.ms(span)} against {A.ms(total)} one after the other): "
            + ("streams do not make room that the SMs do not have." if holds else
               "they ran at once more than half the time.")
            + f" K1 used {len(k1.get('sms', []))} SMs, K2 {len(k2.get('sms', []))}.")
    return _verdict(holds, text, overlap=f, span_us=span, serial_us=total)


# --- events and cross-stream waits --------------------------------------------------------------

WAIT = "K2 waits on an event after K1"
NO_WAIT = "no wait"
THREE_STREAMS = {"stream1": "blocking", "stream2": "blocking", "stream3": "blocking"}


def _event_cases():
    return [_case(WAIT, THREE_STREAMS, [("launch", "K1", "stream1"), ("record", "e1", "stream1"),
                                        ("wait", "stream2", "e1"), ("launch", "K2", "stream2"),
                                        ("launch", "K3", "stream3")]),
            _case(NO_WAIT, THREE_STREAMS, [("launch", "K1", "stream1"), ("launch", "K2", "stream2"),
                                           ("launch", "K3", "stream3")])]


def _event_verdict(cases, data):
    if (f := _failed(cases)) is not None:
        return f
    ops = _by_label(cases)
    a, b = ops[WAIT], ops[NO_WAIT]
    g = A.gap_us(A.find(a, "K1"), A.find(a, "K2"))
    f13 = A.overlap_fraction(A.find(a, "K1"), A.find(a, "K3"))
    f12b = A.overlap_fraction(A.find(b, "K1"), A.find(b, "K2"))
    waited, free, control = g >= -A.TOL_US, f13 >= A.CONCURRENT_MIN, f12b >= A.CONCURRENT_MIN
    holds = waited and free and control
    text = ((f"K2 started {g:.1f} us after K1 ended (it waited on the event)" if waited else
             f"K2 started {-g:.1f} us BEFORE K1 ended (the wait did not hold)")
            + f", while K3 on a third stream overlapped K1 {A.pct(f13)}: the wait orders only those two streams. "
            f"Without the wait K1 and K2 overlapped {A.pct(f12b)}.")
    return _verdict(holds, text, gap_k1_k2_us=g, overlap_k1_k3=f13, overlap_k1_k2_without_wait=f12b)


# --- hardware work queues: CUDA_DEVICE_MAX_CONNECTIONS and issue order ------------------------

DEPTH, BREADTH = "depth-first", "breadth-first"


def connection_label(conn: int, order: str) -> str:
    return f"{conn} connection{'s' if conn > 1 else ''}, {order}"


def connection_steps(order: str, nstreams: int = CONNECTION_STREAMS, kernels=CONNECTION_KERNELS) -> list:
    """Launches of nstreams streams x kernels: depth-first (all of stream 1, then stream 2, ...)
    or breadth-first (the first kernel of every stream, then the second, ...)."""
    pairs = ([(s, k) for s in range(1, nstreams + 1) for k in kernels] if order == DEPTH else
             [(s, k) for k in kernels for s in range(1, nstreams + 1)])
    return [("launch", f"{k}{s}", f"s{s}") for s, k in pairs]


def _conn_cases():
    streams = {f"s{i}": "non-blocking" for i in range(1, CONNECTION_STREAMS + 1)}
    return [_case(connection_label(c, order), streams, connection_steps(order), {CONN_ENV: str(c)})
            for c in CONNECTIONS for order in (DEPTH, BREADTH)]


def _conn_verdict(cases, data):
    if (f := _failed(cases)) is not None:
        return f
    kernel_us = data.get("kernel_us") or max(A.dur(o) for c in cases for o in c["ops"])
    ideal = len(CONNECTION_KERNELS) * kernel_us  # every stream at once: its kernels one after another
    spans = {c["label"]: A.span_us(c["ops"]) for c in cases}
    x = {k: v / ideal for k, v in spans.items()}
    d1, b1 = x[connection_label(1, DEPTH)], x[connection_label(1, BREADTH)]
    dmax, bmax = x[connection_label(CONNECTIONS[-1], DEPTH)], x[connection_label(CONNECTIONS[-1], BREADTH)]
    holds = d1 >= 2 * b1 and dmax <= 1.5 and bmax <= 1.5
    parts = [f"{c} conn: depth {x[connection_label(c, DEPTH)]:.1f}x, breadth {x[connection_label(c, BREADTH)]:.1f}x"
             for c in CONNECTIONS]
    text = (f"{CONNECTION_STREAMS} streams x {len(CONNECTION_KERNELS)} kernels of {kernel_us / 1e3:.2f} ms; span "
            f"against the dependency-free {A.ms(ideal)}: " + "; ".join(parts) + ". "
            + ("Fewer queues than streams make false dependencies: depth-first issue into one queue serializes "
               "nearly everything, breadth-first issue does not; with enough queues the order does not matter."
               if holds else "The expected pattern (one queue: depth-first at least 2x breadth-first; "
               f"{CONNECTIONS[-1]} queues: both within 1.5x of dependency-free) was NOT seen."))
    nums = {f"span_x_{c}_{o.split('-')[0]}": x[connection_label(c, o)] for c in CONNECTIONS for o in (DEPTH, BREADTH)}
    return _verdict(holds, text, ideal_us=ideal, **nums)


# --- the copy-compute-copy pipeline ----------------------------------------------------------

PIPELINE_GOAL = 1.10  # pinned: within 10% of the ideal time


def pipeline_label(nstreams: int, memory: str) -> str:
    return f"{nstreams} stream{'s' if nstreams > 1 else ''}, {memory}"


def _pipeline_verdict(cases, data):
    good = [c for c in cases if c.get("metrics", {}).get("total_ms") and not c.get("error")]
    if not good:
        return _failed(cases) or _verdict(None, "not measured")
    by = {(c["metrics"]["streams"], c["metrics"]["memory"]): c["metrics"] for c in good}
    nums, parts = {}, []
    holds = None
    for memory in ("pinned", "pageable"):
        ms_ = {n: m for (n, mem), m in by.items() if mem == memory}
        if not ms_:
            continue
        ideal = data.get(memory, {}).get("ideal_ms")
        one = ms_.get(1, {}).get("total_ms")
        best_n = min(ms_, key=lambda n: ms_[n]["total_ms"])
        best = ms_[best_n]["total_ms"]
        nums[f"{memory}_best_ms"], nums[f"{memory}_best_streams"] = best, best_n
        nums[f"{memory}_one_stream_ms"], nums[f"{memory}_ideal_ms"] = one, ideal
        ratio = best / ideal if ideal else None
        nums[f"{memory}_best_over_ideal"] = ratio
        s = f"{memory}: best {best:.2f} ms on {best_n} stream{'s' if best_n > 1 else ''}"
        if one:
            s += f" ({one / best:.2f}x faster than 1 stream, {one:.2f} ms)"
        if ratio:
            s += f", {100 * (ratio - 1):+.0f}% against the ideal {ideal:.2f} ms"
        parts.append(s)
        if memory == "pinned" and ratio:
            holds = ratio <= PIPELINE_GOAL
    pin, page = nums.get("pinned_best_ms"), nums.get("pageable_best_ms")
    text = "; ".join(parts) + ". "
    if holds is not None:
        text += ("Goal (pinned within 10% of ideal) met." if holds else "Goal (pinned within 10% of ideal) MISSED.")
    if pin and page:
        text += f" Pageable memory took {page / pin:.1f}x as long as pinned."
    text += _ideal_text(data) + _link_text(data, nums)
    return _verdict(holds, text, **nums)


def _ideal_text(data) -> str:
    """Which stage sets the pinned ideal, and its total as measured on its own."""
    d = data.get("pinned", {})
    totals = {"copy in": d.get("total_in_ms"), "compute": d.get("total_compute_ms"), "copy out": d.get("total_out_ms")}
    if not all(totals.values()) or not d.get("ideal_ms"):
        return ""
    stage = max(totals, key=totals.get)
    n = data.get("total_streams", 1)
    return (f" Pinned ideal {d['ideal_ms']:.2f} ms = {stage} of all {data.get('chunks', '?')} chunks on its own "
            f"({totals[stage]:.2f} ms on {n} stream{'s' if n > 1 else ''}; copy in {totals['copy in']:.2f}, compute "
            f"{totals['compute']:.2f}, copy out {totals['copy out']:.2f} ms) + one chunk of each other stage.")


def _link_text(data, nums) -> str:
    """What bounds the pinned pipeline: compute, or the copies sharing the link (copy in and copy
    out of one chunk at once take longer than either alone, which the ideal does not count)."""
    d = data.get("pinned", {})
    t_in, t_c, t_out, both = (d.get(k) for k in ("t_in_ms", "t_compute_ms", "t_out_ms", "t_both_ms"))
    if not (t_in and t_c and t_out and both):
        return ""
    nbytes = data.get("chunk_bytes")
    nums["pinned_both_copies_ms"] = both
    text = (f" Per chunk, pinned: {t_in:.3f} ms in, {t_c:.3f} ms compute, {t_out:.3f} ms out, each alone; in and out "
            f"at once {both:.3f} ms ({100 * (both / max(t_in, t_out) - 1):+.0f}% on the longer copy")
    if nbytes:
        one_way, two_way = nbytes / max(t_in, t_out) / 1e6, 2 * nbytes / both / 1e6
        nums["link_both_gbs"], nums["link_one_way_gbs"] = round(two_way, 1), round(one_way, 1)
        text += f": the link carries {two_way:.0f} GB/s both ways, not 2 x {one_way:.0f}"
    text += "). "
    if d.get("total_compute_ms") and data.get("chunks"):  # compute a chunk takes when kernels run back to back
        t_c = d["total_compute_ms"] / data["chunks"]
    if t_c >= both:
        text += (f"Compute ({t_c:.3f} ms a chunk) is the busiest stage even while the copies share the link, so "
                 "the copies hide behind it.")
    else:
        text += (f"The copies sharing the link ({both:.3f} ms a chunk) are busier than compute ({t_c:.3f} ms): the "
                 "pipeline is link-bound, which an ideal built from stages timed on their own does not count.")
    return text


# --- the registry ---------------------------------------------------------------------------

SCENARIOS = (
    Scenario("null-stream", "The legacy null stream between two blocking streams",
             "Kernel K1 on stream1, K2 on the legacy default (null) stream, K3 and K4 on stream2, all blocking "
             "streams: the null stream waits for all blocking streams and they wait for it, so K1, K2, K3 run "
             "one after another. Without K2, K1 and K3 run at once when the GPU has room (Hyper-Q).",
             _null_cases, _null_verdict),
    Scenario("non-blocking", "Blocking against non-blocking streams",
             "Streams created non-blocking (cudaStreamNonBlocking) do not synchronize with the null stream: "
             "K1 (stream1), K2 (null stream) and K3 (stream2) run at once; with blocking streams they serialize.",
             _nb_cases, _nb_verdict),
    Scenario("default-stream", "The legacy against the per-thread default stream",
             "With the per-thread default stream (CUPY_CUDA_PER_THREAD_DEFAULT_STREAM=1, a fresh process) the "
             "default stream is an ordinary stream that does not synchronize with other streams: K1 (stream1), "
             "K2 (default stream), K3 (stream2) run at once; with the legacy default stream they serialize.",
             _default_cases, _default_verdict),
    Scenario("default-stream-threads", "Two host threads on the default stream",
             "Each host thread has its own per-thread default stream: two threads launching on the default "
             "stream run at once with it, and one after the other on the legacy default stream.",
             _threads_cases, _threads_verdict),
    Scenario("full-gpu", "Concurrency needs free resources",
             "Kernels on different streams run at once only when resources allow: two kernels that each fill "
             "every SM (1024-thread blocks, as many as the SMs hold) mostly run one after the other.",
             _full_cases, _full_verdict),
    Scenario("events", "Events and cross-stream waits",
             "cudaStreamWaitEvent makes one stream wait for an event recorded in another: K2 (stream2) starts "
             "after K1 (stream1) ends, while K3 on stream3 still runs beside K1.",
             _event_cases, _event_verdict),
    Scenario("connections", "Hardware work queues and issue order",
             "The GPU maps streams onto CUDA_DEVICE_MAX_CONNECTIONS hardware queues (default 8). Streams that "
             "share a queue get false dependencies: a kernel waiting for its stream's previous kernel holds up "
             f"the kernels behind it in that queue. {CONNECTION_STREAMS} streams x {len(CONNECTION_KERNELS)} kernels: "
             "depth-first issue suffers with few queues, breadth-first does not; with enough queues both run "
             "every stream at once.",
             _conn_cases, _conn_verdict, grid=(len(CONNECTIONS), 2)),
    Scenario("pipeline", "Chunked copy-compute-copy pipeline",
             "Copies overlap kernels (and each other, one copy engine per direction) only from pinned host "
             "memory: a chunked copy-in, compute, copy-out over several streams approaches the ideal time, the "
             "busiest stage over all chunks plus one chunk of the other stages; from pageable memory the copies "
             "go through the driver's staging buffer, block the host and more streams help little. Copies in "
             "both directions at once share the PCIe link, so compute is made the busiest stage (1.5x the "
             "copy-in time of a chunk by default, --compute-ratio).",
             lambda: [], _pipeline_verdict),
)
_BY_NAME = {s.name: s for s in SCENARIOS}


def scenario(name: str) -> Scenario:
    if name not in _BY_NAME:
        raise ValueError(f"unknown scenario {name!r}; known: {', '.join(_BY_NAME)}")
    return _BY_NAME[name]
