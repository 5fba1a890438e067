import pytest
from typer.testing import CliRunner

from bwlab import catalog
from bwlab.cli import app, parse_pair
from bwlab.device import cuda_available

runner = CliRunner()
no_gpu = pytest.mark.skipif(cuda_available()[0], reason="behaviour without a GPU")


def test_parse_pair():
    assert parse_pair("16384x8192", "shape") == (16384, 8192)
    assert parse_pair("32X8", "block") == (32, 8)
    for bad in ("12", "axb", "1x2x3", "-1x4"):
        with pytest.raises(Exception, match="shape"):
            parse_pair(bad, "shape")
    with pytest.raises(Exception, match="positive"):
        parse_pair("0x8", "block")


def test_kernels_lists_every_kernel_without_gpu():
    res = runner.invoke(app, ["kernels", "--arch", "sm_90"], terminal_width=300)
    assert res.exit_code == 0, res.output
    for k in catalog.KERNELS:
        assert k.name in res.output
    assert "spills in total: 0" in res.output


@no_gpu
def test_run_without_gpu_says_so_and_still_compiles():
    res = runner.invoke(app, ["run"], terminal_width=300)
    assert res.exit_code == 0, res.output
    assert "No GPU here" in res.output and "tileVec" in res.output


@no_gpu
def test_device_without_gpu_fails_clearly():
    res = runner.invoke(app, ["device"])
    assert res.exit_code == 1 and "No GPU" in res.output


@pytest.mark.parametrize("args, words", [
    (["--shape", "12"], "shape"),
    (["--kernels", "nope"], "unknown kernel"),
    (["--dtype", "int8"], "dtype"),
    (["--block", "0x8"], "positive"),
])
def test_transpose_rejects_bad_arguments_before_touching_a_gpu(args, words):
    res = runner.invoke(app, ["transpose", *args])
    assert res.exit_code == 2 and words in res.output
