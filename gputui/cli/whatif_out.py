"""The Slurm what-if on the command line: one answer for `gputui plan --source slurm` and `gputui submit
--test-only --source slurm`, as text or as JSON (``{"outcome", "allocation", "reason", "message",
"ignored_options"}``, see :mod:`gputui.slurm.jobs.outcome`). Exit status: 0 it would start, 1 it would wait, 2 sbatch
would refuse it."""

from __future__ import annotations

import json
import os
import sys
from collections.abc import Sequence

from gputui.core.plain_text import sanitise as plain

EXIT = {"start": 0, "wait": 1, "refuse": 2}


def slurm_whatif(service: object, options: Sequence[str], script: str | os.PathLike[str] | None, as_json: bool) -> int:
    """Ask the Slurm back end ``service`` what Slurm would do with ``options``; print it; the exit status."""
    from gputui.core.scheduler.errors import RequestError
    from gputui.jobs.errors import JobError
    from gputui.slurm.jobs.outcome import outcome_of

    try:
        preview = service.preview(list(options), script=script)  # type: ignore[attr-defined]
        answer = outcome_of(preview)
    except (RequestError, JobError) as e:
        answer = outcome_of(None, str(e))
        preview = None
    if as_json:
        print(json.dumps(answer, sort_keys=True))
        return EXIT[answer["outcome"]]
    if preview is None:
        print(f"gputui: sbatch would refuse it: {plain(answer['message'])}", file=sys.stderr)
        return 2
    print(plain(preview.text))
    for w in preview.warnings:
        print(f"warning: {plain(w)}")
    if answer["ignored_options"]:
        print("not taken into account (Slurm decides): " + plain(" ".join(answer["ignored_options"])))
    return EXIT[answer["outcome"]]
