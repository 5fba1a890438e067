"""bwlab.distributed.transpose(): the transpose of a matrix sharded by rows across the ranks of a
torch.distributed process group, sharded by rows the same way (rule in sharding.py).

Each rank's shard holds one block per peer (the columns that peer will own, its own rows). The
work is cut into chunks (sharding.Exchange) so that the steps overlap. Two transports:

- p2p (every rank's GPU can reach every other's memory, one machine): each rank transposes
  its blocks straight into the peers' receive buffers (torch symmetric memory, over NVLink),
  on a high-priority stream and a capped grid; its own block goes straight into its result
  meanwhile; after each chunk the ranks meet (a barrier on the GPU) and each copies what it
  received into its result's columns with the copy engines. Bytes cross the link once and no
  multiprocessor waits on NCCL.
- nccl (anything else, or when asked): packing runs on one stream, the transfers of each chunk
  on the communicator's stream (batched sends and receives), unpacking on a third, so chunk
  k+1 is packed while chunk k moves and chunk k-1 is unpacked.

The local steps are bwlab's own transpose kernels. CPU tensors (gloo) take the nccl steps with
torch's copies, one chunk after the other. Elements are moved as bits (integer views of the
same size), so every dtype is exact.
"""
from __future__ import annotations

import socket
import zlib
from typing import Optional

from .sharding import MAX_CHUNKS, Exchange, chunk_count, shard_sizes

_streams: dict = {}   # CUDA device index -> (pack stream, unpack stream)
_ready: dict = {}     # id(group) -> group, for groups whose NCCL communicator has been set up
_p2p: dict = {}       # (id(group), device index) -> _Receive, "possible", or None where p2p cannot run
_groups: dict = {}    # id(group) -> group for the keys of _p2p: kept alive, so no later group takes its id

TRANSPORTS = ("auto", "p2p", "nccl")
MAX_PITCH = 2**31 - 1    # bytes: the largest row pitch of cudaMemcpy2D (cudaDevAttrMaxPitch)
LINK_BLOCKS_PER_SM = 1   # blocks of a launch that writes into a peer's memory, per multiprocessor:
#                          the best of 1/4 to 3 and no cap in a sweep on two H200 (fewer leave the
#                          link idle; no cap makes the local block and the copies wait)

_INT = {1: "int8", 2: "int16", 4: "int32", 8: "int64"}


def transpose(x_shard, *, group=None, rows: Optional[int] = None, chunks: Optional[int] = None,
              transport: str = "auto"):
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
    transport: "auto" (p2p where every rank's GPU can reach every other's memory on one
    machine, else nccl), "p2p" or "nccl"; the same on every rank. p2p keeps one receive buffer
    per process group and GPU, as large as the largest exchange so far (release_buffers()
    frees them).
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
    problem = _local_problem(x_shard, backend, rows, chunks, transport)
    if rows is None:
        rows = _agree(x_shard, problem, backend, g, rank, world, chunks, transport)
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
            if not direct and _transport_for(transport, g, rows, x_shard.element_size()) == "p2p":
                out = _cuda_p2p(bits, ex, g)
            else:
                out = _cuda(bits, ex, g, direct)
    else:
        out = _cpu(bits, ex, g, direct)
    return out.view(x_shard.dtype)


# --- checks: locally, then (without rows=) against every other rank ----------------------------

def _local_problem(x, backend: str, rows, chunks, transport) -> Optional[Exception]:
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
    if transport not in TRANSPORTS:
        return ValueError(f"transport must be one of {', '.join(TRANSPORTS)}, got {transport!r}")
    if transport == "p2p" and not x.is_cuda:
        return ValueError("transport 'p2p' moves CUDA tensors; CPU tensors take gloo (transport 'auto' or 'nccl')")
    return None


