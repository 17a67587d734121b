"""Hypothesis profiles: CI explores the same examples on every run; local runs keep exploring new ones."""

from __future__ import annotations

import os

import pytest
from hypothesis import HealthCheck, settings

settings.register_profile("ci", derandomize=True, print_blob=True, suppress_health_check=[HealthCheck.too_slow])
if os.environ.get("CI"):
    settings.load_profile("ci")
# The long fuzz run before a release (docs/limits.md): pytest tests/test_fuzz_*.py --hypothesis-profile=release
settings.register_profile(
    "release", max_examples=5_000, deadline=None, suppress_health_check=[HealthCheck.too_slow], print_blob=True
)


def pytest_addoption(parser: pytest.Parser) -> None:
    parser.addoption(
        "--load-long",
        action="store_true",
        default=False,
        help="run the long version of the server's load-and-fault test (tests/test_protocol_load.py)",
    )
