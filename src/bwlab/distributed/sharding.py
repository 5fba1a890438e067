"""How a matrix is split across the ranks of a process group, and how one rank's part of a
distributed transpose is cut into chunks. Plain integers, no torch: every rank computes the
same numbers from the global shape alone, so no sizes need to be exchanged.

The sharding rule is that of numpy.array_split and torch.tensor_split: n rows over `world`
ranks give the first n % world ranks n // world + 1 rows and the others n // world (so
shards differ by at most one row, and a rank may hold none when n < world). The transpose of
an R x C matrix sharded this way by rows is the C x R matrix sharded the same way: rank p
holds columns shard_range(C, world, p) of the input as rows of the result.

The exchange: rank p sends rank q the block x[rows of p, columns of q]; the block of each
peer is cut into `chunks` column ranges, again by the array_split rule, and chunk k of every
block travels together, so packing chunk k+1, moving chunk k and unpacking chunk k-1 can
overlap. In chunk k, rank q receives from each p the rows of p for its k-th column range,
stacked in rank order: an R x w matrix (w = that range's width) whose transpose is rows
[offset, offset + w) of q's result, contiguous.
"""
from __future__ import annotations

from dataclasses import dataclass
from functools import cached_property
from typing import NamedTuple

CHUNK_BYTES = 64 << 20   # the most bytes one rank sends in one chunk, by default
MAX_CHUNKS = 64


def _check(n: int, world: int) -> None:
    if not isinstance(n, int) or isinstance(n, bool) or n < 0:
        raise ValueError(f"the extent to split must be a non-negative integer, got {n!r}")
    if not isinstance(world, int) or isinstance(world, bool) or world < 1:
        raise ValueError(f"the number of parts must be a positive integer, got {world!r}")


def shard_sizes(n: int, world: int) -> list[int]:
    """The extent of each of `world` shards of n (array_split rule): [3, 3, 2, 2] for 10 over 4."""
    _check(n, world)
    q, r = divmod(n, world)
    return [q + 1 if p < r else q for p in range(world)]


def shard_offsets(n: int, world: int) -> list[int]:
    """Where each shard starts, plus n at the end: [0, 3, 6, 8, 10] for 10 over 4."""
    out = [0]
    for s in shard_sizes(n, world):
        out.append(out[-1] + s)
    return out


def shard_range(n: int, world: int, rank: int) -> tuple[int, int]:
    """[start, stop) of rank's shard of n."""
    _check(n, world)
    if not isinstance(rank, int) or not 0 <= rank < world:
        raise ValueError(f"rank must be 0 to {world - 1}, got {rank!r}")
    q, r = divmod(n, world)
    start = rank * q + min(rank, r)
    return start, start + q + (1 if rank < r else 0)


