"""torch.compile's kernels for bfloat16 softmax and log-softmax gradients down dim 1 of [4, 32768, 1024]:
run with TORCH_LOGS=output_code, the generated Triton source goes to stderr."""
import torch

DT = torch.bfloat16
y = torch.softmax(torch.randn(4, 32768, 1024, device="cuda"), 1).to(DT)
g = torch.randn(4, 32768, 1024, device="cuda").to(DT)
for f in (torch.ops.aten._softmax_backward_data, torch.ops.aten._log_softmax_backward_data):
    torch.compile(lambda a, b, f=f: f(b, a, 1, DT), dynamic=False)(y, g)
torch.cuda.synchronize()
