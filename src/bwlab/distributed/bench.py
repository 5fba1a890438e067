"""`bwlab bench distributed`, run by every rank (torchrun --nproc-per-node N -m bwlab bench
distributed): the distributed transpose against its bound and against the same transpose made
of torch ops, measured in the same run, every result checked bit for bit first.

- bound: the most bytes any GPU sends or receives, over the slowest pair's peer-to-peer
  bandwidth each way (both directions at once), measured at the start of the run: the time
  the transfer takes when the local transposes hide under it.
- bwlab's transport: p2p (transposing writes into the peers' memory) where every GPU reaches
  every other's, else nccl; with p2p, the nccl transport is timed beside it (peer "nccl").
- torch ops: a local transpose (x.t().contiguous()), all_to_all_single, and a local
  rearrangement of the received blocks (torch.cat), the way one writes it with torch alone.
- all_to_all_single alone: the middle step of the torch ops, on buffers made beforehand.

Times are the median over repetitions of the slowest rank's time (time_collective). GB/s per
GPU = (bytes of the whole matrix read + written) / world size / time.
"""
from __future__ import annotations

import datetime as dt
import os
from dataclasses import dataclass
from typing import Callable, Optional

from . import p2p
from .results import SCHEMA
from .sharding import CHUNK_BYTES, Exchange, chunk_count
from .transpose import _bits, resolve_transport, transpose

SUITES = {
    "main": [(8192, 8192), (16384, 16384), (32768, 32768), (32771, 30011)],
    "small": [(1024, 1024), (4099, 4093)],
    "chunks": [(32768, 32768)],
}
CHUNK_SWEEP = (1, 2, 4, 8, 16, 32, 64)
CHECK_SHAPES = [(1, 1), (1, 1000), (1000, 1), (33, 31), (1025, 777), (7, 3)]
PEERS = ("torch", "all_to_all", "nccl")
BIG = 256 << 20   # bytes of a matrix from which fewer repetitions are timed
HOST_BOUND = 0.8  # queuing a call this close to its GPU time: the GPU may have waited on the host

Log = Callable[[str], None]


@dataclass
class Session:
    """This process's place in the run."""
    rank: int
    world: int
    local_rank: int
    backend: str
    device: object     # torch.device
    side: object       # a gloo group for host-side coordination
    own_group: bool    # True when setup() initialised the process group (and teardown() ends it)


def setup() -> Session:
    """The process group from torchrun's environment (RANK, WORLD_SIZE, LOCAL_RANK, MASTER_ADDR),
    or a world of one without it: NCCL on CUDA when a GPU is visible, gloo on the CPU otherwise."""
    import torch
    import torch.distributed as dist

    cuda = torch.cuda.is_available()
    local = int(os.environ.get("LOCAL_RANK", "0"))
    own = not dist.is_initialized()
    if own:
        gpu = local
        if cuda:
            count = torch.cuda.device_count()
            if count == 1:  # a scheduler that shows each rank its own GPU only
                gpu = 0
            elif local >= count:
                raise RuntimeError(f"local rank {local} but only {count} GPUs are visible")
            torch.cuda.set_device(gpu)
        backend = "nccl" if cuda else "gloo"
        kw = {"device_id": torch.device("cuda", gpu)} if cuda else {}
        if "WORLD_SIZE" in os.environ:
            dist.init_process_group(backend, **kw)
        else:
            dist.init_process_group(backend, store=dist.HashStore(), rank=0, world_size=1, **kw)
    backend = str(dist.get_backend()).lower()
    side = dist.new_group(backend="gloo") if "nccl" in backend else dist.group.WORLD
    device = torch.device("cuda", torch.cuda.current_device()) if "nccl" in backend else torch.device("cpu")
    return Session(dist.get_rank(), dist.get_world_size(), local, backend, device, side, own)


def teardown(s: Session) -> None:
    import torch.distributed as dist

    if s.own_group and dist.is_initialized():
        dist.destroy_process_group()


def share(s: Session, obj):
    """Rank 0's obj, on every rank."""
    import torch.distributed as dist

    box = [obj]
    dist.broadcast_object_list(box, src=0, group=s.side)
    return box[0]


# --- data: a pattern of bits that every rank can compute for any block ----------------------------

def _mix(idx, seed: int):
    h = (idx + seed * 0x632BE5AB) * 0x9E3779B1
    return h ^ (h >> 15)


