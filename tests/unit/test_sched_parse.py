"""Request parsing: every option form of the issue, host lists, time formats, batch scripts, refusals."""

from __future__ import annotations

import pytest

from gputui.core.errors import GputuiError
from gputui.core.scheduler.errors import RequestError
from gputui.core.scheduler.parse.hostlist import compress_hostlist, expand_hostlist
from gputui.core.scheduler.parse.options import parse_options
from gputui.core.scheduler.parse.script import parse_script
from gputui.core.scheduler.parse.timespec import UNLIMITED, format_duration, parse_time_limit


def test_request_error_is_a_gputui_error():
    assert issubclass(RequestError, GputuiError)


@pytest.mark.parametrize(
    ("text", "seconds"),
    [
        ("30", 1800), ("30:15", 1815), ("2:00:00", 7200), ("1-0", 86400), ("1-2", 93600),
        ("1-2:30", 95400), ("1-2:30:05", 95405), ("0:45", 45), ("INFINITE", UNLIMITED),
        ("unlimited", UNLIMITED), ("0", UNLIMITED),
    ],
)  # fmt: skip
def test_slurm_time_formats(text, seconds):
    assert parse_time_limit(text) == seconds


@pytest.mark.parametrize("bad", ["", "1:2:3:4", "abc", "1-", "-5", "1h", "1-2-3"])
def test_bad_time_names_the_option(bad):
    with pytest.raises(RequestError, match="--time"):
        parse_time_limit(bad)


def test_format_duration():
    assert format_duration(95405) == "1-02:30:05"
    assert format_duration(59) == "00:00:59"
    assert format_duration(UNLIMITED) == "UNLIMITED"


@pytest.mark.parametrize(
    ("text", "names"),
    [
        ("node[01-04]", ("node01", "node02", "node03", "node04")),
        ("node[1-2,7]", ("node1", "node2", "node7")),
        ("a,b[08-10]", ("a", "b08", "b09", "b10")),
        ("r[1-2]n[1-2]", ("r1n1", "r1n2", "r2n1", "r2n2")),
        ("node01,node01", ("node01",)),
    ],
)
def test_hostlist_expansion(text, names):
    assert expand_hostlist(text) == names


@pytest.mark.parametrize("bad", ["node[01-", "node]", "node[4-1]", "node[a-b]", "a,,b", "/etc/hosts", "n[1-9999999]"])
def test_bad_hostlists(bad):
    with pytest.raises(RequestError, match="--nodelist"):
        expand_hostlist(bad)


def test_hostlist_compression_round_trip():
    names = ("node01", "node02", "node03", "node07", "gpu", "x9")
    assert compress_hostlist(names) == "node[01-03,07],gpu,x9"
    assert expand_hostlist(compress_hostlist(names)) == ("node01", "node02", "node03", "node07", "gpu", "x9")


def test_gpus_total_may_span_nodes():
    r = parse_options("--gpus=8")
    assert (r.kind, r.gpus, r.nodes, r.node_count) == ("count", 8, None, None)
    assert parse_options("-G 8").gpus == 8
    assert parse_options("-G8").gpus == 8


def test_typed_and_per_node_forms():
    r = parse_options("--gpus=a100:2")
    assert (r.gpus, r.gpu_type) == (2, "a100")
    r = parse_options("--gpus-per-node=4 --nodes=2")
    assert (r.gpus_per_node, r.nodes) == (4, 2)
    r = parse_options("-N 3 --gres=gpu:2")
    assert (r.gpus_per_node, r.nodes) == (2, 3)
    r = parse_options("--gres=gpu:A100:2")
    assert (r.gpus_per_node, r.gpu_type) == (2, "a100")
    assert parse_options("--gres=gpu").gpus_per_node == 1
    r = parse_options("--gpus=8 --gpus-per-node=4")
    assert (r.gpus_per_node, r.nodes) == (4, 2)


def test_node_selection_and_job_options():
    r = parse_options(
        "--gpus=2 --exclusive -w node[01-02] -x node03 -t 1:00:00 --mem-per-gpu=20G -J train "
        "--priority=50 --nice=10 --dependency=afterok:4:5,afterany:6"
    )
    assert r.exclusive and r.nodelist == ("node01", "node02") and r.exclude == ("node03",)
    assert r.time_limit_s == 3600 and r.mem_per_gpu_mib == 20480 and r.name == "train"
    assert (r.priority, r.nice, r.effective_priority) == (50, 10, 40)
    assert r.dependencies == (("afterok", 4), ("afterok", 5), ("afterany", 6))
    assert parse_options("--gpus=1 --nice").nice == 100
    assert parse_options("--gpus=1 --nodelist node05 --exclude=node06").nodelist == ("node05",)


def test_device_level_forms():
    r = parse_options("--nodelist=node01 --gres=gpu:0,1")
    assert (r.kind, r.gpu_ids, r.nodelist) == ("device", (0, 1), ("node01",))
    r = parse_options("-w node01 --gpu-ids=0,2-3")
    assert r.gpu_ids == (0, 2, 3)


def test_mig_forms():
    r = parse_options("--gres=gpu:1g.10gb:1")
    assert (r.kind, r.mig) == ("mig", (("1g.10gb", 1),))
    r = parse_options("--gres=gpu:a100_3g.20gb:2")
    assert (r.mig, r.gpu_type) == ((("3g.20gb", 2),), "a100")
    r = parse_options("--gres=gpu/MIG-1g.10gb:1")
    assert r.mig == (("1g.10gb", 1),) and r.gpu_type is None
    r = parse_options("--gres=gpu:1g.10gb:2,gpu:3g.40gb:1")
    assert r.mig == (("1g.10gb", 2), ("3g.40gb", 1))
    assert parse_options("--gpus=3g.20gb:1").mig == (("3g.20gb", 1),)


