"""Hypothesis profiles: CI explores the same examples on every run; local runs keep exploring new ones.

And the suite's subprocesses get Ctrl-C as a terminal's foreground job does.
"""

from __future__ import annotations

import os
import signal

import pytest
from hypothesis import HealthCheck, settings

# No deadline in any profile: hypothesis's default (200 ms an example) is a timed unit test, and on a shared,
# loaded machine it fails examples for the machine's noise, not the code's speed (benchmarks/ measure speed).
settings.register_profile("local", deadline=None, suppress_health_check=[HealthCheck.too_slow])
LOCAL = settings.get_profile("local")
settings.register_profile("ci", parent=LOCAL, derandomize=True, print_blob=True)
# The long fuzz run before a release (docs/limits.md): pytest tests/test_fuzz_*.py --hypothesis-profile=release
settings.register_profile("release", parent=LOCAL, max_examples=5_000, print_blob=True)
settings.load_profile("ci" if os.environ.get("CI") else "local")

# A runner that starts the suite with SIGINT ignored (a background job of a non-interactive shell: ``bash .ci/run
# &``) hands the ignore on to every command-line subprocess, and a program started so rightly keeps ignoring
# Ctrl-C: the tests that send one (tests/test_protocol_signals.py, tests/test_files_safety.py) would then see a
# search run on or an analysis finish. With a handler here, each subprocess starts with SIGINT at its default, as
# from a terminal.
if signal.getsignal(signal.SIGINT) is signal.SIG_IGN:
    signal.signal(signal.SIGINT, signal.default_int_handler)


def pytest_addoption(parser: pytest.Parser) -> None:
    parser.addoption(
        "--load-long",
        action="store_true",
        default=False,
        help="run the long version of the server's load-and-fault test (tests/test_protocol_load.py)",
    )
