"""The job queue: priority then submit order, gang starts, EASY backfill, dependencies and reasons.

Time is always passed in (``now``); the queue never reads a clock. Ending jobs is the runner's business: it
calls :meth:`Scheduler.finish`.
"""

from __future__ import annotations

import bisect
import heapq
from collections.abc import Collection
from operator import attrgetter

from gputui.core.model import ClusterSnapshot
from gputui.core.scheduler import ledger
from gputui.core.scheduler.allocation import Allocation
from gputui.core.scheduler.build import state_from_snapshot
from gputui.core.scheduler.decision import Decision, make_decision
from gputui.core.scheduler.errors import RequestError
from gputui.core.scheduler.jobs import CANCELLED, COMPLETED, ENDED, FAILED, PENDING, RUNNING, Job
from gputui.core.scheduler.parse.timespec import UNLIMITED
from gputui.core.scheduler.place.finder import find_allocation
from gputui.core.scheduler.place.placement import Ask, prepare
from gputui.core.scheduler.policies import get_policy
from gputui.core.scheduler.policies.base import Policy
from gputui.core.scheduler.request import JobRequest
from gputui.core.scheduler.reservation import reserve
from gputui.core.scheduler.state import ClusterState
from gputui.core.scheduler.validate import StaticCapacity, check

#: Job.sort_key read in C, not through a lambda's frame, at every comparison of the insort
_SORT_KEY = attrgetter("sort_key")


