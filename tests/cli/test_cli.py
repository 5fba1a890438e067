"""The command line as a new user meets it: help, versions, wrong values refused at the door
with one line and a non-zero exit, nothing written over files the call did not create."""
import json

import pytest
from typer.testing import CliRunner

from bwlab import __version__
from bwlab.cli import COMMANDS, app
from bwlab.core.device import cuda_available
from helpers import H200, make_run

runner = CliRunner()
no_gpu = pytest.mark.skipif(cuda_available()[0], reason="behaviour without a GPU")
T = H200 / "transpose"


def invoke(*args):
    return runner.invoke(app, list(args), terminal_width=80)


def test_version_and_short_help():
    res = invoke("--version")
    assert res.exit_code == 0 and res.output.strip() == f"bwlab {__version__}"
    for args in (["-h"], ["--help"], ["run", "-h"], ["bench", "-h"], ["report", "-h"]):
        res = invoke(*args)
        assert res.exit_code == 0 and "Usage:" in res.output, args


@pytest.mark.parametrize("name", [c[0] for c in COMMANDS])
def test_every_option_has_help_and_no_type_noise(name):
    res = invoke(name, "--help")
    assert res.exit_code == 0
    assert "<bool>" not in res.output
    opts = [line for line in res.output.splitlines() if line.strip().startswith(("--", "-h"))]
    for line in opts:  # a named placeholder, not a type, and some help on the same line
        assert "<str>" not in line and "<path>" not in line and "<int" not in line, line
        assert len(line.split()) > 2, line


def test_format_is_a_case_insensitive_choice(tmp_path):
    res = invoke("report", str(T / "run.json"), "--format", "HTML", "--out", str(tmp_path / "r.html"))
    assert res.exit_code == 0, res.output
    res = invoke("report", str(T / "run.json"), "--format", "pdf", "--out", str(tmp_path / "r.pdf"))
    assert res.exit_code == 2 and "pdf" in res.output and not (tmp_path / "r.pdf").exists()


@no_gpu
@pytest.mark.parametrize("args", [["run"], ["run", "transpose"], ["device"], ["bench", "transpose"],
                                  ["sweep", "transpose"], ["tune", "transpose"], ["profile", "transpose"]])
def test_gpu_commands_without_a_gpu_fail_with_one_line(args, tmp_path):
    res = invoke(*args, *(["--out", str(tmp_path / "o")] if args[0] in ("run", "bench", "sweep", "profile") else []))
    assert res.exit_code == 1, res.output
    lines = [line for line in res.output.splitlines() if line.strip()]
    assert len(lines) == 1 and "needs an NVIDIA GPU" in lines[0] and "bwlab kernels" in lines[0]
    assert not (tmp_path / "o").exists()


@pytest.mark.parametrize("args, words", [
    (["run", "transpose", "--shape", "abc"], "shape must look like"),
    (["run", "transpose", "--shape", "12"], "2 or more"),
    (["run", "transpose", "--kernels", "nope"], "unknown kernel 'nope'"),
    (["run", "transpose", "--peers", "nope"], "unknown peer 'nope'"),
    (["run", "transpose", "--dtype", "float128"], "dtype must be one of"),
    (["run", "transpose", "--block", "0x8"], "positive"),
    (["run", "nope"], "unknown workload 'nope'"),
    (["bench", "transpose", "--shapes", "1x2x"], "shape must look like"),
    (["bench", "transpose", "--peers", "numpy"], "not among"),
    (["bench", "transpose", "--dtypes", "float7"], "dtype must be one of"),
    (["bench", "transpose", "--suite", "nope"], "--suite: nope not among"),
    (["bench", "softmax", "--suite", "log", "--shapes", "64x64"], "--suite and --shapes: pass one"),
    (["bench", "softmax", "--param", "op=backward"], "pass --shapes (instead of --suite)"),
    (["bench", "softmax", "--shapes", "64x64", "--param", "dim"], "KEY=VALUE"),
    (["bench", "softmax", "--shapes", "64x64", "--param", "dim=2"], "--shapes/--param: "),
    (["bench", "softmax", "--shapes", "64x64", "--param", "op=sideways"], "--shapes/--param: "),
    (["bench", "transpose", "--shapes", "64x64", "--param", "dim=1"], "takes no parameters"),
    (["bench", "matmul", "--shapes", "64x64x64", "--param", "dim=1"], "matmul takes no parameters"),
    (["run", "matmul", "--param", "dim=1"], "matmul takes no parameters"),
    (["bench", "softmax", "--shapes", "64x64", "--param", "log=ture"], "log must be true or false"),
    (["bench", "softmax", "--shapes", "64x64", "--param", "dim=0", "--param", "dim=1"], "dim given twice"),
    (["bench", "softmax", "--shapes", ","], "--shapes: nothing given"),
    (["bench", "softmax", "--dtypes", ","], "--dtypes: nothing given"),
    (["bench", "transpose", "--suite", " , "], "--suite: nothing given"),
    (["sweep", "transpose", "--sizes", "9..1"], "sizes must be"),
    (["sweep", "transpose", "--blocks", "32"], "must look like 32x8"),
    (["sweep", "transpose", "--sizes", "256..512", "--variants"], "choose one of"),
    (["run", "transpose", "--seed", "-1"], "--seed"),
    (["bench", "transpose", "--seed", "-1"], "--seed"),
    (["kernels", "--arch", "banana"], "--arch: arch must look like sm_90"),
    (["kernels", "--arch", "sm_12"], "cannot compile for sm_12"),
])
def test_wrong_values_are_refused_at_the_door(args, words):
    res = invoke(*args)
    assert res.exit_code == 2, res.output
    assert words in res.output and "Traceback" not in res.output


