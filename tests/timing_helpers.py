"""Time bounds the product promises (time limits, cancellation, refusing early), checked on a shared machine.

A bound is checked with :func:`within`, which raises :class:`Overrun`. A test marked
:func:`retried_on_overrun` runs again when, and only when, a bound was overrun: another process on the
machine can make one run slow, but not three in a row, while a broken limit overruns every time. A wrong
answer is never retried.
"""

from __future__ import annotations

import functools
from collections.abc import Callable
from typing import ParamSpec, TypeVar

P = ParamSpec("P")
R = TypeVar("R")

#: How many times a test with a time bound runs before its overrun fails it.
TRIES = 3


class Overrun(AssertionError):
    """A time bound was overrun."""


def within(elapsed: float, bound: float, what: str = "elapsed") -> None:
    """Fail with :class:`Overrun` when ``elapsed`` seconds exceed ``bound``."""
    if elapsed > bound:
        raise Overrun(f"{what}: {elapsed:.3f} s, the bound is {bound:.3f} s")


def retried_on_overrun(test: Callable[P, R]) -> Callable[P, R]:
    """Run ``test`` up to :data:`TRIES` times while its only failure is an :class:`Overrun`."""

    @functools.wraps(test)
    def run(*args: P.args, **kwargs: P.kwargs) -> R:
        for _ in range(TRIES - 1):
            try:
                return test(*args, **kwargs)
            except Overrun:
                continue
        return test(*args, **kwargs)

    return run
