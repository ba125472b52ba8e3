"""The four scripted nodes of the demo recording: whole GPUs, mixed MIG, a split GPU instance, and MPS.

Times are seconds from the start of the recording; jobs with a negative start were already running.
"""

from __future__ import annotations

import itertools
import random
from collections.abc import Iterator
from dataclasses import replace

from gputui.synth.gpu_sim import GpuSim, make_gpu
from gputui.synth.host_specs import host_for
from gputui.synth.jobs import Job, Target
from gputui.synth.load import LoadProfile
from gputui.synth.node_sim import MpsState, NodeSim

A100_40 = "NVIDIA A100-SXM4-40GB"
A100_80 = "NVIDIA A100-SXM4-80GB"
H100 = "NVIDIA H100 80GB HBM3"

#: Layouts of the MIG GPUs, by node and GPU index (see fixtures/README.md).
NODE02_GPU0 = ("3g.20gb", "2g.10gb", "1g.5gb", "1g.5gb")
NODE03_GPU0 = (("3g.40gb", (2, 1)), "2g.20gb", "1g.10gb", "1g.10gb")
NODE03_GPU1 = ("4g.40gb", "3g.40gb")
MPS_RESTART_S = 420  # the daemon is stopped here and started again a few seconds later
MPS_DOWN_S = 4
MPS_RESTART_REASON = "the MPS daemon restarted"
MPS_USER = "svc-infer"  # MPS serves one user at a time, so its clients share a service account

# Workload shapes: training saturates the GPU with a dip for validation; inference follows its requests.
TRAIN = LoadProfile(
    mean_util=93, mem_mib=30_000, jitter=3.0, ramp_s=20, period_s=120, dip_s=6, mem_intensity=0.55, power_intensity=0.9
)
INFER = LoadProfile(
    mean_util=55, mem_mib=12_000, jitter=11.0, ramp_s=25, mem_intensity=0.7, power_intensity=0.6, mem_growth=0.0
)
NOTEBOOK = LoadProfile(
    mean_util=5, mem_mib=5_120, jitter=5.0, ramp_s=5, mem_intensity=0.3, power_intensity=0.5, mem_growth=0.01
)
BATCH = LoadProfile(mean_util=70, mem_mib=4_000, jitter=8.0, ramp_s=10, mem_intensity=0.4, power_intensity=0.7)


def _with(profile: LoadProfile, **changes: float) -> LoadProfile:
    return replace(profile, **changes)  # type: ignore[arg-type]


#: A scripted job: user, command, targets, load, start, end (None: still running), submit (None: 4 s before start).
Row = tuple[str, str, tuple[Target, ...], LoadProfile, int, int | None, int | None]


def _gi(gpu: GpuSim, profile: str, nth: int = 0) -> int:
    """The id of the ``nth`` GPU instance of ``profile`` on ``gpu`` (by placement), for job targets."""
    gis = sorted((g for g in gpu.instances or () if g.profile == profile), key=lambda g: g.placement_start or 0)
    gi_id = gis[nth].gi_id
    assert gi_id is not None
    return gi_id


