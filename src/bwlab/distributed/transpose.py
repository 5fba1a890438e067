"""bwlab.distributed.transpose(): the transpose of a matrix sharded by rows across the ranks of a
torch.distributed process group, sharded by rows the same way (rule in sharding.py).

Each rank packs one block per peer (the columns that peer will own, its own rows), the blocks
cross the interconnect, and each rank transposes what it received into its result. The work is
cut into chunks (sharding.Exchange): on CUDA, packing runs on one stream, the transfers of each
chunk on the communicator's stream (NCCL, batched sends and receives), unpacking on a third, so
chunk k+1 is packed while chunk k moves and chunk k-1 is unpacked. Packing and unpacking are
bwlab.transpose launches (packing is its one-copy path: a block's transposed view); CPU
tensors (gloo) take the same steps with torch's copies, one chunk after the other.

Elements are moved as bits (integer views of the same size), so every dtype is exact.
"""
from __future__ import annotations

import zlib
from typing import Optional

from .sharding import MAX_CHUNKS, Exchange, chunk_count, shard_sizes

_streams: dict = {}   # CUDA device index -> (pack stream, unpack stream)
_ready: dict = {}     # id(group) -> group, for groups whose NCCL communicator has been set up

_INT = {1: "int8", 2: "int16", 4: "int32", 8: "int64"}


def transpose(x_shard, *, group=None, rows: Optional[int] = None, chunks: Optional[int] = None):
    """The transpose of a row-sharded matrix, row-sharded the same way.

    Every rank of `group` (default: the whole world) calls it with its shard: the rows
    shard_range(R, world, rank) of an R x C matrix (array_split rule: the first R % world ranks
    hold one row more). Each gets a new C-contiguous tensor holding rows shard_range(C, world,
    rank) of the C x R transpose. Any R and C (0 included), any dtype (moved bit for bit), any
    strides. CUDA tensors need a group on NCCL, CPU tensors one on gloo. No gradient is carried.

    rows: the global row count R. Without it the ranks first exchange their shard shapes (a small
    all_gather, which waits on the host for the GPU): every shard is then checked against the
    others, and a wrong one raises ValueError on every rank rather than hanging. With it nothing
    is exchanged before the transfer and only the local shard is checked.
    chunks: how many chunks the exchange is cut into (default: about 64 MiB sent per rank and
    chunk, at most 64); the same on every rank. On one rank, chunks= runs the chunked exchange
    with nothing to send (a test of its local steps); without it, one local transpose.
    """
    import torch
    import torch.distributed as dist

    if not (dist.is_available() and dist.is_initialized()):
        raise RuntimeError("bwlab.distributed.transpose needs a process group: call "
                           "torch.distributed.init_process_group first (torchrun sets up its environment)")
    g = group if group is not None else dist.group.WORLD
    rank, world = dist.get_rank(g), dist.get_world_size(g)
    if rank < 0:
        raise ValueError("this process is not a member of the group passed")
    backend = str(dist.get_backend(g)).lower()
    problem = _local_problem(x_shard, backend, rows, chunks)
    if rows is None:
        rows = _agree(x_shard, problem, backend, g, rank, world, chunks)
    elif problem is not None:
        raise problem
    else:
        want = shard_sizes(rows, world)[rank]
        if x_shard.shape[0] != want:
            raise ValueError(f"rank {rank} holds {x_shard.shape[0]} rows, but rank {rank}'s shard of {rows} rows over "
                             f"{world} ranks has {want} (array_split rule: bwlab.distributed.shard_sizes)")
    cols = x_shard.shape[1]
    k = chunks or chunk_count(rows, cols, world, x_shard.element_size())
    ex = Exchange(rows, cols, world, rank, k)
    bits = _bits(x_shard)
    direct = world == 1 and chunks is None   # one rank, no chunking asked for: one local transpose
    if x_shard.is_cuda:
        with torch.cuda.device(x_shard.device):
            out = _cuda(bits, ex, g, direct)
    else:
        out = _cpu(bits, ex, g, direct)
    return out.view(x_shard.dtype)


# --- checks: locally, then (without rows=) against every other rank ----------------------------

