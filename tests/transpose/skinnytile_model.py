"""A NumPy model of skinnyTile (kernels/skinnytile.cu): every block, warp and lane, every
global and shared access, written after the CUDA source line by line.

run(E, S, n, tall, words) simulates the whole launch on byte ids (input byte i holds id i) and
returns the output bytes' ids, how often each output byte was written, and every warp-wide
shared access (for the bank model); words=True models skinnyWords, the same file's tall-only
kernel for 1- and 2-byte elements that moves a bundle of 4/E rows per shared word. The geometry
(rlog, pitch, blocks) comes from plans.py, as the launch takes it.
"""
from __future__ import annotations

from dataclasses import dataclass, field

import numpy as np

from bwlab.workloads.transpose import plans

THREADS, LOADS, LOADS_HALO = 256, 9, 13
ZERO = -1    # a byte a guarded load returned as zero (outside the input)
UNSET = -2   # shared memory never written by this block


@dataclass
class Access:
    """One warp-wide shared access: byte address and size per active lane."""
    what: str
    addrs: np.ndarray
    size: int


@dataclass
class Result:
    out: np.ndarray               # id of the input byte each output byte holds (UNSET: never written)
    writes: np.ndarray            # stores per output byte
    accesses: list = field(default_factory=list)
    inner_tiles: int = 0          # TALL tiles that took the plain (unguarded, unclipped) path


def _load16(ids_in: np.ndarray, vec: np.ndarray, ok: np.ndarray) -> np.ndarray:
    """load16_guarded: 16 ids per vector index, ZERO outside the buffer or where not ok (bytes
    outside the input are never read: the kernel's guard is the same test)."""
    b = vec[:, None] * 16 + np.arange(16)[None, :]
    inside = (b >= 0) & (b < ids_in.size) & ok[:, None]
    return np.where(inside, ids_in[np.clip(b, 0, ids_in.size - 1)], ZERO)


def _store16_clipped(res: Result, vec: np.ndarray, vals: np.ndarray, lo, hi, ok, plain: bool = False):
    """store16_clipped; plain: the inner tiles' unclipped store, whose 16 bytes must all lie in [lo, hi)."""
    b = vec[:, None] * 16 + np.arange(16)[None, :]
    keep = ok[:, None] & (b >= np.asarray(lo)[..., None]) & (b < np.asarray(hi)[..., None])
    assert not plain or (keep == ok[:, None]).all(), "an inner tile's plain store leaves its row"
    np.add.at(res.writes, b[keep], 1)
    res.out[b[keep]] = vals[keep]


def _rot(lane: np.ndarray, g: np.ndarray, upv: int) -> np.ndarray:
    """((lane >> 3) - (g - g of lane 0 of the warp)) & (UPV - 1), per thread of the block."""
    g0 = np.repeat(g.reshape(-1, 32)[:, 0], 32)
    return ((lane >> 3) - (g - g0)) & (upv - 1)


