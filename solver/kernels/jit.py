"""How the compiled core is compiled: numba's options for its two kinds of kernel, defined once.

An *entry* (called from Python, or allocating arrays) is ``@njit(cache=True)``.  An *inner* rule or
step, which allocates nothing and returns no array, is :func:`inner`: inlined into its caller and
compiled without numba's reference counts (NRT), so it borrows its caller's arrays.  Every array
passed between compiled functions otherwise costs two atomic operations a call (docs/architecture.md).
"""

from __future__ import annotations

from collections.abc import Callable
from typing import Any, TypeVar

from numba import njit
from numba.core.dispatcher import Dispatcher

__all__ = ["INNER_OPTIONS", "inner"]

_F = TypeVar("_F", bound=Callable[..., Any])

#: numba's options for an inner kernel (``_nrt`` is numba's own switch for helpers that allocate nothing).
INNER_OPTIONS: dict[str, Any] = {"cache": True, "forceinline": True, "_nrt": False}


def inner(fn: _F) -> Dispatcher[_F]:
    """Compile ``fn`` as an inner kernel: no allocation, no array returned, no slice assignment (which may copy)."""
    compiled: Dispatcher[_F] = njit(**INNER_OPTIONS)(fn)
    return compiled