def test_bench_shapes_take_their_parameters_from_param():
    from bwlab.cli.bench import bench_cases
    from bwlab.workloads import get

    w = get("softmax")
    cases = bench_cases(w, None, "1024x131072,4x32768x1024", None, {"op": "backward", "dim": "1"})
    assert [(c.shape, c.dtype) for c in cases] == [((1024, 131072), d) for d in ("float32", "bfloat16")] + [
        ((4, 32768, 1024), d) for d in ("float32", "bfloat16")]
    assert all(c.param("op") == "backward" and c.param("dim") == 1 for c in cases)
    log = bench_cases(w, None, "64x4194304", "bfloat16", {"log": "true"})
    assert [(c.dtype, c.param("dim"), c.param("log")) for c in log] == [("bfloat16", -1, True)]
    plain = bench_cases(w, None, "64x64", None, {})
    assert all(c.param("dim") == -1 and not c.param("log") and c.param("op", "forward") == "forward" for c in plain)
    assert bench_cases(w, None, None, None, {}) == w.bench_cases("main")
    perm = bench_cases(get("permute"), None, "8x16x32", None, {})[0]
    assert perm.param("dims") == (2, 1, 0)  # the reversal, as `bwlab run permute --shape` takes it
    assert bench_cases(get("permute"), None, "8x16x32", None, {"dims": "2,0,1"})[0].param("dims") == (2, 0, 1)


def test_kernels_lists_every_kernel_without_gpu():
    from bwlab.workloads import get

    res = invoke("kernels", "--arch", "sm_90")
    assert res.exit_code == 0, res.output
    for k in get("transpose").kernels():
        assert k.name in res.output
    assert "spills in total: 0" in res.output


@pytest.mark.parametrize("doc, words", [
    ([1, 2], "expected a JSON object"),
    ("a string", "expected a JSON object"),
    ({"schema": "bwlab.run/2"}, "without 'device'"),
    ({**make_run().to_dict(), "records": [{**make_run().to_dict()["records"][0], "gbs": "fast"}]}, "'gbs'"),
])
@pytest.mark.parametrize("fmt", ["md", "html", "csv"])
def test_report_refuses_malformed_files_and_writes_nothing(tmp_path, doc, words, fmt):
    src = tmp_path / "bad.json"
    src.write_text(json.dumps(doc))
    res = invoke("report", str(src), "--format", fmt)
    assert res.exit_code == 1 and words in res.output and "Traceback" not in res.output
    assert len(res.output.strip().splitlines()) == 1
    assert [p.name for p in tmp_path.iterdir()] == ["bad.json"]


def test_report_tolerates_keys_from_a_newer_version(tmp_path):
    doc = make_run().to_dict()
    doc["records"][0]["from_the_future"] = 1
    (tmp_path / "new.json").write_text(json.dumps(doc))
    res = invoke("report", str(tmp_path / "new.json"), "--format", "csv")
    assert res.exit_code == 0, res.output and (tmp_path / "new.csv").exists()


def test_report_never_overwrites_without_force(tmp_path):
    src = tmp_path / "run.json"
    src.write_text((T / "run.json").read_text())
    (tmp_path / "report.md").write_text("mine")  # a file of the user's beside the JSON
    res = invoke("report", str(src))
    assert res.exit_code == 0, res.output
    assert (tmp_path / "report.md").read_text() == "mine" and (tmp_path / "run-report" / "report.md").exists()
    again = invoke("report", str(src))
    assert again.exit_code == 1 and "already holds" in again.output and "--force" in again.output
    assert invoke("report", str(src), "--force").exit_code == 0
    html = invoke("report", str(src), "--format", "html")
    assert html.exit_code == 0 and (tmp_path / "run.html").exists()
    assert invoke("report", str(src), "--format", "html").exit_code == 1


def test_report_out_may_name_an_existing_folder_or_refuses_a_file(tmp_path):
    folder = tmp_path / "out"
    folder.mkdir()
    res = invoke("report", str(T / "run.json"), "--format", "html", "--out", str(folder))
    assert res.exit_code == 0 and (folder / "run.html").exists()
    (tmp_path / "f.html").write_text("x")
    res = invoke("report", str(T / "run.json"), "--format", "html", "--out", str(tmp_path / "f.html"))
    assert res.exit_code == 1 and "already exists" in res.output and (tmp_path / "f.html").read_text() == "x"
    res = invoke("report", str(T / "run.json"), "--out", str(tmp_path / "f.html"))
    assert res.exit_code == 1 and "is a file, not a folder" in res.output
    assert not [p for p in tmp_path.rglob(".*tmp*")], "temporary files left behind"


def test_roofline_of_a_recorded_run(tmp_path):
    src = tmp_path / "run.json"
    src.write_text((T / "run.json").read_text())
    res = invoke("roofline", str(src))
    assert res.exit_code == 0 and (tmp_path / "run-roofline.png").exists() and "memory" in res.output
    again = invoke("roofline", str(src))  # the message names roofline's own option
    assert again.exit_code == 1 and "already exists" in again.output and "--png" in again.output
    assert "--out" not in again.output
    res = invoke("roofline", str(T / "sweep" / "sizes.json"), "--png", str(tmp_path / "x.png"))
    assert res.exit_code == 1 and "sweep-sizes document" in res.output