def _agree(x, problem, backend: str, g, rank: int, world: int, chunks, transport) -> int:
    """Every rank's shard shape, dtype and device kind, exchanged and checked the same way on
    every rank (so all raise together); the global row count."""
    import torch
    import torch.distributed as dist

    if "nccl" in backend:
        dev = x.device if problem is None and x.is_cuda else torch.device("cuda", torch.cuda.current_device())
    else:
        dev = torch.device("cpu")
    if problem is None:
        mine = [1, x.shape[0], x.shape[1], zlib.crc32(str(x.dtype).encode()), int(x.is_cuda), chunks or 0,
                TRANSPORTS.index(transport)]
    else:
        mine = [0] * 7
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
    for what, col in (("columns", 2), ("dtype", 3), ("device kind (CPU or CUDA)", 4), ("chunks", 5),
                      ("transport", 6)):
        if len({v[col] for v in table}) > 1:
            detail = ", ".join(str(v[col]) if col != 6 else TRANSPORTS[v[col]] for v in table) \
                if col in (2, 5, 6) else ""
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
    """Ranks in the order blocks are packed and posted: this one, then the next ones, so that
    ranks do not all start with the same peer."""
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


# --- CUDA, p2p: transposing writes into the peers' memory -------------------------------------

class _Receive:
    """This rank's receive buffer in a group's symmetric memory, and the peers' as pointers."""

    def __init__(self, g, device, nbytes: int):
        import torch
        import torch.distributed._symmetric_memory as symm

        self.nbytes = nbytes
        self.buffer = symm.empty(max(nbytes, 16), dtype=torch.uint8, device=device)
        self.handle = symm.rendezvous(self.buffer, group=g)
        self.ptrs = [self.handle.get_buffer(q, (max(nbytes, 16),), torch.uint8, 0).data_ptr()
                     for q in range(self.handle.world_size)]
        # high priority: the link-bound writes get multiprocessors before the local work
        self.write = torch.cuda.Stream(device, priority=-1)
        self.copy = torch.cuda.Stream(device)
        sms = torch.cuda.get_device_properties(device).multi_processor_count
        self.link_blocks = max(1, round(LINK_BLOCKS_PER_SM * sms))


def _transport_for(transport: str, g, rows: int, itemsize: int) -> str:
    """The transport of one call: p2p places received blocks with copies whose destination pitch
    (a result row, rows x itemsize bytes) the copy engines take up to MAX_PITCH bytes."""
    way = resolve_transport(transport, g)
    if way == "p2p" and rows * itemsize > MAX_PITCH:
        if transport == "p2p":
            raise ValueError(f"transport 'p2p' places rows of the result of at most {MAX_PITCH} bytes; these have "
                             f"{rows} x {itemsize}: use transport 'nccl' (or 'auto')")
        return "nccl"
    return way


def _p2p_possible(g, device) -> bool:
    """Whether every rank of g drives a GPU of this machine that reaches every other's memory;
    the same answer on every rank (each sees the whole table)."""
    import torch
    import torch.distributed as dist

    try:
        import torch.distributed._symmetric_memory  # noqa: F401
        symm = True
    except ImportError:
        symm = False
    world = dist.get_world_size(g)
    every = [None] * world
    dist.all_gather_object(every, (socket.gethostname(), device.index, symm), group=g)
    hosts, gpus = {h for h, _, _ in every}, [i for _, i, _ in every]
    if not all(s for _, _, s in every) or len(hosts) > 1 or len(set(gpus)) < world \
            or max(gpus) >= torch.cuda.device_count():
        return False
    return all(torch.cuda.can_device_access_peer(a, b) for a in gpus for b in gpus if a != b)


