"""Arithmetic on measured timelines (no GPU): overlaps, gaps, spans, concurrency.

An op is a dict with at least "name", "lane", "start_us" and "end_us" (microseconds from the
first stamp of its case). Kernels carry their spans from %globaltimer (first block start, last
block end); copies carry theirs from CUDA events.
"""
from __future__ import annotations

from typing import Iterable, Optional

TOL_US = 2.0          # clock granularity and launch jitter: an op starting this soon before another ends still "waited"
SERIAL_MAX = 0.02     # at most this overlap fraction: the two ran one after the other
CONCURRENT_MIN = 0.8  # at least this overlap fraction: the two ran at once


def dur(op: dict) -> float:
    return max(0.0, op["end_us"] - op["start_us"])


def overlap_us(a: dict, b: dict) -> float:
    """Time during which both ops ran."""
    return max(0.0, min(a["end_us"], b["end_us"]) - max(a["start_us"], b["start_us"]))


def overlap_fraction(a: dict, b: dict) -> float:
    """Time both ran / the shorter op's duration: 1.0 = the shorter ran entirely inside the
    other, 0.0 = one after the other."""
    shorter = min(dur(a), dur(b))
    return overlap_us(a, b) / shorter if shorter > 0 else 0.0


def gap_us(first: dict, then: dict) -> float:
    """How long after `first` ended `then` started (negative: it started before)."""
    return then["start_us"] - first["end_us"]


def span_us(ops: Iterable[dict]) -> float:
    ops = list(ops)
    return max(o["end_us"] for o in ops) - min(o["start_us"] for o in ops) if ops else 0.0


def union_us(ops: Iterable[dict]) -> float:
    """Time during which at least one op ran."""
    total, end = 0.0, None
    for s, e in sorted((o["start_us"], o["end_us"]) for o in ops):
        if end is None or s > end:
            total += e - s
            end = e
        elif e > end:
            total += e - end
            end = e
    return total


def concurrency(ops: Iterable[dict]) -> float:
    """Average number of ops running at once over the span: sum of durations / span."""
    ops = list(ops)
    span = span_us(ops)
    return sum(dur(o) for o in ops) / span if span > 0 else 0.0


def peak_concurrency(ops: Iterable[dict]) -> int:
    """Most ops running at the same instant (an op ending as another starts does not count)."""
    events = sorted([(o["start_us"], 1) for o in ops if dur(o) > 0] + [(o["end_us"], -1) for o in ops if dur(o) > 0],
                    key=lambda e: (e[0], e[1]))
    best = now = 0
    for _, d in events:
        now += d
        best = max(best, now)
    return best


def find(ops: Iterable[dict], name: str) -> dict:
    for o in ops:
        if o["name"] == name:
            return o
    raise KeyError(f"no op named {name!r} in this timeline")


def max_pair_overlap(ops: list[dict]) -> tuple[float, Optional[tuple[str, str]]]:
    """The largest overlap fraction between ops of different lanes, and which pair."""
    best, pair = 0.0, None
    for i, a in enumerate(ops):
        for b in ops[i + 1:]:
            if a.get("lane") != b.get("lane"):
                f = overlap_fraction(a, b)
                if pair is None or f > best:
                    best, pair = f, (a["name"], b["name"])
    return best, pair


def in_order(ops: list[dict], names: list[str], tol_us: float = TOL_US) -> bool:
    """Each named op started no earlier than the previous one ended (within tol_us)."""
    seq = [find(ops, n) for n in names]
    return all(gap_us(a, b) >= -tol_us for a, b in zip(seq, seq[1:]))


def serialized(ops: list[dict], names: list[str]) -> bool:
    return in_order(ops, names) and all(
        overlap_fraction(find(ops, a), find(ops, b)) <= SERIAL_MAX for a, b in zip(names, names[1:]))


def concurrent(ops: list[dict], a: str, b: str) -> bool:
    return overlap_fraction(find(ops, a), find(ops, b)) >= CONCURRENT_MIN


def pct(x: float) -> str:
    return f"{100 * x:.0f}%"


def ms(us: float) -> str:
    return f"{us / 1e3:.2f} ms"


def pipeline_ideal_ms(t_in: float, t_compute: float, t_out: float, chunks: int, totals=None) -> float:
    """Ideal time of a chunked copy-in, compute, copy-out pipeline (per-chunk stage times, ms),
    with one copy engine per direction working beside the SMs: the busiest stage over all
    chunks (the longer of total copy and total compute), plus one chunk of each other stage
    (filling the pipeline before it and draining it after). totals: each stage over all
    chunks as measured on its own (in, compute, out); without them, chunks x one chunk."""
    stages = (t_in, t_compute, t_out)
    totals = tuple(totals) if totals else tuple(chunks * t for t in stages)
    busiest = max(range(3), key=lambda i: totals[i])
    return totals[busiest] + sum(t for i, t in enumerate(stages) if i != busiest)
