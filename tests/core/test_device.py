import pytest

from bwlab.core import device
from bwlab.core.device import DeviceSpec, peak_bandwidth_gbs, peak_gflops

H200 = DeviceSpec(index=0, name="NVIDIA H200", cc=(9, 0), sm_count=132, sm_clock_khz=1980000,
                  mem_clock_khz=3201000, bus_width_bits=6016, l2_bytes=60 << 20, total_mem_bytes=150 << 30,
                  smem_per_block=48 << 10, smem_per_block_optin=227 << 10, smem_per_sm=228 << 10,
                  regs_per_block=65536, regs_per_sm=65536, max_threads_per_block=1024, max_threads_per_sm=2048)


def test_h200_bandwidth_from_attributes():
    # 3201 MHz x 2 x 6016 bit / 8 = 4.81 TB/s
    assert peak_bandwidth_gbs(3201000, 6016) == pytest.approx(4814.3, abs=0.05)
    assert H200.peak_bandwidth_gbs == pytest.approx(4814.3, abs=0.05)


def test_a100_fp32_peak():
    # 1.41 GHz x 108 SMs x 64 lanes x 2 = 19.5 TFLOP/s
    assert peak_gflops(108, 1410000, (8, 0), "fp32") == pytest.approx(19491, abs=1)


def test_h200_fp32_fp64_peaks():
    assert H200.peak_gflops("fp32") == pytest.approx(132 * 128 * 2 * 1.98, rel=1e-9)
    assert H200.peak_gflops("fp64") == pytest.approx(132 * 64 * 2 * 1.98, rel=1e-9)


def test_lanes_table_covers_sm70_to_sm100():
    for cc in [(7, 0), (7, 5), (8, 0), (8, 6), (8, 9), (9, 0), (10, 0)]:
        fp32, fp64 = device.lanes_per_sm(cc)
        assert fp32 in (64, 128) and fp64 in (2, 32, 64)


def test_unknown_architecture_is_refused_not_guessed():
    with pytest.raises(ValueError, match="compute capability 6.1"):
        peak_gflops(20, 1500000, (6, 1))
    spec = DeviceSpec(**{**H200.__dict__, "cc": (6, 1)})
    assert spec.peak_gflops() is None


def test_device_spec_round_trip():
    d = H200.to_dict()
    assert d["arch"] == "sm_90" and d["peak_bandwidth_gbs"] == pytest.approx(4814.3, abs=0.05)
    assert DeviceSpec.from_dict(d) == H200


def test_the_install_hint_is_the_readme_command():
    readme = (device.__file__.rsplit("/src/", 1)[0] + "/README.md")
    assert device.INSTALL_GPU in open(readme).read()


def test_device_info_without_a_gpu_says_why(monkeypatch):
    import bwlab

    monkeypatch.setattr(device, "cuda_available", lambda: (False, "CuPy is not installed (the GPU extra)"))
    with pytest.raises(RuntimeError, match="needs an NVIDIA GPU and none is usable here: CuPy is not installed"):
        bwlab.device_info()
