"""Last-axis cases near their goals (run as `PYTHONPATH=src python3
benchmarks/h200/softmax/sweeps/near.py`): torch.compile's GB/s, then the rowWarp and rowBlock
variants of sweep.py's block mode on these cases, each checked and timed as sweep.py does."""
import sys
from pathlib import Path

sys.path.insert(0, str(Path(__file__).parent))
import sweep  # noqa: E402
from bwlab.core.launch import arch_of  # noqa: E402

CASES = [(131072, 1024, "float32", "forward"), (131072, 1024, "bfloat16", "forward"),
         (32768, 4096, "bfloat16", "backward"), (32768, 4096, "float32", "forward"),
         (32768, 4096, "bfloat16", "forward")]


_block = sweep.block_variants


def variants(p):
    out = _block(p)
    out += [(k, c) for k, c in sweep.warp_variants(p) if not k.startswith("K1")]
    return out


sweep.BLOCK_CASES = CASES
sweep.block_variants = variants

if __name__ == "__main__":
    import torch
    sweep.compile_all("block", arch_of(0))
    dt = {"float32": torch.float32, "bfloat16": torch.bfloat16}
    for N, L, d, op in CASES:
        x = torch.randn(N, L, device="cuda").to(dt[d])
        if op == "forward":
            f = torch.compile(lambda t: torch.softmax(t, -1))
            ms = sweep.timed(lambda: f(x))
            moved = 2 * x.numel() * x.element_size()
        else:
            y = torch.softmax(x.float(), -1).to(dt[d])
            g = torch.randn_like(y)
            f = torch.compile(lambda a, b: torch._softmax_backward_data(b, a, -1, a.dtype))
            ms = sweep.timed(lambda: f(y, g))
            moved = 3 * x.numel() * x.element_size()
        print(f"{N}x{L} {d[:4]} {op[:3]}  torch.compile {moved / ms / 1e6:7.0f} GB/s", flush=True)
        x = y = g = None
    sweep.run("block")