def resolve_transport(transport: str, group=None) -> str:
    """What `transport` means for CUDA tensors on this group: "p2p" or "nccl". The first call
    per group and GPU asks every rank (a collective: every rank must call it)."""
    import torch
    import torch.distributed as dist

    if transport not in TRANSPORTS:
        raise ValueError(f"transport must be one of {', '.join(TRANSPORTS)}, got {transport!r}")
    if transport == "nccl":
        return transport
    g = group if group is not None else dist.group.WORLD
    if "nccl" not in str(dist.get_backend(g)).lower():
        if transport == "p2p":
            raise ValueError("transport 'p2p' needs a process group on NCCL (CUDA tensors)")
        return "nccl"
    if dist.get_world_size(g) == 1:
        return "p2p" if transport == "p2p" else "nccl"   # one rank: p2p runs its local steps alone
    key = (id(g), torch.cuda.current_device())
    if key not in _p2p:
        _groups[id(g)] = g
        _p2p[key] = "possible" if _p2p_possible(g, torch.device("cuda", key[1])) else None
    if _p2p[key] is None and transport == "p2p":
        raise ValueError("transport 'p2p' needs every rank's GPU on one machine, each reaching the others' memory "
                         "(peer access); transport 'auto' falls back to NCCL")
    return "p2p" if _p2p[key] is not None else "nccl"


def _receive(g, device, nbytes: int) -> _Receive:
    """The group's receive buffer of at least nbytes (every rank asks for the same size, so a
    new one is made on every rank together)."""
    import torch

    key = (id(g), device.index)
    have = _p2p.get(key)
    if not isinstance(have, _Receive) or have.nbytes < nbytes:
        if isinstance(have, _Receive):
            torch.cuda.synchronize(device)   # nothing may still read or write the old one
        _p2p[key] = have = None              # the old buffer goes before the new one is made
        try:
            _p2p[key] = _Receive(g, device, nbytes)
        except Exception as exc:
            raise RuntimeError(f"bwlab.distributed.transpose: symmetric memory for the p2p transport failed "
                               f"({type(exc).__name__}: {exc}); pass transport='nccl'") from exc
    return _p2p[key]


def release_buffers() -> None:
    """Free the p2p transport's receive buffers (every rank together: it synchronizes its GPUs)."""
    import torch

    for key, v in list(_p2p.items()):
        if isinstance(v, _Receive):
            torch.cuda.synchronize(v.buffer.device)
            _p2p[key] = "possible"


def _cuda_p2p(x, ex: Exchange, g):
    import cupy
    import torch

    from ..workloads.transpose.pitched import transpose_pitched

    R, E, me, dev = ex.rows, x.element_size(), ex.rank, x.device
    box = _receive(g, dev, max(v.recv_elements for v in ex.views) * E)
    out = torch.empty(ex.out_shape, dtype=x.dtype, device=dev)
    if x.numel() and x.stride(1) != 1:
        x = x.contiguous()   # the kernels read rows of unit stride
    r_me, ldi, xp, op = x.shape[0], x.stride(0), x.data_ptr(), out.data_ptr()
    cur = torch.cuda.current_stream(dev)
    box.write.wait_stream(cur)
    box.write.wait_stream(box.copy)   # this rank's copies out of its buffer, from the last call
    box.copy.wait_stream(cur)
    with torch.cuda.stream(box.write):
        box.handle.barrier(0)          # ... and every other rank's: the buffers may be written
    c0 = ex.col_offsets[me]
    transpose_pitched(xp + c0 * E, ldi, op + ex.row_offsets[me] * E, R, r_me, ex.col_sizes[me], E, dev.index,
                      box.copy.cuda_stream)   # the block kept, into its columns of the result
    rt = cupy.cuda.runtime
    for k in range(ex.chunks):
        for w in ex.p2p_writes(k):
            transpose_pitched(xp + w.col * E, ldi, box.ptrs[w.peer] + w.offset * E, w.rows, w.rows, w.cols, E,
                              dev.index, box.write.cuda_stream, box.link_blocks)
        with torch.cuda.stream(box.write):
            box.handle.barrier(0)      # every rank's chunk k has landed
        box.copy.wait_event(box.write.record_event())
        for c in ex.p2p_places(k):
            rt.memcpy2DAsync(op + (c.row * R + c.col) * E, R * E, box.ptrs[me] + c.offset * E, c.width * E,
                             c.width * E, c.height, rt.memcpyDeviceToDevice, box.copy.cuda_stream)
    cur.wait_stream(box.write)
    cur.wait_stream(box.copy)
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