def _as(h, dtype):
    """int64 values h as elements of dtype, bit patterns of its size (16 bytes: two int64)."""
    import torch

    size = torch.empty(0, dtype=dtype).element_size()
    if size == 16:
        pair = torch.stack((h, h ^ 0x5555555555), dim=-1).contiguous()
        return pair.view(dtype).squeeze(-1)
    ints = {1: torch.int8, 2: torch.int16, 4: torch.int32, 8: torch.int64}[size]
    return h.to(ints).view(dtype)


def shard_data(ex: Exchange, dtype, seed: int, device):
    """This rank's rows of the R x C test matrix: element (r, c) is a hash of r * C + c."""
    import torch

    r0 = ex.row_offsets[ex.rank]
    r = torch.arange(r0, r0 + ex.in_shape[0], device=device, dtype=torch.int64)
    c = torch.arange(ex.cols, device=device, dtype=torch.int64)
    return _as(_mix(r[:, None] * ex.cols + c[None, :], seed), dtype)


def expected(ex: Exchange, dtype, seed: int, device):
    """This rank's rows of the C x R transpose of that matrix."""
    import torch

    c0 = ex.col_offsets[ex.rank]
    c = torch.arange(c0, c0 + ex.out_shape[0], device=device, dtype=torch.int64)
    r = torch.arange(ex.rows, device=device, dtype=torch.int64)
    return _as(_mix(r[None, :] * ex.cols + c[:, None], seed), dtype)


def same_bits(a, b) -> bool:
    import torch

    if a.shape != b.shape or a.dtype != b.dtype:
        return False
    x, y = _bits(a).reshape(-1), _bits(b).reshape(-1)
    if x.element_size() == 16:
        x, y = x.view(torch.int64), y.view(torch.int64)
    return bool(torch.equal(x, y))


# --- the torch-ops baseline ---------------------------------------------------------------------

def torch_ops(x, ex: Exchange, group=None):
    """local transpose, all_to_all_single, local rearrangement: the same result with torch alone."""
    import torch
    import torch.distributed as dist

    bits = _bits(x)
    send = bits.t().contiguous()                              # (C, r): peer j's block is rows cols_j
    c_me, r_me = ex.out_shape[0], ex.in_shape[0]
    recv = torch.empty(ex.rows * c_me, dtype=bits.dtype, device=bits.device)
    size = bits.element_size()
    ins = [ex.col_sizes[j] * r_me * size for j in range(ex.world)]
    outs = [c_me * ex.row_sizes[i] * size for i in range(ex.world)]
    dist.all_to_all_single(recv.view(torch.uint8), send.view(-1).view(torch.uint8), outs, ins, group=group)
    blocks = [recv[c_me * ex.row_offsets[i]:c_me * ex.row_offsets[i + 1]].view(c_me, ex.row_sizes[i])
              for i in range(ex.world)]
    return torch.cat(blocks, dim=1).view(x.dtype)


def _transfer_only(x, ex: Exchange, group=None):
    """all_to_all_single of the bytes the transpose moves, on buffers made once: fn()."""
    import torch
    import torch.distributed as dist

    size = x.element_size()
    c_me, r_me = ex.out_shape[0], ex.in_shape[0]
    send = torch.empty(ex.cols * r_me * size, dtype=torch.uint8, device=x.device)
    recv = torch.empty(ex.rows * c_me * size, dtype=torch.uint8, device=x.device)
    ins = [ex.col_sizes[j] * r_me * size for j in range(ex.world)]
    outs = [c_me * ex.row_sizes[i] * size for i in range(ex.world)]
    return lambda: dist.all_to_all_single(recv, send, outs, ins, group=group)


# --- the run --------------------------------------------------------------------------------------

def _reps_for(nbytes: int, reps: Optional[int]) -> int:
    return reps if reps else (20 if nbytes >= BIG else 50)


def _dtype_name(dtype) -> str:
    return str(dtype).replace("torch.", "")


def transports(s: Session, peers) -> list[str]:
    """The transports timed: what "auto" picks here, and nccl beside p2p when asked for."""
    if s.device.type != "cuda":
        return ["nccl"]
    first = resolve_transport("auto")
    return [first] + (["nccl"] if first == "p2p" and "nccl" in peers else [])