class DemoNodes:
    """Builds the demo's nodes from one seed; job ids run in one sequence across the cluster."""

    def __init__(self, seed: int, t0: float) -> None:
        self.seed = seed
        self.t0 = t0
        self._ids: Iterator[int] = itertools.count(48_210)

    def _node(self, name: str, gpus: list[GpuSim], mps: MpsState | None = None) -> NodeSim:
        host = host_for(gpus[0].spec.name, len(gpus))
        return NodeSim(name, gpus, random.Random(f"{self.seed}:{name}"), self.t0, mps=mps, host=host)

    def _script(self, node: NodeSim, rows: list[Row]) -> None:
        """Add jobs given as (user, command, targets, load, start, end, submit) rows."""
        for user, command, targets, load, start, end, submit in rows:
            if submit is None and start > 0:
                submit = max(0, start - 4)
            node.add_job(Job(str(next(self._ids)), user, command, targets, load, start, end, submit))

    def node01(self) -> NodeSim:
        """Four A100-40GB without MIG: single-GPU jobs come and go, one 2-GPU data-parallel job."""
        node = self._node("node01", [make_gpu(self.seed, "node01", i, A100_40) for i in range(4)])
        kernel = "python -m ipykernel_launcher -f /home/dave/.local/share/jupyter/runtime/kernel-4f1c.json"
        resnet = _with(TRAIN, mem_mib=31_460)
        gpt = _with(TRAIN, mean_util=96, mem_mib=33_800, period_s=150)
        self._script(node, [
            ("alice", "python train.py --model resnet50 --epochs 90 --batch-size 256", (Target(0),), resnet,
             -5400, 540, None),
            ("carol", "python infer.py --model llama-2-7b-chat --batch-size 8 --max-new-tokens 256", (Target(1),),
             _with(INFER, mem_mib=15_872), 10, 205, 8),
            ("bob", "torchrun --nproc_per_node=2 train_gpt.py --config configs/gpt2-medium.yaml",
             (Target(2), Target(3)), gpt, 45, 482, 38),
            ("dave", kernel, (Target(1),), NOTEBOOK, 260, None, 258),
            ("erin", "python sweep.py --trial 17 --lr 3e-4 --warmup 500", (Target(2),),
             _with(TRAIN, mean_util=88, mem_mib=18_300, period_s=0), 500, None, 496),
            ("alice", "python train.py --model resnet50 --epochs 90 --resume ckpt/resnet50_e41.pt", (Target(0),),
             resnet, 560, None, 552),
        ])  # fmt: skip
        return node

    def node02(self) -> NodeSim:
        """Two A100-40GB in MIG mode: GPU 0 in a mixed layout, GPU 1 with no instances yet."""
        g0 = make_gpu(self.seed, "node02", 0, A100_40, NODE02_GPU0)
        g1 = make_gpu(self.seed, "node02", 1, A100_40, ())
        node = self._node("node02", [g0, g1])
        self._script(node, [
            ("alice", "python finetune.py --model bert-large-uncased --task squad --fp16",
             (Target(0, _gi(g0, "3g.20gb"), 0),), _with(TRAIN, mem_mib=14_200, period_s=180), -900, None, None),
            ("bob", "python eval.py --ckpt ckpt/epoch_12.pt --split val",
             (Target(0, _gi(g0, "1g.5gb", 1), 0),), _with(BATCH, mem_mib=3_300), 30, 250, 25),
            ("erin", "python serve.py --model distilbert-base-uncased --port 8000",
             (Target(0, _gi(g0, "2g.10gb"), 0),), _with(INFER, mem_mib=6_900, mean_util=35), 100, None, 95),
            ("carol", "python tokenize_corpus.py --shard 3 --num-proc 4",
             (Target(0, _gi(g0, "1g.5gb", 0), 0),), _with(BATCH, mem_mib=2_100, mean_util=45), 330, 515, None),
        ])  # fmt: skip
        return node

    def node03(self) -> NodeSim:
        """Two H100 in MIG mode: GPU 0 has a 3g.40gb split into a 2c and a 1c compute instance."""
        g0 = make_gpu(self.seed, "node03", 0, H100, NODE03_GPU0)
        g1 = make_gpu(self.seed, "node03", 1, H100, NODE03_GPU1)
        node = self._node("node03", [g0, g1])
        gi3 = _gi(g0, "3g.40gb")
        self._script(node, [
            ("frank", "python train.py --model vit_b_16 --batch-size 128 --amp",
             (Target(0, gi3, 0),), _with(TRAIN, mem_mib=22_000), -2000, None, None),
            ("carol", "python infer.py --model mistral-7b-instruct --batch-size 4",
             (Target(0, _gi(g0, "2g.20gb"), 0),), _with(INFER, mem_mib=15_400), -300, None, None),
            ("henry", "python train_lora.py --model llama-2-13b --lora-r 16 --bf16",
             (Target(1, _gi(g1, "4g.40gb"), 0),), _with(TRAIN, mem_mib=34_000, period_s=200), -3600, None, None),
            ("grace", "python preprocess.py --input s3://corpus/shard-07 --workers 8",
             (Target(0, gi3, 1),), _with(BATCH, mem_mib=6_000), 60, 390, 55),
            ("bob", "python embed.py --model e5-large-v2 --batch-size 512",
             (Target(0, _gi(g0, "1g.10gb", 0), 0),), _with(BATCH, mem_mib=7_200, mean_util=80), 150, 450, None),
            ("alice", "python evaluate.py --suite mmlu --model ckpt/llama-13b-lora",
             (Target(1, _gi(g1, "3g.40gb"), 0),), _with(INFER, mem_mib=28_000, mean_util=75), 300, 570, 295),
        ])  # fmt: skip
        return node

    def node04(self) -> NodeSim:
        """Two A100-80GB behind one MPS control daemon, up from the first frame (so that the queue can take MPS
        jobs from the start) and restarted at 7 min."""
        gpus = [make_gpu(self.seed, "node04", i, A100_80, compute_mode="Exclusive_Process") for i in range(2)]
        node = self._node("node04", gpus, MpsState(gpus=(0, 1), user=MPS_USER))
        node.start_mps_now()
        node.schedule_mps(MPS_RESTART_S, "stop", MPS_RESTART_REASON)
        node.schedule_mps(MPS_RESTART_S + MPS_DOWN_S, "start")

        def client(gpu: int, pct: int) -> tuple[Target, ...]:
            return (Target(gpu, mps_threads=pct),)

        serve = _with(INFER, mean_util=30, jitter=9.0, ramp_s=12)
        resnet, bert = _with(serve, mem_mib=6_500), _with(serve, mem_mib=3_900, mean_util=22)
        yolo, train = _with(serve, mem_mib=5_400), _with(TRAIN, mem_mib=11_200, mean_util=70, period_s=0)
        u = MPS_USER
        self._script(node, [
            (u, "python infer.py --model resnet50 --batch-size 64 --port 9001", client(0, 50), resnet, 25, None, None),
            (u, "python infer.py --model bert-base-uncased --batch-size 32 --port 9002", client(0, 25), bert, 32, 300,
             None),
            (u, "python train.py --model resnet18 --amp --epochs 5", client(1, 100), train, 40, None, None),
            (u, "python infer.py --model yolov8m --batch-size 16 --port 9003", client(1, 50), yolo, 75, None, None),
            (u, "python infer.py --model whisper-small --port 9004", client(0, 25),
             _with(serve, mem_mib=4_100, mean_util=18), 330, None, None),
            # after the restart the services come back, in a different order
            (u, "python infer.py --model resnet50 --batch-size 64 --port 9001", client(0, 50), resnet, 440, None, None),
            (u, "python train.py --model resnet18 --amp --epochs 5 --resume ckpt/resnet18_last.pt", client(1, 100),
             train, 450, None, None),
            (u, "python infer.py --model bert-base-uncased --batch-size 32 --port 9002", client(0, 25), bert, 470, None,
             None),
            (u, "python infer.py --model yolov8m --batch-size 16 --port 9003", client(1, 50), yolo, 485, 590, None),
        ])  # fmt: skip
        return node

    def all(self) -> list[NodeSim]:
        nodes = [self.node01(), self.node02(), self.node03(), self.node04()]
        for node in nodes:
            node.warm_up()
        return nodes
