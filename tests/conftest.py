from __future__ import annotations

import os
import sys
from pathlib import Path

from hypothesis import HealthCheck, settings

# Tests are split by kind (unit/, ui/, integration/); shared helpers live in support/. Helpers and the few
# fixtures one kind borrows from another are imported by module name, so every folder is on the path.
for _folder in ("support", "unit", "ui", "integration", "export", "ssh", ""):
    sys.path.insert(0, str(Path(__file__).parent / _folder))

pytest_plugins = ["job_fixtures", "ssh_lab"]  # fixtures shared by tests of several files

settings.register_profile("ci", max_examples=60, deadline=None, suppress_health_check=[HealthCheck.too_slow])
settings.register_profile("thorough", max_examples=1000, deadline=None)
settings.load_profile(os.environ.get("HYPOTHESIS_PROFILE", "ci"))

REPO = Path(__file__).resolve().parent.parent
FIXTURES = REPO / "fixtures"
