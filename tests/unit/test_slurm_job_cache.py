"""The job cache: after a full read, a poll asks only squeue's short listing and reads in full the jobs that
changed or left it (captured scontrol text of the Slurm 22.05 lab, fixtures/slurm/)."""

from __future__ import annotations

import re
from pathlib import Path

from gputui.slurm.commands import Completed, SlurmClient
from gputui.slurm.fake import FakeSlurm
from gputui.slurm.formats.job_info import jobs_from_text
from gputui.slurm.jobs.cache import LIVE, JobCache, parse_live

TEXT = (Path(__file__).resolve().parents[2] / "fixtures" / "slurm" / "22.05-scontrol-show-job-d.txt").read_text()
RECORDS = {int(m.group(1)): m.group(0) for m in re.finditer(r"^JobId=(\d+) .*?(?=^JobId=|\Z)", TEXT, re.M | re.S)}


def _live(jobs: dict[int, str]) -> str:
    """The short listing for the live jobs: id|state|reason|priority|nice."""
    out = []
    for job in jobs_from_text("".join(jobs.values())):
        if job.state in ("RUNNING", "PENDING"):
            out.append(f"{job.id}|{job.state}|{job.reason}|{job.priority}|{job.nice}")
    return "\n".join(out) + "\n"


def _setup(records: dict[int, str]) -> tuple[FakeSlurm, JobCache]:
    fake = FakeSlurm()
    fake.answers[LIVE] = _live(records)
    for job_id, text in records.items():
        fake.answers[("scontrol", "show", "job", "-d", str(job_id))] = text
    cache = JobCache(SlurmClient({}, fake), from_jobs=1, clock=lambda: 0.0)
    return fake, cache


def test_an_unchanged_cluster_costs_one_short_listing_and_keeps_the_same_job_objects() -> None:
    fake, cache = _setup(RECORDS)
    first = cache.read(lambda: tuple(jobs_from_text(TEXT)))
    again = cache.read(lambda: (_ for _ in ()).throw(AssertionError("no full read")))
    assert [j.id for j in first] == list(range(1, 11)) and all(a is b for a, b in zip(first, again, strict=True))
    assert fake.argvs() == [LIVE] and (cache.full_reads, cache.short_reads) == (1, 1)


def test_a_job_that_ended_and_one_that_started_are_read_again_and_nothing_else() -> None:
    fake, cache = _setup(RECORDS)
    first = {j.id: j for j in cache.read(lambda: tuple(jobs_from_text(TEXT)))}
    now = dict(RECORDS)
    now[3] = RECORDS[3].replace("JobState=RUNNING", "JobState=COMPLETED")  # left the live list
    now[8] = RECORDS[8].replace("JobState=PENDING Reason=Resources", "JobState=RUNNING Reason=None")
    fake.answers[LIVE] = _live(now)
    for job_id in (3, 8):
        fake.answers[("scontrol", "show", "job", "-d", str(job_id))] = now[job_id]
    got = {j.id: j for j in cache.read(lambda: ())}
    assert (got[3].state, got[8].state) == ("COMPLETED", "RUNNING")
    assert all(got[i] is first[i] for i in got if i not in (3, 8))
    asked = [a[-1] for a in fake.argvs("scontrol")]
    assert sorted(asked) == ["3", "8"]


def test_a_failing_short_listing_or_too_many_changes_fall_back_to_a_full_read() -> None:
    fake, cache = _setup(RECORDS)
    cache.read(lambda: tuple(jobs_from_text(TEXT)))
    fake.answers[LIVE] = Completed(1, "", "squeue: error: slurm_load_jobs error: Socket timed out\n")
    assert len(cache.read(lambda: tuple(jobs_from_text(TEXT)))) == 10 and cache.full_reads == 2
    cache.max_changed = 0
    fake.answers[LIVE] = "99|PENDING|None|1|0\n"
    cache.read(lambda: tuple(jobs_from_text(TEXT)))
    assert cache.full_reads == 3


def test_the_short_listing_is_parsed_and_array_ids_are_refused() -> None:
    assert parse_live("12|RUNNING|None|4294901759|0\n13|PENDING|Priority||-5\n") == {
        12: ("RUNNING", "None", 4294901759, 0), 13: ("PENDING", "Priority", None, -5),
    }  # fmt: skip
    assert parse_live("12_3|PENDING|None|1|0\n") is None