def test_mps_forms():
    r = parse_options("--gres=mps:30")
    assert (r.kind, r.mps_percent, r.gpus_per_node) == ("mps", 30, 1)
    r = parse_options("--gpus-per-node=2 --export=ALL,CUDA_MPS_ACTIVE_THREAD_PERCENTAGE=25")
    assert (r.kind, r.mps_percent, r.gpus_per_node) == ("mps", 25, 2)


def test_command_and_ignored_options():
    r = parse_options(["--gpus=1", "-p", "gpu", "--output=x.log", "python", "train.py", "--gpus=9"])
    assert r.command == ("python", "train.py", "--gpus=9") and r.gpus == 1
    assert r.ignored == ("--partition", "--output")


@pytest.mark.parametrize(
    ("text", "option"),
    [
        ("--gres=gpu:1,mps:10", "--gres"),
        ("--gres=mps:10 --gpus=1", "--gres"),
        ("--gres=gpu:9g.99gb:1", "--gres"),
        ("--gres=gpu:1g.10gb:1,gpu:2", "--gres"),
        ("--gres=gpu:0,1", "--gpu-ids"),
        ("--nodelist=node[01-02] --gres=gpu:0,1", "--gpu-ids"),
        ("--gpus=0", "--gpus"),
        ("--gpus=-2", "--gpus"),
        ("--gres=gpu:a100:0", "--gres"),
        ("--gpus-per-node=0", "--gpus-per-node"),
        ("--gres=mps:150", "--gres"),
        ("--gres=mps:0", "--gres"),
        ("--gres=shard:0", "--gres"),
        ("--gres=shard:2,shard:1", "--gres"),
        ("--gres=shard:2 --gpus=2", "--gres=shard"),
        ("--gres=shard:2 --exclusive", "--exclusive"),
        ("--gpu-milli=1000", "--gpu-milli"),
        ("--gpu-milli=500 --gres=mps:20", "--gpu-milli"),
        ("--mem=8G --mem-per-cpu=1G", "--mem-per-cpu"),
        ("--cpus-per-gpu=4 -c 2 --gpus=1", "--cpus-per-gpu"),
        ("--cpus-per-gpu=4", "--cpus-per-gpu"),
        ("--mem-per-gpu=4G -c 2", "--mem-per-gpu"),
        ("-c 0", "--cpus-per-task"),
        ("--cpu-milli=500 -c 2", "--cpu-milli"),
        ("--cpu-milli=0", "--cpu-milli"),
        ("-n lots", "--ntasks"),
        ("--mem=8X", "--mem"),
        ("--constraint='a100|[v100*2]'", "--constraint"),
        ("--constraint=", "--constraint"),
        ("--gpus=8 --gpus-per-node=3", "--gpus"),
        ("--gpus=2 --nodes=3", "--nodes"),
        ("--gpus=1 --cpus-bind=x --frobnicate", "--cpus-bind"),
        ("--gpus=1 -Z", "-Z"),
        ("--time=soon --gpus=1", "--time"),
        ("--gpus", "--gpus"),
        ("-N 2 --nodelist=node[1-3] --gpus-per-node=1", "--nodes"),
        ("--gpus=1 -w a -x a", "--exclude"),
        ("--gpus=1 --dependency=afterwards:3", "--dependency"),
        ("--gpus=1 --export=CUDA_MPS_ACTIVE_THREAD_PERCENTAGE=250", "CUDA_MPS_ACTIVE_THREAD_PERCENTAGE"),
        ("--gres=gpu:1g.10gb:1 --export=CUDA_MPS_ACTIVE_THREAD_PERCENTAGE=20", "CUDA_MPS_ACTIVE_THREAD_PERCENTAGE"),
        ("--gres=mps:20 --export=CUDA_MPS_ACTIVE_THREAD_PERCENTAGE=30", "CUDA_MPS_ACTIVE_THREAD_PERCENTAGE"),
        ("--mem-per-gpu=lots --gpus=1", "--mem-per-gpu"),
        ("--exclusive=user -N1", "--exclusive"),
        ("--gpus='2", "cannot split"),
    ],
)  # fmt: skip
def test_refusals_name_the_option(text, option):
    with pytest.raises(RequestError) as e:
        parse_options(text)
    assert option in str(e.value)
    assert "\n" not in str(e.value)


SCRIPT = """#!/bin/bash
#SBATCH --job-name=train   # a comment
#SBATCH -N 2
#SBATCH --gpus-per-node=2 --time=2:00:00

# a comment line does not end the header
export CUDA_MPS_ACTIVE_THREAD_PERCENTAGE=40
#SBATCH --exclusive
srun python train.py
export OTHER="$HOME/x"
"""


def test_batch_script_header_and_exports():
    r = parse_script(SCRIPT)
    assert (r.kind, r.nodes, r.gpus_per_node, r.mps_percent, r.name) == ("mps", 2, 2, 40, "train")
    assert r.time_limit_s == 7200
    assert not r.exclusive  # after the first command, #SBATCH lines are ordinary comments
    assert dict(r.environment)["OTHER"] == "$HOME/x"  # taken literally, never expanded


def test_command_line_overrides_script():
    r = parse_script("#!/bin/sh\n#SBATCH --gpus=2\n#SBATCH -t 10\n", "--time=20")
    assert (r.gpus, r.time_limit_s) == (2, 1200)
