"""Our threads leave SIGINT and SIGTERM to the main thread (solver.threads): the kernel then delivers them there.

The end-to-end check is tests/test_protocol_signals.py (a server told to stop while its solve worker and its
reply writer wait in system calls); here, the masks themselves.
"""

from __future__ import annotations

import signal
import sys
import threading

import pytest

from solver import threads

pytestmark = pytest.mark.skipif(not hasattr(signal, "pthread_sigmask"), reason="no thread signal masks")


def _mask_in(start: bool) -> set[int]:
    seen: list[set[int]] = []
    thread = threading.Thread(target=lambda: seen.append(set(signal.pthread_sigmask(signal.SIG_BLOCK, []))))
    if start:
        threads.start(thread)
    else:
        thread.start()
    thread.join()
    return seen[0]


def test_a_thread_we_start_blocks_sigint_and_sigterm_and_the_starter_keeps_its_mask() -> None:
    before = set(signal.pthread_sigmask(signal.SIG_BLOCK, []))
    assert _mask_in(start=True) >= threads.STOP_SIGNALS
    assert set(signal.pthread_sigmask(signal.SIG_BLOCK, [])) == before
    assert not threads.STOP_SIGNALS & _mask_in(start=False)  # a plain thread would take them


def test_a_signal_raised_while_a_thread_starts_reaches_the_main_thread_after() -> None:
    """Pending while the starter blocks it, SIGINT is delivered once the mask is restored (KeyboardInterrupt)."""
    if sys.platform == "win32":
        pytest.skip("POSIX signals")

    class Raising(threading.Thread):
        def start(self) -> None:
            signal.raise_signal(signal.SIGINT)  # the starter has SIGINT blocked here
            super().start()

    with pytest.raises(KeyboardInterrupt):
        threads.start(Raising(target=lambda: None))
        for _ in range(1000):  # the handler runs between bytecodes of the main thread
            pass
