"""Tables (as plain TableData) and PNG charts of saved p2p and distributed-bench documents; no GPU
and no torch needed."""
from __future__ import annotations

import io

from ..core.table import Column, TableData, ms, num, pct, ratio

P2P_NOTE = ("GB/s: 10^9 bytes that cross once per second (a copy of S bytes moves S bytes). all_to_all as in "
            "nccl-tests: size = bytes each rank sends (its own part included), algbw = size / time, busbw = algbw "
            "x (n-1)/n; time = median over repetitions of the slowest rank.")
BENCH_NOTE = ("ms: median over repetitions of the slowest rank's time. GB/s per GPU (per rank) = (bytes of the "
              "matrix read + written) / GPUs (ranks) / time. bound = the most bytes a GPU sends or receives / "
              "peer-to-peer GB/s each way (both directions at once, slowest pair, measured in this run by the copy "
              "engines; NCCL moves "
              "data with the SMs, which can beat the copy engines, so % of bound may pass 100).")


def _size(n: int) -> str:
    for unit, name in ((1 << 30, "GiB"), (1 << 20, "MiB"), (1 << 10, "KiB")):
        if n >= unit:
            v = n / unit
            return f"{v:.0f} {name}" if v == int(v) else f"{v:.1f} {name}"
    return f"{n} B"


def _matrix(title: str, devices, m, fmt, caption: str = "") -> TableData:
    t = TableData(title, [Column("from \\ to", "left")] + [Column(f"GPU {d}") for d in devices], caption=caption)
    for d, row in zip(devices, m):
        t.add(f"GPU {d}", *[fmt(v) for v in row])
    return t


def p2p_tables(doc: dict) -> list[TableData]:
    c = doc["copies"]
    devs = c["devices"]
    names = doc.get("devices", [])
    head = TableData("GPUs", [Column("GPU"), Column("name", "left")])
    for d in devs:
        head.add(d, names[d] if d < len(names) else "?")
    if len(devs) == 1:
        head.caption = ("Only one GPU is visible: no pair to measure. The copy tables hold the copy within "
                        "GPU 0, and all_to_all on one rank moves nothing between GPUs (busbw 0 by definition).")
    out = [head]
    wrong = [(devs[i], devs[j]) for i, row in enumerate(c["correct"]) for j, ok in enumerate(row) if ok is False]
    out.append(_matrix(f"Copies, one way, {_size(c['size_bytes'])} (GB/s)", devs, c["one_way_gbs"], num,
                       "cudaMemcpyPeerAsync; the diagonal is a copy within the GPU"
                       + ("; WRONG bytes after " + ", ".join(f"{a}->{b}" for a, b in wrong) if wrong else "")))
    if len(devs) > 1:
        out.append(_matrix("Copies, both ways at once (GB/s each way)", devs, c["each_way_gbs"], num))
        no = [(devs[i], devs[j]) for i, row in enumerate(c["peer_access"]) for j, ok in enumerate(row) if not ok]
        if no:
            out[-1].caption = "no peer access (staged through the host): " + ", ".join(f"{a}->{b}" for a, b in no)
    out.append(_matrix("Latency (µs per 4-byte copy, 100 back to back)", devs, c["latency_us"], num))
    n = doc.get("gpus", len(devs))
    a2a = TableData(f"all_to_all on {n} GPU{'' if n == 1 else 's'}, NCCL",
                    [Column("size"), Column("count/peer"), Column("time µs"), Column("algbw GB/s"),
                     Column("busbw GB/s"), Column("correct")], caption=P2P_NOTE)
    for r in doc["all_to_all"]:
        a2a.add(_size(r["size_bytes"]), r["count_per_peer"], num(r["time_us"]), num(r["algbw_gbs"]),
                num(r["busbw_gbs"]), "yes" if r["correct"] else "NO", flag="" if r["correct"] else "bad")
    out.append(a2a)
    return out


def bench_tables(doc: dict) -> list[TableData]:
    n = doc["world_size"]
    head = TableData("Setup", [Column("what", "left"), Column("value", "left")])
    devs = doc.get("devices") or []
    head.add("ranks", f"{n} ({doc.get('backend')})")
    head.add("devices", ", ".join(sorted(set(devs))) if devs else "-")
    p = doc.get("p2p") or {}
    head.add("peer-to-peer each way", f"{num(p.get('each_way_gbs'))} GB/s: {p.get('method', '-')}"
             if p.get("each_way_gbs") else p.get("method", "-"))
    env = doc.get("environment") or {}
    head.add("versions", ", ".join(f"{k} {env[k]}" for k in ("torch", "nccl", "cupy") if env.get(k)) or "-")
    checks = doc.get("checks") or []
    bad = [c for c in checks if not c["correct"]]
    head.add("checks", f"{len(checks)} awkward cases (shape, dtype, chunks, way), "
             + ("all bit-exact" if not bad else "WRONG at " + ", ".join(
                 f"{'x'.join(map(str, c['shape']))} {c['dtype']} chunks {c['chunks']} {c.get('transport', '')}".rstrip()
                 for c in bad)))
    gpu = "nccl" in str(doc.get("backend"))
    plural = "" if n == 1 else "s"
    title = f"Distributed transpose on {n} " + (f"GPU{plural}" if gpu else f"CPU rank{plural}, gloo")
    t = TableData(title,
                  [Column("case", "left"), Column("dtype", "left"), Column("what", "left"), Column("chunks"),
                   Column("ms"), Column("GB/s per GPU" if gpu else "GB/s per rank"), Column("bound ms"),
                   Column("% of bound"), Column("x torch ops"), Column("correct"),
                   Column("notes", "left", long=True)], caption=BENCH_NOTE)
    for r in doc["records"]:
        tm = r.get("timing") or {}
        ok = r.get("correct")
        t.add("x".join(map(str, r["shape"])), r["dtype"], r["name"], r.get("chunks") or "-",
              ms(tm.get("median_ms")), num(r.get("gbs_per_gpu")), ms(r.get("bound_ms")), pct(r.get("pct_of_bound")),
              ratio(r.get("x_torch")), "-" if ok is None else ("yes" if ok else "NO: not timed"),
              "; ".join(r.get("notes") or []), flag="bad" if ok is False else "")
    return [head, t]


