"""The roofline's diagnosis for FLOP-bound kernels (no GPU)."""
from bwlab.report import roofline


def test_at_the_fp32_roof_is_compute_bound_whatever_the_traffic():
    # a matmul: little useful bandwidth, tiles re-read (useful / DRAM bytes low), loads broadcast
    v = roofline.diagnose(pct_bw=3, pct_flops=88, dram_pct=20, useful_ratio=0.1, ld_eff=12.5, st_eff=100)
    assert v.bound == "compute" and "88%" in v.text


def test_a_flop_heavy_kernel_far_from_both_roofs_gets_compute_advice():
    v = roofline.diagnose(pct_bw=2, pct_flops=30)
    assert v.bound == "latency" and "register blocking" in v.text
    assert "bytes in flight" in roofline.diagnose(pct_bw=30, pct_flops=0).text  # memory kernels: as before
