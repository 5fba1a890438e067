"""Device facts, peers, harness and a small ladder run on the real GPU."""
import json

import pytest

from bwlab import catalog, harness, peers, results, verify

pytestmark = pytest.mark.gpu


def test_device_facts_are_sane():
    from bwlab.device import query

    d = query()
    assert d.sm_count > 0 and d.mem_clock_khz > 0 and d.bus_width_bits > 0 and d.l2_bytes > 0
    assert 100 < d.peak_bandwidth_gbs < 20000
    if "H200" in d.name:
        assert d.bus_width_bits == 6016 and abs(d.peak_bandwidth_gbs - 4814) < 60


@pytest.mark.parametrize("peer", peers.PEERS, ids=lambda p: p.name)
@pytest.mark.parametrize("shape", [(1, 1), (33, 31), (1025, 777), (2048, 4096)])
def test_peer_bit_exact(peer, shape):
    import cupy

    why = peer.unavailable("float32")
    if why:
        pytest.skip(why)
    host = verify.random_host(shape, "float32")
    result = peers.as_cupy(peer.make(cupy.asarray(host))())
    assert verify.compare(result.get(), verify.reference(host, peer.transposes)).ok


def test_harness_on_a_small_case():
    import cupy

    from bwlab.device import query

    x = cupy.ones((512, 512), cupy.float32)
    y = cupy.empty_like(x)
    flush = harness.L2Flusher(query().l2_bytes)
    t = harness.time_gpu(lambda: cupy.copyto(y, x), warmup=2, reps=20, flush=flush)
    assert t.reps == 20 and 0 < t.min_ms <= t.median_ms < 100 and t.std_ms >= 0


def test_small_ladder_run_round_trips(tmp_path):
    from bwlab import ladder

    run = ladder.run_transpose(["copyVec", "naiveRow", "tile32Swizzle", "tileVec"], ["cudaMemcpy", "torch"],
                               shape=(1000, 3000), reps=5, warmup=1, seed=1)
    assert run.config["l2_flush"]
    for r in run.records:
        if r.notes and r.notes[0].startswith("skipped"):
            continue
        assert r.correct is True, (r.name, r.check, r.notes)
        assert r.gbs > 0 and r.pct_memcpy > 0
    results.save(run, tmp_path / "run.json")
    assert results.load(tmp_path / "run.json").records == run.records
    json.loads((tmp_path / "run.json").read_text())


def test_cli_transpose_on_gpu(tmp_path):
    from typer.testing import CliRunner

    from bwlab.cli import app

    res = CliRunner().invoke(app, ["transpose", "--shape", "257x511", "--kernels", "tileVec,smemPad2",
                                   "--peers", "none", "--reps", "3", "--no-cpu", "--json", str(tmp_path / "r.json")])
    assert res.exit_code == 0, res.output
    run = results.load(tmp_path / "r.json")
    assert [r.name for r in run.records] == ["tileVec", "smemPad2"] and all(r.correct for r in run.records)


def test_measured_ceilings():
    from bwlab.device import measure_ceilings, query

    c = measure_ceilings(query(), nbytes=256 << 20, reps=10)
    assert all(v and v > 0 for v in c.values()), c
