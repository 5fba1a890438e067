"""Synthetic timelines shaped like what the GPU should give (or should not), for the verdict
tests and the recorded fixture the renderers are tested on."""
from bwlab.workloads.streams import scenario
from bwlab.workloads.streams.analysis import pipeline_ideal_ms
from bwlab.workloads.streams.scenarios import (CONNECTION_KERNELS, CONNECTION_STREAMS, CONNECTIONS, DEPTH,
                                               connection_label, pipeline_label)

T = 2000.0  # us per spin kernel


def op(name, lane, start, end=None, **extra):
    return {"name": name, "lane": lane, "kind": "kernel", "start_us": float(start),
            "end_us": float(start + T if end is None else end), "sms": [0], "blocks": 1, "clock": "globaltimer", **extra}


def case(label, ops, **metrics):
    return {"label": label, "env": {}, "ops": ops, "metrics": metrics, "notes": [], "error": ""}


def lanes_of(spec_case):
    launches = [tuple(s) + (0,) * (4 - len(s)) for s in spec_case["steps"] if s[0] == "launch"]
    threaded = len({s[3] for s in launches}) > 1
    return {s[1]: f"{s[2]} (thread {s[3]})" if threaded else s[2] for s in launches}


def serial(spec_case, gap=3.0):
    """Every launch one after another."""
    ops, t = [], 0.0
    for name, stream in lanes_of(spec_case).items():
        ops.append(op(name, stream, t))
        t += T + gap
    return case(spec_case["label"], ops)


def together(spec_case, skew=5.0):
    """Every launch at once (one after another on the same stream)."""
    ops, last = [], {}
    for i, (name, stream) in enumerate(lanes_of(spec_case).items()):
        start = max(i * skew, last.get(stream, -1e9))
        ops.append(op(name, stream, start))
        last[stream] = start + T + 1.0
    return case(spec_case["label"], ops)


def good_cases(name):
    """Cases as CUDA's semantics say they come out."""
    specs = scenario(name).cases()
    if name == "null-stream":
        return [serial(specs[0]), together(specs[1])]
    if name in ("non-blocking", "default-stream", "default-stream-threads"):
        return [serial(specs[0]), together(specs[1])]
    if name == "full-gpu":
        return [serial(specs[0])]
    if name == "events":
        a = together(specs[0])
        k1 = next(o for o in a["ops"] if o["name"] == "K1")
        k2 = next(o for o in a["ops"] if o["name"] == "K2")
        k2["start_us"], k2["end_us"] = k1["end_us"] + 4.0, k1["end_us"] + 4.0 + T
        return [a, together(specs[1])]
    if name == "connections":
        return [connections_case(c, order) for c in CONNECTIONS for order in ("depth-first", "breadth-first")]
    if name == "pipeline":
        return pipeline_cases()[0]
    raise KeyError(name)


def connections_case(conn, order):
    """Queue model: streams s map to queue (s-1) % conn; a queue issues in order, and a kernel
    whose stream predecessor is unfinished blocks the queue behind it."""
    from bwlab.workloads.streams.scenarios import connection_steps

    steps = connection_steps(order)
    queues = {}
    for _, name, stream, _ in [tuple(s) + (0,) for s in steps]:
        q = (int(stream[1:]) - 1) % conn
        queues.setdefault(q, []).append((name, stream))
    ops = []
    for q, items in queues.items():
        free_at = 0.0  # when the queue may issue its next kernel
        done = {}
        for name, stream in items:
            start = max(free_at, done.get(stream, 0.0))
            ops.append(op(name, stream, start))
            done[stream] = start + T
            free_at = start  # issued: the queue moves on
    return case(connection_label(conn, order), ops)


def pipeline_cases(t_in=0.3, t_c=0.45, t_out=0.3, chunks=16, t_both=0.36, overlap=0.92):
    """overlap: total compute over chunks x one chunk alone (kernels on several streams overlap)."""
    totals = (chunks * t_in, overlap * chunks * t_c, chunks * t_out)
    ideal = pipeline_ideal_ms(t_in, t_c, t_out, chunks, totals)
    cases = []
    for memory, slow in (("pinned", 1.0), ("pageable", 7.0)):
        for n in (1, 2, 4, 8):
            if memory == "pinned":
                total = chunks * (t_in + t_c + t_out) if n == 1 else ideal * (1.05 if n >= 4 else 1.3)
            else:
                total = chunks * (slow * t_in + t_c + slow * t_out) * (1.0 if n == 1 else 0.95)
            ops, t = [], 0.0
            for i in range(chunks):
                g = f"stream {i % n + 1}"
                step = total * 1e3 / chunks
                ops += [{"name": f"in{i}", "lane": "copy in (H2D)", "kind": "h2d", "group": g, "ready_us": t,
                         "start_us": t, "end_us": t + step / 3, "clock": "events"},
                        {"name": f"k{i}", "lane": "compute", "kind": "kernel", "group": g, "start_us": t + step / 3,
                         "end_us": t + 2 * step / 3, "sm_count": 132, "blocks": 1056, "clock": "globaltimer"},
                        {"name": f"out{i}", "lane": "copy out (D2H)", "kind": "d2h", "group": g,
                         "ready_us": t + 2 * step / 3, "start_us": t + 2 * step / 3, "end_us": t + step,
                         "clock": "events"}]
                t += step
            ideal_m = ideal if memory == "pinned" else pipeline_ideal_ms(slow * t_in, t_c, slow * t_out, chunks)
            cases.append(case(pipeline_label(n, memory), ops, streams=n, memory=memory, total_ms=total,
                              totals_ms=[total], ideal_ms=ideal_m, over_ideal=total / ideal_m, correct=True,
                              serial_ms=chunks * (t_in + t_c + t_out)))
    data = {"chunks": chunks, "chunk_bytes": 16 << 20, "total_bytes": chunks * (16 << 20), "iters": 2048,
            "compute_ratio": round(t_c / t_in, 3), "total_streams": 8,
            "pinned": {"t_in_ms": t_in, "t_compute_ms": t_c, "t_out_ms": t_out, "t_both_ms": t_both, "ideal_ms": ideal,
                       "total_in_ms": totals[0], "total_compute_ms": totals[1], "total_out_ms": totals[2],
                       "serial_ms": chunks * (t_in + t_c + t_out)},
            "pageable": {"t_in_ms": 7 * t_in, "t_compute_ms": t_c, "t_out_ms": 7 * t_out,
                         "ideal_ms": pipeline_ideal_ms(7 * t_in, t_c, 7 * t_out, chunks),
                         "serial_ms": chunks * (7 * t_in + t_c + 7 * t_out)}}
    return cases, data


def data_for(name):
    return pipeline_cases()[1] if name == "pipeline" else {"kernel_us": T}


def document():
    """A whole streams document of synthetic timelines (the renderers' fixture)."""
    from bwlab.lab.streams import SCHEMA, entry

    scenarios = [entry(s.name, good_cases(s.name), data_for(s.name)) for s in __import__(
        "bwlab.workloads.streams", fromlist=["SCENARIOS"]).SCENARIOS]
    return {"schema": SCHEMA, "created": "2025-01-01T00:00:00", "command": "bwlab streams (synthetic fixture)",
            "complete": True, "device": {"name": "synthetic GPU (test fixture)", "sm_count": 132},
            "environment": {}, "config": {"procedure": "streams"}, "scenarios": scenarios}


__all__ = ["CONNECTION_KERNELS", "CONNECTION_STREAMS", "DEPTH", "document", "good_cases", "T"]