def _local_problem(x, backend: str, rows, chunks) -> Optional[Exception]:
    """What is wrong with this rank's arguments, as the exception to raise (None: nothing)."""
    import torch

    if not isinstance(x, torch.Tensor):
        return TypeError(f"x_shard must be a torch tensor, got {type(x).__name__}")
    if x.layout != torch.strided:
        return TypeError(f"x_shard: {x.layout} tensors are not supported; pass a dense (strided) tensor")
    if x.dim() != 2:
        return ValueError(f"x_shard must be 2-D (its rows of the matrix), got shape {tuple(x.shape)}")
    if x.is_quantized:
        return TypeError("x_shard: quantized tensors are not supported")
    if x.requires_grad and torch.is_grad_enabled():
        return ValueError("x_shard requires grad, and the distributed transpose carries no gradient: pass x.detach()")
    if x.is_cuda and "nccl" not in backend:
        return TypeError(f"x_shard is on {x.device} but the group's backend is {backend}: CUDA tensors need NCCL")
    if not x.is_cuda and x.device.type != "cpu":
        return TypeError(f"x_shard is on {x.device}; CUDA tensors (NCCL) and CPU tensors (gloo) are supported")
    if x.device.type == "cpu" and "gloo" not in backend:
        return TypeError(f"x_shard is a CPU tensor but the group's backend is {backend}: CPU tensors need gloo")
    if rows is not None and (not isinstance(rows, int) or isinstance(rows, bool) or rows < 0):
        return TypeError(f"rows must be a non-negative integer (the global row count), got {rows!r}")
    if chunks is not None and (not isinstance(chunks, int) or isinstance(chunks, bool)
                               or not 1 <= chunks <= MAX_CHUNKS):
        return ValueError(f"chunks must be an integer from 1 to {MAX_CHUNKS}, got {chunks!r}")
    return None


def _agree(x, problem, backend: str, g, rank: int, world: int, chunks) -> int:
    """Every rank's shard shape, dtype and device kind, exchanged and checked the same way on
    every rank (so all raise together); the global row count."""
    import torch
    import torch.distributed as dist

    if "nccl" in backend:
        dev = x.device if problem is None and x.is_cuda else torch.device("cuda", torch.cuda.current_device())
    else:
        dev = torch.device("cpu")
    if problem is None:
        mine = [1, x.shape[0], x.shape[1], zlib.crc32(str(x.dtype).encode()), int(x.is_cuda), chunks or 0]
    else:
        mine = [0, 0, 0, 0, 0, 0]
    t = torch.tensor(mine, dtype=torch.int64, device=dev)
    got = [torch.empty_like(t) for _ in range(world)]
    dist.all_gather(got, t, group=g)
    if dev.type == "cuda":
        _ready[id(g)] = g   # the gather set up the communicator
    table = torch.stack(got).tolist()
    if problem is not None:
        raise problem
    bad = [p for p, v in enumerate(table) if not v[0]]
    if bad:
        raise ValueError(f"rank {bad[0]} refused its shard (its own error says why); nothing was exchanged")
    for what, col in (("columns", 2), ("dtype", 3), ("device kind (CPU or CUDA)", 4), ("chunks", 5)):
        if len({v[col] for v in table}) > 1:
            detail = ", ".join(str(v[col]) for v in table) if col in (2, 5) else ""
            raise ValueError(f"the shards disagree on {what}" + (f": {detail} by rank" if detail else "")
                             + "; every rank must pass the same")
    counts = [v[1] for v in table]
    total = sum(counts)
    if counts != shard_sizes(total, world):
        raise ValueError(f"shard rows by rank {counts} do not follow the sharding rule for {total} rows over {world} "
                         f"ranks, {shard_sizes(total, world)} (array_split: bwlab.distributed.shard_sizes)")
    return total


def _bits(t):
    """t seen as integers of its element size (16-byte elements stay as they are)."""
    import torch

    name = _INT.get(t.element_size())
    return t.view(getattr(torch, name)) if name else t


def _peers(ex: Exchange) -> list[int]:
    """Peers in the order blocks are packed and posted: the next rank first, so that ranks do
    not all start with the same one."""
    return [(ex.rank + s) % ex.world for s in range(ex.world)]


# --- CUDA: three streams and NCCL -------------------------------------------------------------

def _side_streams(device):
    import torch

    if device.index not in _streams:
        _streams[device.index] = (torch.cuda.Stream(device), torch.cuda.Stream(device))
    return _streams[device.index]


def _ensure_communicator(g, device) -> None:
    """NCCL sets up a group's communicator on its first collective, which every rank must join;
    a chunk in which some ranks have nothing to send would otherwise be the first."""
    import torch
    import torch.distributed as dist

    if id(g) not in _ready:
        dist.all_reduce(torch.zeros(1, device=device), group=g)
        _ready[id(g)] = g


