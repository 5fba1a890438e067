"""Streams and host-device transfers: what CUDA streams let run at once, measured on the GPU.

Not a kernel ladder (it is not in the workload registry that `bwlab run` reads): `bwlab streams`
and `bwlab transfers` run it. Here are its kernels (kernels/timeline.cu: spin kernels that stamp
%globaltimer and %smid per block, the pipeline's FMA kernel), the scenarios with the claims they
test (scenarios.py) and the arithmetic on timelines that turns them into verdicts (analysis.py).
Nothing here needs a GPU; the procedures that launch are in bwlab.lab.streams and
bwlab.lab.transfers.
"""
from .scenarios import KERNELS, SCENARIOS, SOURCES, Scenario, scenario

__all__ = ["KERNELS", "SCENARIOS", "SOURCES", "Scenario", "scenario"]