def check_all(s: Session, dtypes, seed: int, chunk_counts, log: Log, ways=("nccl",)) -> list[dict]:
    """Every dtype at the awkward shapes, with the default chunking and each asked for, over
    every transport timed: bit for bit."""
    import torch.distributed as dist

    rows = []
    for dtype in dtypes:
        for (R, C) in CHECK_SHAPES:
            for k in dict.fromkeys([None, *chunk_counts]):
                for way in ways:
                    kk = min(k, max(1, C)) if k else None
                    log(f"check {R}x{C} {_dtype_name(dtype)} {way}")
                    ex = Exchange(R, C, s.world, s.rank, kk or chunk_count(R, C, s.world, 1))
                    x = shard_data(ex, dtype, seed, s.device)
                    got = transpose(x, rows=R, chunks=kk, transport=way)
                    ok = same_bits(got, expected(ex, dtype, seed, s.device))
                    rows.append({"shape": [R, C], "dtype": _dtype_name(dtype), "chunks": ex.chunks, "transport": way,
                                 "correct": ok})
    flags = [r["correct"] for r in rows]
    every = [None] * s.world
    dist.all_gather_object(every, flags, group=s.side)
    for i, r in enumerate(rows):
        r["correct"] = all(f[i] for f in every)
    return rows


def bench_case(s: Session, R: int, C: int, dtype, seed: int, peers, chunk_counts, reps: Optional[int],
               warmup: int, each_way_gbs: Optional[float], l2_bytes: int, log: Log, ways=("nccl",)) -> list[dict]:
    """The records of one case on every rank (identical on all)."""
    import torch
    import torch.distributed as dist

    size = torch.empty(0, dtype=dtype).element_size()
    nbytes = R * C * size
    n = _reps_for(nbytes, reps)
    default_k = chunk_count(R, C, s.world, size, CHUNK_BYTES)
    ex = Exchange(R, C, s.world, s.rank, default_k)
    x = shard_data(ex, dtype, seed, s.device)
    want = expected(ex, dtype, seed, s.device)
    busiest = ex.busiest_elements() * size
    bound_ms = busiest / (each_way_gbs * 1e9) * 1e3 if each_way_gbs and busiest else None
    base = {"shape": [R, C], "dtype": _dtype_name(dtype), "bytes": nbytes, "busiest_bytes": busiest,
            "bound_ms": bound_ms}
    notes = []
    if s.device.type == "cuda" and nbytes // s.world < 4 * l2_bytes:
        notes.append("shard under 4x L2: partly cache-resident")
    methods: list[tuple[str, Optional[int], Callable]] = []
    for way in ways:
        shown = "gloo" if s.device.type != "cuda" else way  # off the GPU the collective runs on gloo
        if chunk_counts:
            for k in dict.fromkeys(chunk_counts):
                methods.append((f"bwlab {shown} chunks={k}", k,
                                lambda k=k, way=way: transpose(x, rows=R, chunks=k, transport=way)))
        else:
            methods.append((f"bwlab {shown}", default_k if s.world > 1 else None,
                            lambda way=way: transpose(x, rows=R, transport=way)))
    if "torch" in peers:
        methods.append(("torch ops", None, lambda: torch_ops(x, ex)))
    records = []
    for name, k, fn in methods:
        log(f"{R}x{C} {_dtype_name(dtype)}: {name}")
        ok = same_bits(fn(), want)
        flag = torch.tensor([int(ok)], device=s.device)
        dist.all_reduce(flag, op=dist.ReduceOp.MIN)
        rec = {**base, "name": name, "chunks": k, "correct": bool(flag.item()), "notes": list(notes)}
        if rec["correct"]:
            keep = []

            def run_once(fn=fn):
                keep[:] = [fn()]          # the latest result stays alive, as a caller's would
            rec["timing"] = p2p.time_collective(run_once, n, warmup)
            keep.clear()
        records.append(rec)
    if "all_to_all" in peers and s.world > 1:
        log(f"{R}x{C} {_dtype_name(dtype)}: all_to_all_single alone")
        fn = _transfer_only(x, ex)
        rec = {**base, "name": "all_to_all_single alone", "chunks": None, "correct": None, "notes": list(notes),
               "timing": p2p.time_collective(fn, n, warmup)}
        records.append(rec)
    _derive(records, s.world)
    return records