def _cuda(x, ex: Exchange, g, direct: bool):
    import torch
    import torch.distributed as dist

    from ..workloads.transpose.api import transpose as local_transpose

    R = ex.rows
    dev = x.device
    out = torch.empty(ex.out_shape, dtype=x.dtype, device=dev)
    if direct:
        if out.numel():
            local_transpose(x, out)
        return out
    _ensure_communicator(g, dev)
    cur = torch.cuda.current_stream(dev)
    pack_s, unpack_s = _side_streams(dev)
    send = torch.empty(ex.send_elements, dtype=x.dtype, device=dev)
    recv = torch.empty(R * ex.col_sizes[ex.rank], dtype=x.dtype, device=dev)
    pack_s.wait_stream(cur)
    unpack_s.wait_stream(cur)
    me, r_me = ex.rank, x.shape[0]
    glob = [dist.get_global_rank(g, p) for p in range(ex.world)]
    for k in range(ex.chunks):
        a, b = ex.out_rows(k)
        block = recv[R * a:R * b].view(R, b - a)   # chunk k arrives here, peers' rows in rank order
        ops = []
        with torch.cuda.stream(pack_s):
            for j in _peers(ex):
                c0, c1 = ex.cols_of(j, k)
                if r_me == 0 or c0 == c1:
                    continue
                if j == me:
                    dst = block[ex.row_offsets[me]:ex.row_offsets[me + 1]]
                else:
                    off = ex.send_offset(j, k)
                    dst = send[off:off + r_me * (c1 - c0)].view(r_me, c1 - c0)
                local_transpose(x[:, c0:c1].t(), dst, stream=pack_s)   # a copy of the block, made contiguous
                if j != me:
                    ops.append(dist.P2POp(dist.isend, dst.view(-1).view(torch.uint8), glob[j], g))
            for i in _peers(ex):
                if i != me and ex.recv_count(i, k):
                    slot = block[ex.row_offsets[i]:ex.row_offsets[i + 1]]
                    ops.append(dist.P2POp(dist.irecv, slot.reshape(-1).view(torch.uint8), glob[i], g))
            works = dist.batch_isend_irecv(ops) if ops else []   # the NCCL stream waits for this packing
            packed = pack_s.record_event()
        with torch.cuda.stream(unpack_s):
            for w in works:
                w.wait()      # this stream waits for the transfers, not the host
            unpack_s.wait_event(packed)
            if b > a and R:
                local_transpose(block, out[a:b], stream=unpack_s)
    cur.wait_stream(pack_s)
    cur.wait_stream(unpack_s)
    return out


# --- CPU: the same exchange with torch's copies on gloo ---------------------------------------

def _cpu(x, ex: Exchange, g, direct: bool):
    import torch
    import torch.distributed as dist

    R = ex.rows
    out = torch.empty(ex.out_shape, dtype=x.dtype)
    if direct:
        out.copy_(x.t())
        return out
    send = torch.empty(ex.send_elements, dtype=x.dtype)
    recv = torch.empty(R * ex.col_sizes[ex.rank], dtype=x.dtype)
    me, r_me = ex.rank, x.shape[0]
    glob = [dist.get_global_rank(g, p) for p in range(ex.world)]
    for k in range(ex.chunks):
        a, b = ex.out_rows(k)
        block = recv[R * a:R * b].view(R, b - a)
        ops = []
        for j in _peers(ex):
            c0, c1 = ex.cols_of(j, k)
            if r_me == 0 or c0 == c1:
                continue
            if j == me:
                block[ex.row_offsets[me]:ex.row_offsets[me + 1]].copy_(x[:, c0:c1])
                continue
            off = ex.send_offset(j, k)
            dst = send[off:off + r_me * (c1 - c0)].view(r_me, c1 - c0)
            dst.copy_(x[:, c0:c1])
            ops.append(dist.P2POp(dist.isend, dst.view(-1).view(torch.uint8), glob[j], g))
        for i in _peers(ex):
            if i != me and ex.recv_count(i, k):
                slot = block[ex.row_offsets[i]:ex.row_offsets[i + 1]]
                ops.append(dist.P2POp(dist.irecv, slot.reshape(-1).view(torch.uint8), glob[i], g))
        for w in (dist.batch_isend_irecv(ops) if ops else []):
            w.wait()
        if b > a:
            out[a:b].copy_(block.t())
    return out