def chunk_count(rows: int, cols: int, world: int, itemsize: int, chunk_bytes: int = CHUNK_BYTES) -> int:
    """How many chunks the exchange of an R x C matrix is cut into: enough that no rank sends
    more than chunk_bytes in one chunk, at most MAX_CHUNKS, and no more than the widest
    block has columns. The same on every rank (it depends on the global shape only)."""
    _check(rows, world)
    _check(cols, world)
    if chunk_bytes < 1:
        raise ValueError(f"chunk_bytes must be positive, got {chunk_bytes}")
    if world == 1:
        return 1
    rs, cs = shard_sizes(rows, world), shard_sizes(cols, world)
    most = max(r * (cols - c) for r, c in zip(rs, cs)) * itemsize
    return max(1, min(MAX_CHUNKS, -(-most // chunk_bytes), max(cs)))


class Write(NamedTuple):
    """p2p: this rank's block for `peer`, input columns [col, col + cols) of its rows x rows,
    transposed into peer's receive buffer at `offset` (elements), rows elements a row."""
    peer: int
    col: int
    rows: int
    cols: int
    offset: int


class Place(NamedTuple):
    """p2p: a received block, height x width at `offset` (elements) of this rank's receive
    buffer, copied into its result at row `row`, column `col`."""
    offset: int
    row: int
    col: int
    width: int
    height: int


@dataclass(frozen=True)
class Exchange:
    """One rank's part of transposing an R x C matrix sharded by rows over `world` ranks."""
    rows: int      # R, of the whole matrix
    cols: int      # C
    world: int
    rank: int
    chunks: int = 1

    def __post_init__(self):
        _check(self.rows, self.world)
        _check(self.cols, self.world)
        shard_range(self.rows, self.world, self.rank)
        if not isinstance(self.chunks, int) or isinstance(self.chunks, bool) or self.chunks < 1:
            raise ValueError(f"chunks must be a positive integer, got {self.chunks!r}")

    @cached_property
    def row_sizes(self) -> list[int]:
        return shard_sizes(self.rows, self.world)

    @cached_property
    def row_offsets(self) -> list[int]:
        return shard_offsets(self.rows, self.world)

    @cached_property
    def col_sizes(self) -> list[int]:
        return shard_sizes(self.cols, self.world)

    @cached_property
    def col_offsets(self) -> list[int]:
        return shard_offsets(self.cols, self.world)

    @property
    def in_shape(self) -> tuple[int, int]:
        """This rank's input shard: its rows, all columns."""
        return self.row_sizes[self.rank], self.cols

    @property
    def out_shape(self) -> tuple[int, int]:
        """This rank's result shard: its columns of the input, as rows, by all R."""
        return self.col_sizes[self.rank], self.rows

    def cols_of(self, peer: int, k: int) -> tuple[int, int]:
        """Global [start, stop) columns of peer's block in chunk k (peer == rank: the block kept)."""
        base = self.col_offsets[peer]
        a, b = shard_range(self.col_sizes[peer], self.chunks, k)
        return base + a, base + b

    def out_rows(self, k: int) -> tuple[int, int]:
        """[start, stop) rows of this rank's result that chunk k fills."""
        return shard_range(self.col_sizes[self.rank], self.chunks, k)

    def send_count(self, peer: int, k: int) -> int:
        """Elements this rank sends peer in chunk k."""
        a, b = self.cols_of(peer, k)
        return self.row_sizes[self.rank] * (b - a)

    def recv_count(self, peer: int, k: int) -> int:
        """Elements this rank receives from peer in chunk k (peer's rows x this rank's columns)."""
        a, b = self.out_rows(k)
        return self.row_sizes[peer] * (b - a)

    def _layout(self, count) -> dict[tuple[int, int], int]:
        """Offsets of the blocks count(peer, k) laid out chunk by chunk, peer by peer (not self)."""
        out, off = {}, 0
        for k in range(self.chunks):
            for j in range(self.world):
                if j != self.rank:
                    out[k, j] = off
                    off += count(j, k)
        return out

    @cached_property
    def _send_offsets(self) -> dict[tuple[int, int], int]:
        return self._layout(self.send_count)

    def send_offset(self, peer: int, k: int) -> int:
        """Where the block for peer in chunk k starts in a send buffer laid out chunk by chunk,
        peer by peer (the block kept is not in it)."""
        return self._send_offsets[k, peer]

    @cached_property
    def _recv_offsets(self) -> dict[tuple[int, int], int]:
        return self._layout(self.recv_count)

    def recv_offset(self, peer: int, k: int) -> int:
        """Where the block from peer in chunk k starts in a receive buffer laid out chunk by
        chunk, peer by peer (peer's rows x this chunk's columns, transposed: (b - a) x rows of
        peer); the block kept is not in it."""
        return self._recv_offsets[k, peer]

    def peers(self) -> list[int]:
        """The other ranks, the next one first (so that ranks do not all start with the same)."""
        return [(self.rank + s) % self.world for s in range(1, self.world)]

    @cached_property
    def views(self) -> list["Exchange"]:
        """Every rank's Exchange of the same matrix (this one at its own rank)."""
        return [self if q == self.rank else Exchange(self.rows, self.cols, self.world, q, self.chunks)
                for q in range(self.world)]

    def p2p_writes(self, k: int) -> list[Write]:
        """The p2p transport's writes of chunk k into the peers' receive buffers (empty blocks left out)."""
        out = []
        for q in self.peers():
            a, b = self.cols_of(q, k)
            if self.row_sizes[self.rank] and b > a:
                out.append(Write(q, a, self.row_sizes[self.rank], b - a, self.views[q].recv_offset(self.rank, k)))
        return out

    def p2p_places(self, k: int) -> list[Place]:
        """The p2p transport's copies of chunk k from this rank's receive buffer into its result."""
        a, b = self.out_rows(k)
        return [Place(self.recv_offset(p, k), a, self.row_offsets[p], self.row_sizes[p], b - a)
                for p in self.peers() if self.row_sizes[p] and b > a]

    @property
    def send_elements(self) -> int:
        """Elements this rank sends in all (everything but the block it keeps)."""
        return self.row_sizes[self.rank] * (self.cols - self.col_sizes[self.rank])

    @property
    def recv_elements(self) -> int:
        """Elements this rank receives in all."""
        return (self.rows - self.row_sizes[self.rank]) * self.col_sizes[self.rank]

    def busiest_elements(self) -> int:
        """The most elements any rank sends or receives: what sets the time on links that carry
        the same bandwidth each way."""
        rs, cs = self.row_sizes, self.col_sizes
        return max(max(r * (self.cols - c), (self.rows - r) * c) for r, c in zip(rs, cs))