def _derive(records: list[dict], world: int) -> None:
    """GB/s per GPU, % of the bound, and x the torch ops, from the medians."""
    torch_ms = next((r["timing"]["median_ms"] for r in records if r["name"] == "torch ops" and r.get("timing")), None)
    for r in records:
        t = r.get("timing")
        if not t:
            continue
        ms = t["median_ms"]
        r["gbs_per_gpu"] = 2 * r["bytes"] / world / (ms * 1e-3) / 1e9 if ms > 0 else None
        r["pct_of_bound"] = 100 * r["bound_ms"] / ms if r["bound_ms"] and ms > 0 else None
        r["x_torch"] = torch_ms / ms if torch_ms and ms > 0 and r["name"].startswith("bwlab") else None
        host = t.get("host_median_ms")
        if host is not None and host >= HOST_BOUND * ms:
            r["notes"].append(f"host-bound: queuing a call took {host:.3g} ms of host time against {ms:.3g} ms on "
                              "the GPU, so the GPU may have waited")
        if t.get("std_ms", 0) > 0.03 * t.get("mean_ms", 1):
            r["notes"].append(f"noisy: CV {100 * t['std_ms'] / t['mean_ms']:.1f}%")


def _devices(s: Session) -> list[str]:
    import torch
    import torch.distributed as dist

    mine = torch.cuda.get_device_name(s.device) if s.device.type == "cuda" else "CPU"
    every = [None] * s.world
    dist.all_gather_object(every, mine, group=s.side)
    return every


def _bound_bandwidth(s: Session, log: Log) -> dict:
    """Measured by rank 0 over its world's GPUs (each rank's own one) while the others wait."""
    import torch
    import torch.distributed as dist

    if s.world == 1 or s.device.type != "cuda":
        why = "one rank: nothing crosses a link" if s.world == 1 else "CPU ranks: no GPU link to measure"
        return {"method": f"none ({why})", "each_way_gbs": None, "pairs": []}
    locals_ = [None] * s.world
    dist.all_gather_object(locals_, s.device.index, group=s.side)
    result = None
    if s.rank == 0:
        devs = sorted(set(locals_))
        if len(devs) < 2 or max(devs) >= torch.cuda.device_count():
            result = {"method": "none (the ranks' GPUs are not visible to rank 0: run on one machine, all GPUs "
                                "visible)", "each_way_gbs": None, "pairs": []}
        else:
            log("peer-to-peer bandwidth for the bound")
            result = p2p.pair_each_way_gbs(devs)
    return share(s, result)


def run_bench(s: Session, cases: list[tuple[int, int]], dtypes, peers, chunk_counts, reps: Optional[int],
              warmup: int, seed: int, command: str = "", config: Optional[dict] = None,
              log: Log = lambda m: None, on_record: Callable[[dict], None] = lambda d: None) -> dict:
    """Every rank runs it; every rank returns the same document (rank 0 writes it)."""
    import torch

    from ..core import device as core_device

    doc = {"schema": SCHEMA, "procedure": "bench-distributed", "command": command,
           "created": dt.datetime.now(dt.timezone.utc).isoformat(timespec="seconds"),
           "world_size": s.world, "backend": s.backend, "devices": _devices(s),
           "environment": {"torch": torch.__version__, **p2p._nccl_versions()},
           "config": dict(config or {}, reps=reps, warmup=warmup, seed=seed, chunk_bytes=CHUNK_BYTES,
                          chunk_counts=list(chunk_counts or [])),
           "records": [], "checks": [], "complete": False}
    if s.device.type == "cuda":
        try:
            doc["environment"].update(core_device.environment(s.device.index))
        except Exception:  # the facts are a courtesy: a run without CuPy still measures
            pass
    l2 = torch.cuda.get_device_properties(s.device).L2_cache_size if s.device.type == "cuda" else 0
    doc["p2p"] = _bound_bandwidth(s, log)
    ways = transports(s, peers)
    doc["transports"] = ways
    doc["checks"] = check_all(s, dtypes, seed, chunk_counts or [], log, ways)
    on_record(doc)
    each_way = doc["p2p"].get("each_way_gbs")
    for dtype in dtypes:
        for (R, C) in cases:
            doc["records"] += bench_case(s, R, C, dtype, seed, peers, chunk_counts, reps, warmup, each_way, l2, log,
                                         ways)
            if s.device.type == "cuda":
                torch.cuda.empty_cache()   # the case's buffers go back before the next, larger one
            on_record(doc)
    doc["complete"] = True
    return doc
