"""Hypothesis profiles: CI explores the same examples on every run; local runs keep exploring new ones."""

from __future__ import annotations

import os

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


def pytest_addoption(parser: pytest.Parser) -> None:
    parser.addoption(
        "--load-long",
        action="store_true",
        default=False,
        help="run the long version of the server's load-and-fault test (tests/test_protocol_load.py)",
    )
