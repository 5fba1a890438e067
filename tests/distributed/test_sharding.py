"""The sharding rule and the exchange's arithmetic, without torch: every rank's blocks, chunk
by chunk, simulated with NumPy, must assemble the transpose exactly, at any shape (0, 1, primes,
fewer rows than ranks), any world size from 1 to 8 and any chunk count."""
import numpy as np
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from bwlab.distributed import (MAX_CHUNKS, Exchange, chunk_count, shard_of, shard_offsets, shard_range,
                               shard_sizes)


def test_rule_is_array_split():
    assert shard_sizes(10, 4) == [3, 3, 2, 2]
    assert shard_offsets(10, 4) == [0, 3, 6, 8, 10]
    assert shard_sizes(3, 8) == [1, 1, 1, 0, 0, 0, 0, 0]
    assert shard_sizes(0, 3) == [0, 0, 0]
    for n in range(0, 40):
        for w in range(1, 9):
            got = [len(p) for p in np.array_split(np.arange(n), w)]
            assert shard_sizes(n, w) == got
            assert [shard_range(n, w, r) for r in range(w)] == list(zip(shard_offsets(n, w)[:-1],
                                                                       shard_offsets(n, w)[1:]))


@pytest.mark.parametrize("args, words", [((-1, 2), "non-negative"), ((5, 0), "positive"), ((5, 2.0), "positive"),
                                         ((True, 2), "non-negative")])
def test_rule_refuses_bad_arguments(args, words):
    with pytest.raises(ValueError, match=words):
        shard_sizes(*args)


def test_range_refuses_a_rank_outside_the_world():
    with pytest.raises(ValueError, match="rank must be 0 to 3"):
        shard_range(10, 4, 4)
    with pytest.raises(ValueError, match="chunks"):
        Exchange(4, 4, 2, 0, 0)


def test_shard_of_takes_the_rule_s_rows():
    x = np.arange(70).reshape(10, 7)
    assert np.array_equal(np.concatenate([shard_of(x, 4, r) for r in range(4)]), x)
    assert shard_of(x, 4, 3).shape == (2, 7)


def test_chunk_count_is_bounded_and_rank_independent():
    assert chunk_count(32768, 32768, 1, 4) == 1
    # 2 ranks of 32768 x 32768 float32: each sends 1 GiB: 16 chunks of 64 MiB
    assert chunk_count(32768, 32768, 2, 4) == 16
    assert chunk_count(32768, 32768, 2, 4, chunk_bytes=1 << 30) == 1
    assert chunk_count(1 << 20, 1 << 16, 8, 8) == MAX_CHUNKS
    assert chunk_count(100000, 3, 4, 16) <= 1   # no more chunks than the widest block has columns
    assert chunk_count(5, 0, 3, 4) == 1


def simulate(R, C, world, chunks, rng):
    """Every rank's pack, exchange and unpack of an R x C matrix, by the Exchange arithmetic alone."""
    full = rng.integers(0, 1 << 30, size=(R, C))
    ex = [Exchange(R, C, world, p, chunks) for p in range(world)]
    shards = [shard_of(full, world, p) for p in range(world)]
    sends = []
    for p, e in enumerate(ex):   # pack: one buffer per rank, blocks laid out by send_offset
        buf = np.full(e.send_elements, -1)
        filled = np.zeros(e.send_elements, dtype=int)
        for k in range(chunks):
            for j in range(world):
                if j == p:
                    continue
                c0, c1 = e.cols_of(j, k)
                off, n = e.send_offset(j, k), e.send_count(j, k)
                assert n == shards[p].shape[0] * (c1 - c0)
                buf[off:off + n] = shards[p][:, c0:c1].reshape(-1)
                filled[off:off + n] += 1
        assert (filled == 1).all(), "send blocks tile the buffer exactly once"
        sends.append(buf)
    outs = []
    for q, e in enumerate(ex):   # receive chunk by chunk into an R x w block, then transpose
        out = np.full(e.out_shape, -1)
        covered = np.zeros(e.out_shape[0], dtype=int)
        for k in range(chunks):
            a, b = e.out_rows(k)
            covered[a:b] += 1
            block = np.full((R, b - a), -1)
            for p in range(world):
                r0, r1 = e.row_offsets[p], e.row_offsets[p + 1]
                if p == q:
                    c0, c1 = e.cols_of(q, k)
                    block[r0:r1] = shards[p][:, c0:c1]
                    continue
                n = e.recv_count(p, k)
                assert n == ex[p].send_count(q, k), "sender and receiver agree on every block's size"
                off = ex[p].send_offset(q, k)
                block[r0:r1] = sends[p][off:off + n].reshape(r1 - r0, b - a)
            out[a:b] = block.T
        assert (covered == 1).all(), "chunks cover the result's rows exactly once"
        outs.append(out)
    assert np.array_equal(np.concatenate(outs), full.T)
    busiest = max(max(e.send_elements, e.recv_elements) for e in ex)
    assert busiest == ex[0].busiest_elements()
    assert sum(e.send_elements for e in ex) == sum(e.recv_elements for e in ex) == \
        R * C - sum(r * c for r, c in zip(shard_sizes(R, world), shard_sizes(C, world)))
    simulate_p2p(full, ex)


