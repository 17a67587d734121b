"""How a ``proliferate`` process asks glibc's allocator to hold memory: a steady mmap threshold, and trimming.

Both are for our own processes (the command line, the server, the analysis workers), never a
host program's: importing :mod:`solver` changes nothing here; :func:`solver.cli.main` calls
:func:`steady_mmap_threshold` once, and the server calls :func:`release_memory` after a session.

* glibc serves a request of at least its *mmap threshold* with a mapping of its own, returned
  to the system when freed, and smaller ones from its heap.  By default the threshold moves:
  each large block freed raises it (up to 32 MiB), so the next large arrays come from the heap,
  whose freed pages the process keeps.  For the largest boards (docs/limits.md) that adds 20-40 MB
  to a request's peak, depending only on the order in which arrays are freed.  A fixed threshold
  of :data:`MMAP_THRESHOLD` keeps every array of 4 MiB and more in its own mapping; the arrays of
  small and mid-sized boards stay far below it, so deciding them is unchanged
  (``benchmarks.memory_limits`` measures the process set up this way).
* :func:`release_memory` hands the freed heap back (``malloc_trim``) once a session is over.

Elsewhere (not glibc: macOS, Windows, musl) both do nothing.
"""

from __future__ import annotations

import ctypes
import ctypes.util
import gc
import sys
from functools import cache

__all__ = ["MMAP_THRESHOLD", "release_memory", "steady_mmap_threshold"]

#: The fixed mmap threshold (bytes) :func:`steady_mmap_threshold` sets.
MMAP_THRESHOLD = 4 << 20
#: glibc's ``mallopt`` parameter number for the mmap threshold (malloc.h).
_M_MMAP_THRESHOLD = -3


@cache
def _glibc() -> ctypes.CDLL | None:
    """The C library when it is glibc (it has ``mallopt`` and ``malloc_trim``); None elsewhere."""
    if not sys.platform.startswith("linux"):
        return None
    try:
        libc = ctypes.CDLL(ctypes.util.find_library("c") or "libc.so.6")
        libc.mallopt.argtypes = [ctypes.c_int, ctypes.c_int]
        libc.malloc_trim.argtypes = [ctypes.c_size_t]
    except (OSError, AttributeError):  # not glibc (musl has no malloc_trim)
        return None
    return libc


def steady_mmap_threshold(threshold: int = MMAP_THRESHOLD) -> bool:
    """Fix glibc's mmap threshold at ``threshold`` bytes (see the module); whether it was set."""
    libc = _glibc()
    return libc is not None and bool(libc.mallopt(_M_MMAP_THRESHOLD, threshold))


def release_memory() -> None:
    """Return the memory the process freed to the system.

    A collection first (the parsed requests' cycles), then glibc's ``malloc_trim``: without
    it glibc keeps the freed pages in its arenas and the process stays at its peak.
    """
    gc.collect()
    libc = _glibc()
    if libc is not None:
        libc.malloc_trim(0)
