"""One rank of a multi-process test, started by ranks.py: `python worker.py MODE RANK WORLD STORE`.
It joins a process group through a file store, runs MODE's checks, and exits 0 only if every
check passed (a failure raises, with the case in the message)."""
import os
import sys

import torch
import torch.distributed as dist

import bwlab.distributed as bd
from bwlab.distributed.transpose import _bits

SHAPES = [(1, 1), (1, 1000), (1000, 1), (3, 2), (7, 5), (33, 31), (1025, 777), (0, 5), (5, 0), (2, 9)]
DTYPES = [torch.bool, torch.float8_e4m3fn, torch.bfloat16, torch.float32, torch.complex64, torch.complex128]


def random_bits(shape, dtype, gen, device="cpu"):
    """Random bit patterns of dtype (NaN payloads and non-0/1 bools included: moved as bits)."""
    size = torch.empty(0, dtype=dtype).element_size()
    raw = torch.randint(0, 256, (*shape, size), dtype=torch.uint8, generator=gen).to(device)
    return raw.view(dtype).reshape(shape)


def same(a, b) -> bool:
    x, y = _bits(a).reshape(-1), _bits(b).reshape(-1)
    if x.element_size() == 16:
        x, y = x.view(torch.int64), y.view(torch.int64)
    return a.shape == b.shape and a.dtype == b.dtype and bool(torch.equal(x, y))


def gloo_cases(rank, world):
    """Every shape x dtype x chunking against the CPU transpose of the whole matrix."""
    n = 0
    for R, C in SHAPES:
        for dtype in DTYPES:
            full = random_bits((R, C), dtype, torch.Generator().manual_seed(R * 7919 + C))
            want = bd.shard_of(_bits(full).t().contiguous(), world, rank)
            c0, c1 = bd.shard_range(C, world, rank)
            for chunks, rows in ((None, None), (3, None), (64, R)):
                got = bd.transpose(bd.shard_of(full, world, rank), chunks=chunks, rows=rows)
                assert same(got, want.view(dtype)), (R, C, dtype, chunks, rows)
                assert got.is_contiguous() and got.shape == (c1 - c0, R)
                n += 1
    # strided views (a column slice, reversed rows) and a subgroup of the world
    full = torch.arange(61 * 90, dtype=torch.float32).view(61, 90)
    view = full[:, ::3].flip(0)
    got = bd.transpose(bd.shard_of(view, world, rank))
    assert torch.equal(got, bd.shard_of(view.t().contiguous(), world, rank))
    # the input is left as it was
    assert torch.equal(full, torch.arange(61 * 90, dtype=torch.float32).view(61, 90))
    if world > 2:
        members = list(range(1, world))
        sub = dist.new_group(members)
        if rank in members:
            me = members.index(rank)
            got = bd.transpose(bd.shard_of(full, len(members), me), group=sub)
            assert torch.equal(got, bd.shard_of(full.t().contiguous(), len(members), me))
    print(f"rank {rank}: {n} cases bit-exact")


def _raises(exc, words, fn):
    try:
        fn()
    except exc as e:
        assert words in str(e), (words, str(e))
        return
    raise AssertionError(f"no {exc.__name__} ({words})")


def gloo_errors(rank, world):
    """Wrong shards raise on every rank, with the same kind of message, and nothing hangs."""
    x = torch.zeros(bd.shard_sizes(10, world)[rank], 6)
    # one rank's dtype differs
    y = x.double() if rank == world - 1 else x
    _raises(ValueError, "disagree on dtype", lambda: bd.transpose(y))
    # one rank's column count differs
    y = torch.zeros(x.shape[0], 7) if rank == 0 else x
    _raises(ValueError, "disagree on columns", lambda: bd.transpose(y))
    # rows that do not follow the rule: everything on rank 0
    y = torch.zeros(10 if rank == 0 else 0, 6)
    _raises(ValueError, "do not follow the sharding rule", lambda: bd.transpose(y))
    # one rank passes something that is not a tensor: it says why, the others name it
    if rank == 0:
        _raises(TypeError, "must be a torch tensor", lambda: bd.transpose([[1.0]]))
    else:
        _raises(ValueError, "rank 0 refused its shard", lambda: bd.transpose(x))
    # a 1-D shard
    if rank == 0:
        _raises(ValueError, "must be 2-D", lambda: bd.transpose(x.view(-1)))
    else:
        _raises(ValueError, "rank 0 refused", lambda: bd.transpose(x))
    # chunks must agree, and so must the transport
    _raises(ValueError, "disagree on chunks", lambda: bd.transpose(x, chunks=1 + rank))
    _raises(ValueError, "disagree on transport: nccl, auto",
            lambda: bd.transpose(x, transport=("nccl", "auto")[rank % 2]))
    # local refusals need no exchange
    _raises(ValueError, "carries no gradient", lambda: bd.transpose(x.clone().requires_grad_()))
    _raises(ValueError, "chunks must be an integer from 1 to 64", lambda: bd.transpose(x, chunks=0))
    _raises(ValueError, f"rank {rank} holds", lambda: bd.transpose(x, rows=10 + world))  # every shard too short
    _raises(TypeError, "rows must be a non-negative integer", lambda: bd.transpose(x, rows=-1))
    # after all that, the group still works
    assert torch.equal(bd.transpose(x), torch.zeros(bd.shard_sizes(6, world)[rank], 10))
    print(f"rank {rank}: refusals as expected")