def _pitched(src, s0, ldi, dst, d0, ldo, rows, cols):
    """What transpose_pitched does, on flat arrays: dst[d0 + j * ldo + i] = src[s0 + i * ldi + j]."""
    for i in range(rows):
        dst[d0 + np.arange(cols) * ldo + i] = src[s0 + i * ldi + np.arange(cols)]


def simulate_p2p(full, ex):
    """The p2p transport as _cuda_p2p runs it, on flat arrays with its offsets and pitches: each
    rank's own block into its result (pitch R), then per chunk its p2p_writes into the peers'
    receive buffers and each rank's p2p_places from its buffer into its result."""
    R, C = full.shape
    world = len(ex)
    shards = [np.ascontiguousarray(shard_of(full, world, p)).reshape(-1) for p in range(world)]
    size = max(v.recv_elements for v in ex[0].views)
    assert all(e.views[q].recv_elements == ex[q].recv_elements for e in ex for q in range(world))
    bufs = [np.full(size, -1) for _ in ex]
    written = [np.zeros(size, dtype=int) for _ in ex]
    outs = [np.full(e.out_shape[0] * R, -1) for e in ex]
    for p, e in enumerate(ex):
        _pitched(shards[p], e.col_offsets[p], C, outs[p], e.row_offsets[p], R, e.row_sizes[p], e.col_sizes[p])
    for k in range(ex[0].chunks):
        for p, e in enumerate(ex):
            for w in e.p2p_writes(k):
                assert w.peer != p and w.rows == e.row_sizes[p]
                _pitched(shards[p], w.col, C, bufs[w.peer], w.offset, w.rows, w.rows, w.cols)
                written[w.peer][w.offset:w.offset + w.rows * w.cols] += 1
        for q, e in enumerate(ex):
            for c in e.p2p_places(k):
                for h in range(c.height):
                    at = (c.row + h) * R + c.col
                    outs[q][at:at + c.width] = bufs[q][c.offset + h * c.width:c.offset + (h + 1) * c.width]
    for q, e in enumerate(ex):
        n = e.recv_elements
        assert (written[q][:n] == 1).all() and not written[q][n:].any(), "receive blocks tile each buffer once"
    assert np.array_equal(np.concatenate(outs).reshape(C, R), full.T)


@pytest.mark.parametrize("world", range(1, 9))
@pytest.mark.parametrize("R, C", [(0, 0), (0, 5), (5, 0), (1, 1), (1, 17), (17, 1), (3, 2), (7, 5), (33, 31),
                                  (64, 64), (101, 13)])
def test_exchange_assembles_the_transpose(world, R, C):
    rng = np.random.default_rng(R * 1000 + C)
    for chunks in {1, 2, 3, chunk_count(R, C, world, 4, chunk_bytes=64)}:
        simulate(R, C, world, chunks, rng)


@settings(max_examples=60, deadline=None)
@given(R=st.integers(0, 60), C=st.integers(0, 60), world=st.integers(1, 8), chunks=st.integers(1, 9))
def test_exchange_assembles_the_transpose_anywhere(R, C, world, chunks):
    simulate(R, C, world, chunks, np.random.default_rng(0))
