"""How the env's compiled game is compiled: numba's options for its three kinds of kernel, defined once.

The compiled core's :func:`solver.core.inner` (inlined, no reference counts) is for small rules.  The game's
spine (:mod:`env.kernels.game`: a step, the seats' turns, a decision and its resolution) takes the state, the
tables and the views as tuples of ~50 arrays and allocates nothing (its working lists are the per-game
scratch rows of :class:`~env.kernels.state.GameArrays`), so it is compiled without numba's reference counts
too, which would otherwise cost two atomic operations per array per call (docs/architecture.md); but a spine
function is large and called from many entries, so it is called, not inlined (inlining it into every entry
would multiply the compile time).  Where the spine needs arrays made (the compiled core's decide kernel, the
616.1 gains), the allocation happens in a :func:`boundary` function, which keeps numba's reference counts
whoever calls it, and returns a scalar.

numba's callees inherit their caller's ``_nrt`` and ``forceinline`` unless they set them, so both are set
here explicitly: an allocating function must never be compiled as part of a spine without them.
"""

from __future__ import annotations

from collections.abc import Callable
from typing import Any, TypeVar

from numba import njit
from numba.core.dispatcher import Dispatcher

__all__ = ["BOUNDARY_OPTIONS", "SPINE_OPTIONS", "boundary", "spine"]

_F = TypeVar("_F", bound=Callable[..., Any])

#: A spine function: no reference counts, called (not inlined).
SPINE_OPTIONS: dict[str, Any] = {"cache": True, "forceinline": False, "_nrt": False}
#: A function that allocates, called from the spine: reference counts on, whatever its caller has.
BOUNDARY_OPTIONS: dict[str, Any] = {"cache": True, "forceinline": False, "_nrt": True}


def spine(fn: _F) -> Dispatcher[_F]:
    """Compile ``fn`` as a spine kernel: no allocation, no array returned, no slice assignment from an array."""
    compiled: Dispatcher[_F] = njit(**SPINE_OPTIONS)(fn)
    return compiled


def boundary(fn: _F) -> Dispatcher[_F]:
    """Compile ``fn`` as the spine's allocating boundary (it may allocate; it returns no array to the spine)."""
    compiled: Dispatcher[_F] = njit(**BOUNDARY_OPTIONS)(fn)
    return compiled
