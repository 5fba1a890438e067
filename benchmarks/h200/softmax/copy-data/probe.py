"""Does a device-to-device copy's speed depend on the bytes copied? (run from this folder as
`PYTHONPATH=../../../../src python3 probe.py`). The bench's cudaMemcpy reference copies the case's
own input; in its float32 cases it ran at 4150-4280 GB/s and in its bfloat16 ones at 3730-3890 on
the same number of bytes. Here cudaMemcpyAsync (bwlab.core.ceilings.memcpy) copies 512 MiB and
1 GiB buffers filled with: zeros, ones (0xff), float32 normal(0, 3), bfloat16 normal(0, 3) (as the
softmax bench makes them), uniform random bytes, and softmax outputs of each; the same two buffers
each time, refilled in between, 50 timed copies after 3 warm-up ones, the median (bwlab's
time_gpu), three rounds alternating the fills."""
import cupy
import torch

from bwlab.core import ceilings, timing

MiB = 1 << 20


def fills(n):
    g = torch.Generator(device="cuda").manual_seed(0)
    f32 = lambda: (torch.randn(n // 4, device="cuda", generator=g) * 3)  # noqa: E731
    bf = lambda: (torch.randn(n // 2, device="cuda", generator=g) * 3).to(torch.bfloat16)  # noqa: E731
    return {
        "zeros": lambda: torch.zeros(n, dtype=torch.uint8, device="cuda"),
        "0xff": lambda: torch.full((n,), 255, dtype=torch.uint8, device="cuda"),
        "float32 normal*3": f32,
        "bfloat16 normal*3": bf,
        "random bytes": lambda: torch.randint(0, 256, (n,), dtype=torch.uint8, device="cuda", generator=g),
        "float32 softmax rows of 4096": lambda: torch.softmax(f32().view(-1, 4096), -1),
        "bfloat16 softmax rows of 4096": lambda: torch.softmax(bf().view(-1, 4096).float(), -1).to(torch.bfloat16),
    }


def main():
    print(f"{'bytes':>8} {'data':32} {'round':>5} {'GB/s':>7}", flush=True)
    for n in (512 * MiB, 1024 * MiB):
        src = torch.empty(n, dtype=torch.uint8, device="cuda")
        dst = torch.empty_like(src)
        run = ceilings.memcpy(src.data_ptr(), dst.data_ptr(), n, cupy.cuda.get_current_stream().ptr)
        makers = fills(n)
        for rnd in (1, 2, 3):
            for name, make in makers.items():
                src.copy_(make().view(torch.uint8).reshape(-1))
                torch.cuda.synchronize()
                t = timing.time_gpu(run, warmup=3, reps=50)
                print(f"{n // MiB:7d}M {name:32} {rnd:5d} {timing.gbs(2 * n, t.median_ms):7.0f}", flush=True)
        src = dst = None
        torch.cuda.empty_cache()


if __name__ == "__main__":
    main()
