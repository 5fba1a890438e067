"""A Triton tiled transpose, the peer a Triton user would write (needs torch + triton)."""
from __future__ import annotations

import triton
import triton.language as tl

BLOCK = 64


@triton.jit
def _transpose(x_ptr, y_ptr, M, N, BM: tl.constexpr, BN: tl.constexpr):
    b = tl.program_id(2).to(tl.int64) * M * N  # one matrix of the batch per grid z
    rm = tl.program_id(0).to(tl.int64) * BM + tl.arange(0, BM)
    rn = tl.program_id(1).to(tl.int64) * BN + tl.arange(0, BN)
    mask = (rm[:, None] < M) & (rn[None, :] < N)
    tile = tl.load(x_ptr + b + rm[:, None] * N + rn[None, :], mask=mask)
    tl.store(y_ptr + b + rn[:, None] * M + rm[None, :], tl.trans(tile), mask=tl.trans(mask))


def transpose(x, out):
    """x: (M, N) or (B, M, N) contiguous torch tensor on the GPU; out: (N, M) or (B, N, M)."""
    m, n = x.shape[-2:]
    batch = x.numel() // (m * n) if m * n else 0
    grid = (triton.cdiv(m, BLOCK), triton.cdiv(n, BLOCK), batch)
    if batch:
        _transpose[grid](x, out, m, n, BM=BLOCK, BN=BLOCK)
    return out