def _record(res: Result, what: str, addrs: np.ndarray, active: np.ndarray, size: int) -> None:
    """One access per warp: addrs and active over the block's 256 threads."""
    for w in range(THREADS // 32):
        sl = slice(32 * w, 32 * w + 32)
        if active[sl].any():
            res.accesses.append(Access(what, np.where(active[sl], addrs[sl], -1), size))


def run(E: int, S: int, n: int, tall: bool, record: bool = True, words: bool = False, out16: int = 0,
        aligned: bool = False) -> Result:
    """out16: the output's address in 16-byte vectors (what places TALL rows of H > 1 in their spans);
    aligned: skinnyWords' form for long rows of whole vectors (n * E a multiple of 16)."""
    assert tall or not words, "skinnyWords is tall only"
    assert not aligned or (words and n * E % 16 == 0), "the aligned form: skinnyWords, rows of whole vectors"
    ve, unit = 16 // E, max(E, 4)
    upv = 16 // unit
    rlog, gp, smem = plans.skinnytile_geometry(E, S, tall, words, aligned)
    R, V = 1 << rlog, plans.skinnytile_vectors(rlog, words, aligned)
    pad, se = gp - 16 * S, S * E
    blocks = plans.skinnytile_tiles(E, S, n, tall, words, aligned)
    H = plans.tall_halo(E, S, tall, words) if tall and not aligned else 0  # packed groups loaded before the tile's own
    loads = LOADS - 1 if words else LOADS_HALO if H > 1 else LOADS
    rowbytes, nbytes = n * E, n * S * E
    ids_in = np.arange(nbytes, dtype=np.int64)
    res = Result(np.full(nbytes, UNSET, np.int64), np.zeros(nbytes, np.int64))
    tid = np.arange(THREADS)
    lane, warp = tid & 31, tid >> 5
    groups = V + H
    nc = groups * S
    # a tile on 256-byte boundaries may pass 48 KiB by its halo (the launch opts in)
    assert groups * gp == smem <= (plans.WORDS_SMEM if words else 64 * 1024 if H > 1 else plans.SKINNYTILE_SMEM)
    for t in range(blocks):
        sm = np.full(smem, UNSET, np.int64)
        sm_writes = np.zeros(smem, np.int64)
        cbase = (t * V - H) * S
        # TALL, inner_tile: plain loads and stores (asserted below to stay inside the input and the rows)
        inner = tall and t > 0 and (t + 1) * V <= rowbytes >> 4 and cbase >= 0 and 16 * (cbase + nc) <= nbytes
        res.inner_tiles += inner
        step_g, step_s = THREADS // S, THREADS % S
        g, s = tid // S, tid % S

        def put(addr, vals, ok, nb):  # shared store of nb bytes per lane
            b = addr[:, None] + np.arange(nb)[None, :]
            bb, vv = b[ok], vals[ok]
            assert (bb >= 0).all() and (bb < smem).all(), "shared store out of the tile"
            np.add.at(sm_writes, bb.ravel(), 1)
            sm[bb.ravel()] = vv.ravel()

        def get(addr, ok, nb):
            b = addr[:, None] + np.arange(nb)[None, :]
            assert (b[ok] >= 0).all() and (b[ok] < smem).all(), "shared load out of the tile"
            return np.where(ok[:, None], sm[np.clip(b, 0, smem - 1)], UNSET)

        if tall:
            # rounds of `loads` per thread while more than THREADS vectors are left, then a round of one;
            # none where skinnyWords copies its tile by cp.async
            rounds, c0 = [], 0
            if words and plans.words_async(E, S):
                _copy_async(res, put, ids_in, E, S, gp, cbase, nc, inner, record)
                c0 = nc
            while c0 + THREADS < nc:
                rounds.append((c0, loads))
                c0 += loads * THREADS
            if c0 < nc:
                rounds.append((c0, 1))
            for c0, per in rounds:
                first = c0 + tid
                g, s = first // S, first % S
                vals = []
                for i in range(per):
                    c = first + i * THREADS
                    gi = cbase + c
                    ok = c < nc
                    assert not inner or ((gi >= 0) & (16 * gi + 16 <= nbytes))[ok].all(), "an inner tile's plain load"
                    v = _load16(ids_in, gi, ok & (gi >= 0))
                    vals.append(v)
                for i in range(per):
                    c = first + i * THREADS
                    ok = c < nc
                    assert ((c // S == g) & (c % S == s))[ok].all(), "the stepped (group, index) is c divmod S"
                    rho = _rot(lane, g, upv)
                    for k in range(upv):
                        w = (k + rho) & (upv - 1)
                        addr = g * gp + s * 16 + w * unit
                        src = vals[i][np.arange(THREADS)[:, None], w[:, None] * unit + np.arange(unit)[None, :]]
                        put(addr, src, ok, unit)
                        if record:
                            _record(res, "packed store", addr, ok, unit)
                    g, s = g + step_g, s + step_s
                    wrap = s >= S
                    s, g = np.where(wrap, s - S, s), np.where(wrap, g + 1, g)
            # every group of the tile written once: the row side reads no stale byte
            if words:
                _words_tall(res, get, E, S, R, rlog, V, gp, t, rowbytes, record, smem, inner, aligned)
            for q0 in range(0, 0 if words else S * R, THREADS // 32):
                q = q0 + warp
                ok = q < S * R
                row, u = q >> rlog, ((q & (R - 1)) << 5) + lane
                rs = row * rowbytes
                d = (rs & 15) // E
                z = (out16 + (rs >> 4)) & (H - 1)  # the row's first vector's place in its span of H
                vi = (rs >> 4) - z + t * V + u
                a0 = (u - z + H) * gp - pad + row * E - d * se
                x = np.full((THREADS, 16), UNSET, np.int64)
                for k in range(ve):
                    a = a0 + k * se + np.where(k >= d, pad, 0)
                    x[:, k * E:(k + 1) * E] = get(a, ok, E)
                    if record:
                        _record(res, "row load", a, ok, E)
                _store16_clipped(res, vi, x, rs, rs + rowbytes, ok, inner)
        else:
            tasks = S * R
            for i in range(LOADS - 1):
                q = warp + i * (THREADS // 32)
                ok = q < tasks
                row, u = q >> rlog, ((q & (R - 1)) << 5) + lane
                rs = row * rowbytes
                v = _load16(ids_in, (rs >> 4) + t * V + u, ok)
                d = (rs & 15) // E
                a0 = u * gp - pad + row * E - d * se
                for k in range(ve):
                    a = a0 + k * se + np.where(k >= d, pad, 0)
                    act = ok & ((u > 0) | (k >= d))
                    put(a, v[:, k * E:(k + 1) * E], act, E)
                    if record:
                        _record(res, "row store", a, act, E)
            xrs = tid * rowbytes
            xd = (xrs & 15) // E
            extra = (tid < S) & (xd > 0)
            xv = _load16(ids_in, (xrs >> 4) + t * V + V, extra)
            for k in range(ve - 1):  # element xd-1-k of each row, at the same offset in the group
                act = extra & (k < xd)
                a = V * gp - pad + tid * E - (k + 1) * se
                kk = np.clip(xd - 1 - k, 0, ve - 1)
                src = xv[np.arange(THREADS)[:, None], kk[:, None] * E + np.arange(E)[None, :]]
                put(a, src, act, E)
                if record:
                    _record(res, "row store (extra vector)", a, act, E)
            assert sm_writes.max() <= 1, "two threads write one shared byte"
            o_hi = np.full(THREADS, nbytes)
            c = tid.copy()
            while (c - tid).max() < ((nc + 31) & ~31):
                live = c < ((nc + 31) & ~31)
                ok = c < nc
                assert ((c // S == g) & (c % S == s))[ok].all()
                rho = _rot(lane, g, upv)
                r = np.full((THREADS, 16), UNSET, np.int64)
                for k in range(upv):
                    w = (k + rho) & (upv - 1)
                    addr = g * gp + s * 16 + w * unit
                    got = get(addr, ok, unit)
                    r[np.arange(THREADS)[:, None], w[:, None] * unit + np.arange(unit)[None, :]] = got
                    if record:
                        _record(res, "packed load", addr, ok & live, unit)
                _store16_clipped(res, cbase + c, r, np.zeros(THREADS, np.int64), o_hi, ok)
                c = c + THREADS
                g, s = g + step_g, s + step_s
                wrap = s >= S
                s, g = np.where(wrap, s - S, s), np.where(wrap, g + 1, g)
        assert sm_writes.max() <= 1, "two threads write one shared byte"
    return res


def _copy_async(res, put, ids_in, E, S, gp, cbase, nc, inner, record):
    """tile_to_shared_async: thread tid copies units tid, tid + 256, ... (U bytes each) of the tile's
    packed bytes, its shared address stepped as the kernel steps it (checked against unit w of
    group w // (16S/U) at U*w + group*pad); bytes outside the input read as ZERO (zero-filled)."""
    unit = max(E, 4)
    per_group, units, pad = S * (16 // unit), nc * (16 // unit), gp - 16 * S
    tid = np.arange(THREADS)
    step_g, step_r = THREADS // per_group, THREADS % per_group
    r, dst = tid % per_group, unit * tid + (tid // per_group) * pad
    for w0 in range(0, units, THREADS):
        w = w0 + tid
        ok = w < units
        assert (dst == unit * w + (w // per_group) * pad)[ok].all(), "the stepped shared address"
        b = 16 * cbase + unit * w[:, None] + np.arange(unit)[None, :]
        inside = (b >= 0) & (b < ids_in.size)
        assert not inner or inside[ok].all(), "an inner tile's plain copy"
        put(dst, np.where(inside, ids_in[np.clip(b, 0, ids_in.size - 1)], ZERO), ok, unit)
        if record:
            _record(res, "packed store", dst, ok, unit)
        dst = dst + unit * THREADS + step_g * pad
        r = r + step_r
        dst, r = np.where(r >= per_group, dst + pad, dst), np.where(r >= per_group, r - per_group, r)


def _exchange(E: int, src: list) -> list:
    """exchange<E>: Q = 4/E rows of 16 ids per lane from 16/E words of 4 ids (word i: position i
    of each row of the bundle)."""
    q, ve = 4 // E, 16 // E
    dst = [np.full((THREADS, 16), UNSET, np.int64) for _ in range(q)]
    for i in range(ve):
        for r in range(q):
            dst[r][:, i * E:(i + 1) * E] = src[i][:, r * E:(r + 1) * E]
    return dst


def _from_lane(v: np.ndarray, delta: int) -> np.ndarray:
    """shfl(v, (lane + delta) & 31) within each warp."""
    lanes = np.arange(THREADS)
    return v[(lanes & ~31) | ((lanes + delta) & 31)]


def _words_tall(res, get, E, S, R, rlog, V, gp, t, rowbytes, record, smem, inner, aligned=False):
    """skinnyWords TALL, row side: lane's group G = 31k + lane; a bundle's 16/E words (two aligned
    loads where S*E % 4 puts a word across a boundary), transposed; a single row's 16/E elements;
    each row realigned from lane - 1's vector, lanes > 0 store vector G - 1 of each row. aligned:
    G = 32k + lane, every lane stores vector G as it is."""
    L = 32 if aligned else 31
    q_, ve, se = 4 // E, 16 // E, S * E
    m4 = se % 4
    tid = np.arange(THREADS)
    lane, warp = tid & 31, tid >> 5
    nb = S // q_
    tasks = (nb + S - nb * q_) << rlog

    def emit(row, G, y, ok):
        rs = row * rowbytes
        m = rs & 15
        prev = _from_lane(y, -1)
        cat = np.concatenate([prev, y], axis=1)
        idx = (16 - m)[:, None] + np.arange(16)[None, :]
        x = np.where((m > 0)[:, None], np.take_along_axis(cat, np.clip(idx, 0, 31), axis=1), y)
        if aligned:
            assert (m == 0).all()
            _store16_clipped(res, (rs >> 4) + t * V + G, y, rs, rs + rowbytes, ok, inner)
        else:
            _store16_clipped(res, (rs >> 4) + t * V + G - 1, x, rs, rs + rowbytes, ok & (lane > 0), inner)

    for q0 in range(0, tasks, THREADS // 32):
        q = q0 + warp
        ok = q < tasks
        u, G = q >> rlog, L * (q & (R - 1)) + lane
        bundle, single = ok & (u < nb), ok & (u >= nb)  # per warp: one or the other
        w = []
        for i in range(ve):
            a = G * gp + 4 * u + i * se
            k = (i * m4) % 4
            assert ((a - k) % 4 == 0)[bundle].all(), "word_at's loads are aligned"
            assert (a - k + (4 if k == 0 else 8) <= smem)[bundle].all(), "word_at reads inside the tile"
            w.append(get(a, bundle, 4))
            if record and bundle.any():
                for part in ((a - k,) if k == 0 else (a - k, a - k + 4)):
                    _record(res, "row load", part, bundle, 4)
        for r, y in enumerate(_exchange(E, w)):
            emit(q_ * u + r, G, y, bundle)
        row = q_ * nb + u - nb
        y = np.full((THREADS, 16), UNSET, np.int64)
        for i in range(ve):
            a = G * gp + row * E + i * se
            y[:, i * E:(i + 1) * E] = get(a, single, E)
            if record and single.any():
                _record(res, "row load", a, single, E)
        emit(row, G, y, single)


def expected(E: int, S: int, n: int, tall: bool) -> np.ndarray:
    """Id of the input byte each output byte must hold."""
    if tall:  # in n x S, out S x n
        ids = np.arange(n * S * E).reshape(n, S, E).transpose(1, 0, 2)
    else:     # in S x n, out n x S
        ids = np.arange(n * S * E).reshape(S, n, E).transpose(1, 0, 2)
    return np.ascontiguousarray(ids).reshape(-1)


def bank_ways(acc: Access) -> int:
    """Most distinct 4-byte words one bank serves in one pass of this access: 16-byte accesses
    go in quarter warps, 8-byte ones in half warps, smaller ones in one pass."""
    phases = {16: 4, 8: 2}.get(acc.size, 1)
    per = 32 // phases
    worst = 1
    for ph in range(phases):
        words: dict[int, set] = {}
        for a in acc.addrs[ph * per:(ph + 1) * per]:
            if a < 0:
                continue
            for w in range(a // 4, (a + acc.size - 1) // 4 + 1):
                words.setdefault(w % 32, set()).add(w)
        if words:
            worst = max(worst, max(len(v) for v in words.values()))
    return worst