def _plt():
    import matplotlib

    matplotlib.use("Agg")
    import matplotlib.pyplot as plt

    return plt


def _png(fig) -> bytes:
    buf = io.BytesIO()
    fig.savefig(buf, format="png")
    _plt().close(fig)
    return buf.getvalue()


def bench_chart(doc: dict) -> bytes:
    """Per case, a bar per method (ms), the bound as a black tick."""
    plt = _plt()
    cases = list(dict.fromkeys((tuple(r["shape"]), r["dtype"]) for r in doc["records"]))
    names = list(dict.fromkeys(r["name"] for r in doc["records"]))
    fig, ax = plt.subplots(figsize=(10, 1.8 + 0.45 * len(cases) * max(1, len(names)) ** 0.8), dpi=110)
    h = 0.8 / max(1, len(names))
    for ci, case in enumerate(cases):
        recs = {r["name"]: r for r in doc["records"] if (tuple(r["shape"]), r["dtype"]) == case}
        for ni, name in enumerate(names):
            r = recs.get(name)
            if not r:
                continue
            y = ci + (ni - (len(names) - 1) / 2) * h
            t = (r.get("timing") or {}).get("median_ms")
            ax.barh(y, t or 0, height=h * 0.9, color=f"C{ni}", label=name if ci == 0 else None,
                    hatch="//" if r.get("correct") is False else None)
            ax.text(t or 0, y, " WRONG: not timed" if r.get("correct") is False else f" {t:.3g}", va="center",
                    fontsize=7)
        bound = next((r.get("bound_ms") for r in recs.values() if r.get("bound_ms")), None)
        if bound:
            ax.plot([bound, bound], [ci - 0.45, ci + 0.45], color="k", lw=2,
                    label="bound (bytes / peer-to-peer GB/s)" if ci == 0 else None)
    ax.set_yticks(range(len(cases)), [f"{'x'.join(map(str, s))}\n{d}" for s, d in cases], fontsize=8)
    ax.invert_yaxis()
    top = max([(r.get("timing") or {}).get("median_ms") or 0 for r in doc["records"]]
              + [r.get("bound_ms") or 0 for r in doc["records"]] + [1e-3])
    ax.set_xlim(0, top * 1.15)
    ax.set_xlabel("ms (median, slowest rank)")
    n = doc["world_size"]
    where = ("GPU" if n == 1 else "GPUs") if "nccl" in str(doc.get("backend")) else \
        ("CPU rank (gloo)" if n == 1 else "CPU ranks (gloo)")
    against = "time against the bound" if any(r.get("bound_ms") for r in doc["records"]) else "time (no bound measured)"
    ax.set_title(f"Distributed transpose on {n} {where}: {against}")
    if ax.get_legend_handles_labels()[0]:  # no records: nothing to label
        ax.legend(fontsize=7, loc="upper center", bbox_to_anchor=(0.5, -0.22), ncol=min(4, len(names) + 1))
    fig.tight_layout()
    return _png(fig)


def p2p_chart(doc: dict) -> bytes:
    """all_to_all algbw and busbw against size."""
    plt = _plt()
    rows = [r for r in doc["all_to_all"] if r["size_bytes"]]
    fig, ax = plt.subplots(figsize=(8, 4.5), dpi=110)
    xs = [r["size_bytes"] for r in rows]
    ax.plot(xs, [r["algbw_gbs"] for r in rows], "o-", label="algbw = size / time")
    ax.plot(xs, [r["busbw_gbs"] for r in rows], "s-", label="busbw = algbw x (n-1)/n")
    ax.set_xscale("log", base=2)
    ax.set_xticks(xs, [_size(x) for x in xs], fontsize=7, rotation=30)
    ax.set_xlabel("bytes each rank sends")
    ax.set_ylabel("GB/s")
    n = doc.get("gpus")
    ax.set_title(f"all_to_all on {n} GPU{'' if n == 1 else 's'}, NCCL")
    ax.grid(alpha=0.3)
    ax.legend(fontsize=8)
    fig.tight_layout()
    return _png(fig)