class Scheduler:
    """Jobs on one :class:`ClusterState`: submit, schedule passes, finish / cancel."""

    def __init__(self, state: ClusterState, policy: Policy | str | None = None, first_job_id: int = 1) -> None:
        self.state = state
        self.config = state.config
        self.policy: Policy = get_policy(policy or self.config.policy) if not hasattr(policy, "ascending") else policy  # type: ignore[assignment]
        self.jobs: dict[int, Job] = {}
        self.pending: list[Job] = []  # sorted by Job.sort_key
        self.running: dict[int, Job] = {}
        self.next_id = first_job_id
        self._seq = 0
        self._capacity = StaticCapacity(state)
        self.head: Job | None = None
        self.on_node: dict[str, set[int]] = {}  # node -> running jobs there, to narrow reservations
        self._res_key: tuple[int, float] | None = None  # (head id, when its reservation was computed)
        self._shapes: dict[tuple, int] = {}  # request shape -> its number (hashing a shape once, not every pass)
        #: shape number -> the first ask prepared for it on ``_proto_state``; its shape passed the submit checks
        self._protos: dict[int, Ask] = {}
        self._proto_state: ClusterState | None = None
        #: (end by limit, seq, start number, job) of every job started with a limit, a heap: a reservation takes
        #: the running jobs in end order from a copy, not by sorting them all (entries of ended jobs are skipped)
        self._ends: list[tuple[float, int, int, Job]] = []
        self._starts = 0

    # -- submitting -----------------------------------------------------------------------------
    def submit(self, request: JobRequest, now: float, job_id: int | None = None) -> Job:
        """Queue a job; raises :class:`RequestError` if it could never run on this cluster."""
        shape = self._shapes.get(key := request.shape)
        if shape is None:
            shape = self._shapes[key] = len(self._shapes)
        if self._proto_state is not self.state:  # a refresh (or a new state): the kept asks are of the old one
            self._protos, self._proto_state = {}, self.state
        proto = self._protos.get(shape)
        if proto is None:  # a shape not seen on this state: check it (a seen one passed, and check reads only it)
            check(self.state, self._capacity, request)
        for _kind, dep in request.dependencies:
            if dep not in self.jobs:
                raise RequestError(f"--dependency: no job {dep}")
        if job_id is None:
            job_id = self.next_id
        elif job_id in self.jobs:
            raise RequestError(f"job id {job_id} is taken")
        self.next_id = max(self.next_id, job_id + 1)
        self._seq += 1
        limit = request.time_limit_s
        limit = self.config.default_time_s if limit is None else (None if limit == UNLIMITED else limit)
        if proto is None:
            ask = self._protos[shape] = prepare(self.state, request)
        elif proto.request is request:
            ask = proto
        else:  # prepare reads only the shape's fields of the request: the kept ask's figures hold for this one
            ask = Ask(request, proto.key, proto.tag, proto.allowed, proto.required, proto.required_mask,
                      proto.cpu_milli, proto.mem, proto.host_cut, proto.local)  # fmt: skip
        job = Job(job_id, request, ask, now, self._seq, limit, shape=shape)
        self.jobs[job_id] = job
        pending = self.pending
        if not pending or pending[-1].sort_key <= job.sort_key:
            pending.append(job)  # the usual case: no higher priority than the last one waiting
        else:
            bisect.insort(pending, job, key=_SORT_KEY)
        return job

    # -- the scheduling pass --------------------------------------------------------------------
    def _dependency(self, job: Job) -> str | None:
        """None when met, else 'Dependency' (may still be met) or 'DependencyNeverSatisfied'."""
        if not job.request.dependencies:
            return None
        waiting = False
        for kind, dep_id in job.request.dependencies:
            dep = self.jobs[dep_id]
            if kind == "after":
                ok = dep.state != PENDING
                never = False
            elif kind == "afterany":
                ok, never = dep.state in ENDED, False
            elif kind == "afterok":
                ok, never = dep.state == COMPLETED, dep.state in (FAILED, CANCELLED)
            else:  # afternotok
                ok, never = dep.state in (FAILED, CANCELLED), dep.state == COMPLETED
            if never:
                return "DependencyNeverSatisfied"
            waiting = waiting or not ok
        return "Dependency" if waiting else None

    def adopt(self, job: Job, alloc: Allocation, start_time: float) -> Decision:
        """Put a pending job back to running on ``alloc`` (a queue rebuilt after a restart, whose job was already
        running); the caller has checked with ``ledger.can_apply`` that the allocation still fits."""
        if job not in self.pending:
            raise ValueError(f"job {job.id} is not pending")
        self.pending.remove(job)
        return self._start(job, alloc, start_time, False)

    def _start(self, job: Job, alloc: Allocation, now: float, backfilled: bool) -> Decision:
        ledger.apply(self.state, alloc, job.id)
        job.state, job.start_time, job.allocation = RUNNING, now, alloc
        job.reason, job.backfilled, job.blocked_by = "None", backfilled, None
        self.running[job.id] = job
        if job.limit_s is not None:
            heapq.heappush(self._ends, (now + job.limit_s, job.seq, self._starts, job))
            self._starts += 1
        for name in alloc.node_names:
            self.on_node.setdefault(name, set()).add(job.id)
        return make_decision(job.id, job.request, alloc, now, backfilled, self._warnings(alloc))

    def _warnings(self, alloc: Allocation) -> tuple[str, ...]:
        out = []
        for ng in alloc.nodes:
            for gr in ng.gpus:
                if gr.mps_percent is None:
                    continue
                g = self.state.by_name[ng.node].by_index[gr.index]
                if g.memory_mib is not None and g.mps_mem > g.memory_mib:
                    out.append(
                        f"{ng.node} GPU {g.index}: MPS jobs declare {g.mps_mem} MiB, the GPU has {g.memory_mib} MiB "
                        "(MPS does not isolate memory)"
                    )
                if g.mps_pct > 100:
                    out.append(f"{ng.node} GPU {g.index}: MPS shares sum to {g.mps_pct} %")
        return tuple(out)

    def _fail_reason(self, job: Job) -> str:
        """Why ``job`` waits when it does not fit; worked out once per ask (lost GPUs change only on a refresh,
        which prepares a new ask): the pass asks it of every waiting job behind the head."""
        if job.fail_reason:
            return job.fail_reason
        reason = "Resources"
        for node in job.ask.required:
            if all(g.lost for g in node.gpus):
                reason = "ReqNodeNotAvail"
        if job.request.kind == "device":
            node = job.ask.required[0]
            if any(node.by_index[i].lost for i in job.request.gpu_ids):
                reason = "ReqNodeNotAvail"
        job.fail_reason = reason
        return reason

    def _wait_behind(self, job: Job) -> None:
        """A job after the first waiting one, which does not fit now: Priority, as Slurm says while a
        higher-priority job waits in the queue (its main pass stops at that job), unless a node it requires is
        gone."""
        reason = job.fail_reason or self._fail_reason(job)
        job.reason = "Priority" if reason == "Resources" else reason
        job.blocked_by = None

    def _stamp(self, job: Job) -> int:
        """Releases that could matter to ``job``: on its own nodes when it may use no others, else anywhere."""
        ask = job.ask
        if not ask.local:
            return self.state.releases
        required = ask.required
        return required[0].releases if len(required) == 1 else sum(n.releases for n in required)

    def _find(self, job: Job, stamp: int) -> Allocation | None:
        """An allocation for ``job`` now, or None; ``stamp`` is :meth:`_stamp`'s, which the pass has at hand."""
        if job.failed_stamp == stamp:
            return None  # nothing was freed where it could go since it last did not fit
        alloc = find_allocation(self.state, job.ask, self.policy)
        if alloc is None and job.reservation is not None and ledger.can_apply(self.state, job.reservation[1]):
            alloc = job.reservation[1]
        if alloc is None:
            job.failed_stamp = stamp
        return alloc

    def schedule(self, now: float) -> list[Decision]:
        """One pass: start every job that may start now, in priority order, with EASY backfill."""
        decisions: list[Decision] = []
        failed_shapes: set[int] = set()
        head: Job | None = None
        tried = 0
        started: list[Job] = []
        ahead_started = False  # a job started ahead of the head: its reservation must be recomputed
        depth, state = self.config.backfill_depth, self.state
        for job in self.pending:
            if job.request.dependencies:
                dep = self._dependency(job)
                if dep is not None:
                    job.reason = dep
                    continue
            shape = job.shape
            if head is None:
                alloc = None if shape in failed_shapes else self._find(job, self._stamp(job))
                if alloc is not None:
                    decisions.append(self._start(job, alloc, now, False))
                    started.append(job)
                    ahead_started = True
                    continue
                failed_shapes.add(shape)
                head = job
                if job.reason in ("None", "Priority", "Dependency"):
                    job.reason = self._fail_reason(job)
                self._reserve(job, now, ahead_started)
                if not self.config.backfill:
                    break
                continue
            tried += 1
            if tried > depth:
                break  # Slurm's bf_max_job_test: the rest keep the reason of their last look
            if shape in failed_shapes:  # _wait_behind, inlined: most jobs behind the head end here
                r = job.fail_reason or self._fail_reason(job)
                job.reason, job.blocked_by = ("Priority" if r == "Resources" else r), None
                continue
            ask = job.ask
            if ask.local:  # _stamp, without the call
                required = ask.required
                stamp = required[0].releases if len(required) == 1 else sum(n.releases for n in required)
            else:
                stamp = state.releases
            b = job.blocked_on
            if b is not None and b[1] is head.reservation and b[0] == stamp:
                continue  # refused against this very reservation, and nothing was freed since
            if job.failed_stamp == stamp:  # nothing freed where it could go: _find's answer, without the call
                failed_shapes.add(shape)
                r = job.fail_reason or self._fail_reason(job)  # _wait_behind, inlined
                job.reason, job.blocked_by = ("Priority" if r == "Resources" else r), None
                continue
            alloc = self._find(job, stamp)
            if alloc is None:
                failed_shapes.add(shape)
                self._wait_behind(job)
                continue
            ok = self._backfill_ok(job, alloc, head, now)
            if not ok and head.reservation is not None:
                alloc = self._avoiding(job, head.reservation[1])
                ok = alloc is not None and self._backfill_ok(job, alloc, head, now)
            if ok and alloc is not None:
                decisions.append(self._start(job, alloc, now, True))
                started.append(job)
            else:
                job.reason, job.blocked_by = "Priority", head.id
                job.blocked_on = (stamp, head.reservation)
        if head is not None and not self.config.backfill:
            for job in self.pending:
                if (
                    job is not head
                    and job.state == PENDING
                    and job.reason not in ("Dependency", "DependencyNeverSatisfied")
                ):
                    job.reason = "Priority"
        if started:
            gone = {j.id for j in started}
            self.pending = [j for j in self.pending if j.id not in gone]
        self.head = head
        return decisions

    def _reserve(self, head: Job, now: float, ahead_started: bool) -> None:
        """Compute (or keep) the head's reservation; a kept one is still a valid promise, only maybe a late one."""
        key = self._res_key
        fresh = key is not None and key[0] == head.id and now - key[1] < self.config.reservation_refresh_s
        if fresh and not ahead_started and head.reservation is not None:
            return
        running: list[Job] | object = self.running.values()
        req = head.request
        if req.kind == "device" or (req.nodelist and req.node_count == len(req.nodelist)):
            ids: set[int] = set()
            for name in req.nodelist:
                ids |= self.on_node.get(name, set())
            running = [self.running[i] for i in ids]
        ordered = None
        if not isinstance(running, list):  # every running job: the kept heap of them
            if len(self._ends) > 2 * len(self.running) + 64:  # drop the entries of ended jobs now and then
                self._ends = [e for e in self._ends if e[3].state == RUNNING]
                heapq.heapify(self._ends)
            ends = self._ends
            while ends and ends[0][3].state != RUNNING:  # ended ones on top: off for good, not on every copy
                heapq.heappop(ends)
            ordered = ends[:]
        head.reservation = reserve(self.state, head, running, now, self.policy, ordered)  # type: ignore[arg-type]
        self._res_key = (head.id, now)

    def _backfill_ok(self, job: Job, alloc: Allocation, head: Job, now: float) -> bool:
        """EASY: a later job may start now only if the head's reservation stays intact."""
        res = head.reservation
        if res is None:
            return True  # nothing to protect: the head cannot start by any running job's limit
        if job.limit_s is not None and now + job.limit_s <= res[0]:
            return True
        return not alloc.conflicts_with(res[1]) and self._host_left_for(alloc, res[1])

    def _host_left_for(self, alloc: Allocation, reserved: Allocation) -> bool:
        """Whether the head's reserved CPUs and memory stay free beside ``alloc`` on the nodes both use: jobs only
        end between now and the reservation, so what is free after ``alloc`` now is a floor for then."""
        mine = {ng.node: ng for ng in alloc.nodes}
        for rg in reserved.nodes:
            ng = mine.get(rg.node)
            if ng is not None and not self.state.by_name[rg.node].host_fits(
                ng.cpu_milli + rg.cpu_milli, ng.mem_mib + rg.mem_mib
            ):
                return False
        return True

    def _avoiding(self, job: Job, reserved: Allocation) -> Allocation | None:
        """Try again without the reserved nodes, so a backfill candidate can go around the reservation."""
        ask = job.ask
        avoid = self.state.mask_of(reserved.node_names)
        if ask.required_mask & avoid:
            return None
        from dataclasses import replace

        return find_allocation(self.state, replace(ask, allowed=ask.allowed & ~avoid), self.policy)

    # -- ending ---------------------------------------------------------------------------------
    def finish(self, job_id: int, now: float, ok: bool = True) -> None:
        """A running job ended (``ok`` False: it failed); its resources are free again."""
        job = self.running.pop(job_id)
        assert job.allocation is not None
        ledger.release(self.state, job.allocation, job.id)
        for name in job.allocation.node_names:
            self.on_node[name].discard(job.id)
        job.state = COMPLETED if ok else FAILED
        job.end_time = now

    def cancel(self, job_id: int, now: float) -> None:
        job = self.jobs[job_id]
        if job.state == RUNNING:
            self.finish(job_id, now)
        elif job.state == PENDING:
            self.pending.remove(job)
        job.state = CANCELLED
        job.end_time = now

    # -- keeping up with the machines -----------------------------------------------------------
    def refresh(self, snapshot: ClusterSnapshot, own_pids: Collection[tuple[str, int]] = ()) -> list[int]:
        """Rebuild the state from a new snapshot and put running jobs back.

        Returns the jobs whose resources vanished (a GPU lost, an instance destroyed); they are marked FAILED.
        """
        new = state_from_snapshot(snapshot, self.config, own_pids)
        lost = []
        for job in sorted(self.running.values(), key=lambda j: j.seq):
            assert job.allocation is not None
            if ledger.can_apply(new, job.allocation):
                ledger.apply(new, job.allocation, job.id)
            else:
                lost.append(job.id)
                job.state, job.end_time = FAILED, snapshot.timestamp
                del self.running[job.id]
                for name in job.allocation.node_names:
                    self.on_node[name].discard(job.id)
        self.state = new
        self._capacity = StaticCapacity(new)
        self._res_key = None
        for job in self.jobs.values():
            if job.state == PENDING:
                job.ask = prepare(new, job.request)
                job.fail_reason = ""
                job.reservation = None
                job.failed_stamp = -1
                job.reason = "None"
        return lost
