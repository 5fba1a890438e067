"""Multi-GPU on torch.distributed: a row-sharded matrix transposed across the ranks of a process
group, and the helpers that say who holds which rows (the array_split rule).

    import torch.distributed as dist, bwlab.distributed as bd
    dist.init_process_group("nccl")            # under torchrun
    x = bd.shard_of(full, dist.get_world_size(), dist.get_rank())   # or each rank's own rows
    y = bd.transpose(x)                        # rows shard_range(C, world, rank) of full.T

Importing this package does not import torch; calling transpose() does. The benchmarks
(`bwlab p2p`, `bwlab bench distributed`) live in p2p.py and bench.py.
"""
from __future__ import annotations

from .sharding import CHUNK_BYTES, MAX_CHUNKS, Exchange, chunk_count, shard_offsets, shard_range, shard_sizes
from .transpose import TRANSPORTS, release_buffers, resolve_transport, transpose


def shard_of(x, world: int, rank: int):
    """Rank's rows of a whole matrix x (any array with slicing), by the sharding rule."""
    a, b = shard_range(x.shape[0], world, rank)
    return x[a:b]


__all__ = ["CHUNK_BYTES", "MAX_CHUNKS", "TRANSPORTS", "Exchange", "chunk_count", "release_buffers",
           "resolve_transport", "shard_of", "shard_offsets", "shard_range", "shard_sizes", "transpose"]