def nccl_cases(rank, world):
    """On GPU r: random shards (their own seed per rank), gathered, transposed on one GPU by
    bwlab.transpose; the distributed result must match it bit for bit, over both transports
    (p2p where the GPUs reach each other). The caching allocator is filled with 0xFF first, so
    a result element never written would show."""
    import bwlab

    dev = torch.device("cuda", rank)
    ways = ["nccl"] + (["p2p"] if bd.resolve_transport("auto") == "p2p" or world == 1 else [])
    n = 0
    for R, C in SHAPES + [(4099, 4093), (8192, 6000)]:
        for dtype in DTYPES:
            mine = random_bits((bd.shard_sizes(R, world)[rank], C), dtype,
                               torch.Generator().manual_seed(rank * 1_000_003 + R * 7919 + C), dev)
            counts = bd.shard_sizes(R, world)
            pad = torch.zeros((max(counts), C), dtype=dtype, device=dev)
            _bits(pad)[:mine.shape[0]] = _bits(mine)          # bits, not values (bool would be normalised)
            parts = [torch.empty_like(pad) for _ in range(world)]
            dist.all_gather([p.view(-1).view(torch.uint8) for p in parts], pad.view(-1).view(torch.uint8))
            full = torch.cat([_bits(p[:k]) for p, k in zip(parts, counts)]).view(dtype)
            want = bd.shard_of(bwlab.transpose(full), world, rank)
            for chunks in (None, 1, 3):
                for way in ways:
                    poison = torch.full((2 * mine.numel() * mine.element_size() + (1 << 20),), 0xFF,
                                        dtype=torch.uint8, device=dev)
                    del poison
                    got = bd.transpose(mine, chunks=chunks, transport=way)
                    torch.cuda.synchronize(dev)
                    assert same(got, want), (R, C, dtype, chunks, way)
                    n += 1
    # a shard that is a strided, flipped view: the local steps take bwlab.transpose's strided path
    full = torch.arange(61 * 90, dtype=torch.float32, device=dev).view(61, 90)
    view = full[:, ::3].flip(0)
    for way in ways:
        got = bd.transpose(bd.shard_of(view, world, rank), transport=way)
        torch.cuda.synchronize(dev)
        assert torch.equal(got, bd.shard_of(view.t().contiguous(), world, rank)), way
        n += 1
    # p2p: calls back to back on a side stream reuse the receive buffer; each must see its own data
    if "p2p" in ways:
        side = torch.cuda.Stream(dev)
        with torch.cuda.stream(side):
            full = [torch.randn(300 + i, 260, device=dev, generator=torch.Generator(dev).manual_seed(i))
                    for i in range(4)]
            got = [bd.transpose(bd.shard_of(f, world, rank), transport="p2p", chunks=2) for f in full]
        torch.cuda.synchronize(dev)
        for f, g in zip(full, got):
            assert torch.equal(g, bd.shard_of(f.t().contiguous(), world, rank))
        n += 1
    print(f"rank {rank}: {n} cases bit-exact against one GPU ({', '.join(ways)})")


MODES = {"gloo-cases": ("gloo", gloo_cases), "gloo-errors": ("gloo", gloo_errors), "nccl-cases": ("nccl", nccl_cases)}

if __name__ == "__main__":
    mode, rank, world, store = sys.argv[1], int(sys.argv[2]), int(sys.argv[3]), sys.argv[4]
    backend, fn = MODES[mode]
    kw = {}
    if backend == "nccl":
        torch.cuda.set_device(rank)
        kw["device_id"] = torch.device("cuda", rank)
    dist.init_process_group(backend, init_method=f"file://{store}", rank=rank, world_size=world, **kw)
    try:
        fn(rank, world)
    finally:
        dist.destroy_process_group()
    # gloo's threads sometimes abort the interpreter's own exit ("terminate called without an
    # active exception") after everything passed: leave without running C++ destructors
    sys.stdout.flush()
    os._exit(0)
