"""The Triton kernels torch.compile generates for the roof cases of probe.py (their launch
configurations and loads), printed: `python3 triton_code.py` (from this folder)."""
import torch
from torch._inductor.utils import run_and_get_code

from bwlab.core.arrays import torch_compiled

CASES = [((131072, 1024), torch.bfloat16, lambda x: torch.softmax(x, -1)),
         ((131072, 1024), torch.float32, lambda x: torch.softmax(x, -1)),
         ((32768, 4096), torch.bfloat16, lambda y, g: torch.ops.aten._softmax_backward_data(g, y, -1, y.dtype)),
         ((4194304, 32), torch.float32, lambda y, g: torch.ops.aten._log_softmax_backward_data(g, y, -1, y.dtype))]

for shape, dt, fn in CASES:
    n = fn.__code__.co_argcount
    args = [torch.randn(*shape, device="cuda").to(dt) for _ in range(n)]
    with torch.no_grad():
        _, code = run_and_get_code(torch_compiled(fn), *args)
    print(f"##### {list(shape)} {dt} ({n} inputs)")
    for c in code:
        print(c)
