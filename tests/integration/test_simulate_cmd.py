"""`gputui simulate` end to end on the real openb default trace (fixtures/simulate/): one seed, published figures."""

from __future__ import annotations

import csv
import json

import pytest
from conftest import FIXTURES

from gputui.cli import main

SIM = FIXTURES / "simulate"
PODS = str(SIM / "openb_pod_list_default.csv")
NODES = str(SIM / "openb_node_list_gpu_node.csv")


def published(policy: str, seed: int, trace: str = "default") -> float:
    with (SIM / "fgd_published_130.csv").open() as f:
        for r in csv.DictReader(f):
            if (r["trace"], r["policy"], r["seed"]) == (trace, policy, str(seed)):
                return float(r["alloc_130"])
    raise KeyError(policy)


def test_one_seed_reproduces_fgds_published_figures(capsys):
    """The quick subset of the reproduction (the whole matrix is `python -m gputui.bench fgd`)."""
    rc = main(["simulate", "--trace", PODS, "--nodes", NODES, "--policy", "bestfit", "--policy", "fgd",
               "--seeds", "42", "--workers", "1", "--json"])  # fmt: skip
    assert rc == 0
    out = json.loads(capsys.readouterr().out)
    got = {(e["trace"], e["policy"]): e for e in out["results"]}
    assert set(got) == {("default", "bestfit"), ("default", "fgd")}
    for pol in ("bestfit", "fgd"):
        e = got[("default", pol)]
        assert e["demand"] == 130 and e["sd"] == 0.0
        assert e["per_seed"] == {"42": published(pol, 42)}  # 93.13 and 95.29, to the hundredth
        assert e["mean"] == published(pol, 42)


def test_gpu_model_constraints_reproduce_fgds_published_figures(capsys):
    """gpuspec33 (a third of the GPU pods restricted to some GPU models): FGD's figure needs its expected workload
    keyed by the model list as written (merging equal sets gives 94.56 for seed 42, not the published 94.39)."""
    spec = str(SIM / "openb_pod_list_gpuspec33.csv")
    rc = main(["simulate", "--trace", spec, "--nodes", NODES, "--policy", "fgd", "--policy", "bestfit",
               "--seeds", "42", "--workers", "1", "--json"])  # fmt: skip
    assert rc == 0
    got = {e["policy"]: e["per_seed"]["42"] for e in json.loads(capsys.readouterr().out)["results"]}
    assert got == {"fgd": published("fgd", 42, "gpuspec33"), "bestfit": published("bestfit", 42, "gpuspec33")}


def test_table_and_chart(capsys):
    rc = main(["simulate", "--trace", PODS, "--nodes", NODES, "--policy", "dotprod", "--seeds", "42",
               "--demand", "60", "--workers", "1", "--chart"])  # fmt: skip
    assert rc == 0
    out = capsys.readouterr().out
    assert "dotprod" in out and "default" in out and "± 0.00" in out
    assert "arrived GPU demand (%)" in out  # the terminal chart


def _bad_csv(tmp_path, header: str, row: str) -> str:
    p = tmp_path / "pods.csv"
    p.write_text(header + "\n" + row + "\n")
    return str(p)


@pytest.mark.parametrize(
    ("args", "message"),
    [
        (["--policy", "tetris"], "--policy: unknown policy 'tetris' (choose from random, dotprod"),
        (["--seeds", "51-42"], "--seeds: expected 42-51, 42,45 or 42, got '51-42'"),
        (["--demand", "0"], "--demand: expected a per cent between 1 and 1000, got 0"),
    ],
)
def test_bad_arguments_are_one_line(capsys, args, message):
    assert main(["simulate", "--trace", PODS, "--nodes", NODES, *args]) == 2
    err = capsys.readouterr().err
    assert err.startswith("gputui: " + message) and err.count("\n") == 1


@pytest.mark.parametrize(
    ("header", "row", "message"),
    [
        ("name,cpu_milli,num_gpu,gpu_milli", "p0,1000,1,500", "not a pod list: missing column memory_mib"),
        ("name,cpu_milli,memory_mib,num_gpu,gpu_milli", "p0,-1000,1024,1,500", "line 2: cpu_milli -1000 is negative"),
        ("name,cpu_milli,memory_mib,num_gpu,gpu_milli", "p0,1000,1024,1,abc", "line 2: gpu_milli 'abc' is not a whole"),
        ("name,cpu_milli,memory_mib,num_gpu,gpu_milli", "p0,1000,1024,1,1500", "line 2: gpu_milli 1500 is above 1000"),
    ],
)
def test_bad_trace_is_one_line(tmp_path, capsys, header, row, message):
    assert main(["simulate", "--trace", _bad_csv(tmp_path, header, row), "--nodes", NODES]) == 2
    err = capsys.readouterr().err
    assert message in err and err.count("\n") == 1 and "Traceback" not in err


def test_missing_nodes_file(capsys, tmp_path):
    assert main(["simulate", "--trace", PODS, "--nodes", str(tmp_path / "none.csv")]) == 2
    assert "cannot read" in capsys.readouterr().err


def test_plot_png(tmp_path, capsys):
    pytest.importorskip("matplotlib")  # the optional extra `plot`
    out = tmp_path / "alloc.png"
    rc = main(["simulate", "--trace", PODS, "--nodes", NODES, "--policy", "packing", "--seeds", "42",
               "--demand", "40", "--workers", "1", "--plot", str(out)])  # fmt: skip
    assert rc == 0
    assert out.read_bytes()[:8] == b"\x89PNG\r\n\x1a\n"
    assert "arrived GPU demand (%)" in capsys.readouterr().out  # the terminal chart comes with the plot


def test_plot_without_matplotlib_is_one_line(capsys, monkeypatch):
    import builtins

    real = builtins.__import__

    def no_mpl(name, *a, **k):
        if name == "matplotlib" or name.startswith("matplotlib."):
            raise ImportError(name)
        return real(name, *a, **k)

    monkeypatch.setattr(builtins, "__import__", no_mpl)
    assert main(["simulate", "--trace", PODS, "--nodes", NODES, "--plot", "x.png"]) == 2
    assert "--plot needs matplotlib: pip install 'gputui[plot]'" in capsys.readouterr().err


def test_no_gpu_demand_is_one_line(tmp_path, capsys):
    pods = _bad_csv(tmp_path, "name,cpu_milli,memory_mib,num_gpu,gpu_milli", "p0,1000,1024,0,0")
    assert main(["simulate", "--trace", pods, "--nodes", NODES, "--workers", "1"]) == 2
    assert "the benchmark needs GPUs: no pod asks for one" in capsys.readouterr().err
