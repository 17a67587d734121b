"""Reading and writing files safely: bounded reads, and outputs that appear whole or not at all.

Every file the command line reads whole (a board, a policy) is read through
:func:`read_bounded`, so ``/dev/zero`` or a runaway file is refused at its size bound
(docs/limits.md) instead of filling memory.  Every file it writes (``-o`` of
``import-arena`` and ``analyze``, ``--svg``, the pages of ``--report``) goes through
:func:`safe_output`:

- the text goes to a temporary file created exclusively (``O_CREAT | O_EXCL | O_NOFOLLOW``,
  mode 0o600) in the target's directory, is flushed to disk and renamed over the target
  (``os.replace``), then given the mode of a normal new file (0o666 less the umask);
- so an interrupted or failed write leaves the previous file as it was, and a reader never
  sees half a file;
- a symbolic link at the target is replaced, never followed (nor is one planted at the
  temporary name: creation is exclusive), so nothing outside the target's directory changes;
- a target that is one of the run's inputs (the same file, through a link or not) is refused
  before anything is opened, so an input is never truncated;
- a target that exists and is not a regular file (``/dev/null``, a FIFO) is written in place.
"""

from __future__ import annotations

import contextlib
import io
import os
import secrets
import stat
from collections.abc import Iterable, Iterator
from typing import IO, BinaryIO, TextIO, cast

from . import interrupts

__all__ = [
    "SafeOutput",
    "TooLarge",
    "UnsafeOutput",
    "failure_reason",
    "new_file_mode",
    "read_bounded",
    "read_stream_bounded",
    "safe_output",
    "same_file",
]


class TooLarge(ValueError):
    """An input past its size bound; ``limit`` is the bound in bytes."""

    def __init__(self, limit: int, what: str = "file") -> None:
        self.limit = limit
        self.what = what
        super().__init__(self.message())

    def message(self, hint: str | None = None) -> str:
        """``standard input is larger than N bytes (the limit; HINT)``, the hint naming what changes the bound."""
        return f"{self.what} is larger than {self.limit} bytes (the limit{'; ' + hint if hint else ''})"


class UnsafeOutput(ValueError):
    """An output path that would destroy an input or cannot hold a file; the message says which."""


def failure_reason(exc: Exception) -> str:
    """Why a read or write failed, for an error line: an ``OSError``'s ``strerror`` ("Permission denied"), else the
    message (an :class:`UnsafeOutput`'s "is a directory")."""
    return (exc.strerror if isinstance(exc, OSError) else None) or str(exc)


def read_bounded(path: str | bytes | os.PathLike[str] | os.PathLike[bytes], limit: int, what: str = "file") -> bytes:
    """The bytes of a file of at most ``limit`` bytes; :class:`TooLarge` past it, having read ``limit + 1``."""
    with open(path, "rb") as handle:
        return read_stream_bounded(handle, limit, what)


def read_stream_bounded(handle: IO[bytes], limit: int, what: str = "input") -> bytes:
    """At most ``limit`` bytes from a binary stream read to its end; :class:`TooLarge` if there are more."""
    chunks: list[bytes] = []
    size = 0
    while size <= limit:
        chunk = handle.read(min(limit + 1 - size, 1 << 20))
        if not chunk:
            break
        chunks.append(chunk)
        size += len(chunk)
    if size > limit:
        raise TooLarge(limit, what)
    return b"".join(chunks)


def same_file(a: str | os.PathLike[str], b: str | os.PathLike[str]) -> bool:
    """Whether two paths name one file (the same inode, links followed); False if either does not exist."""
    try:
        return os.path.samefile(a, b)
    except (OSError, ValueError):
        return False


def new_file_mode() -> int:
    """The mode ``open(path, "w")`` gives a new file: 0o666 less the process's umask."""
    return 0o666 & ~_umask()


def _umask() -> int:
    try:  # Linux 4.7+: readable without changing it (os.umask would, briefly, for every thread)
        with open("/proc/self/status", encoding="ascii") as status:
            for line in status:
                if line.startswith("Umask:"):
                    return int(line.split()[1], 8)
    except (OSError, ValueError):
        pass
    mask = os.umask(0o022)
    os.umask(mask)
    return mask


class SafeOutput:
    """The file being written by :func:`safe_output`: ``file`` to write to; :meth:`discard` to keep the old one."""

    def __init__(self, file: TextIO | BinaryIO, temporary: str | None) -> None:
        self.file = file
        self.temporary = temporary
        self.discarded = False

    @property
    def text(self) -> TextIO:
        """``file``, opened as text (the default)."""
        if not isinstance(self.file, io.TextIOBase):
            raise TypeError("this output was opened binary")
        return cast(TextIO, self.file)

    def discard(self) -> None:
        """Write nothing after all: the target stays as it was (or absent)."""
        self.discarded = True


@contextlib.contextmanager
def safe_output(
    path: str | os.PathLike[str],
    *,
    inputs: Iterable[str | os.PathLike[str]] = (),
    binary: bool = False,
    encoding: str = "utf-8",
) -> Iterator[SafeOutput]:
    """Write ``path`` whole on a clean exit from the block, else not at all (see the module docstring).

    Raises :class:`UnsafeOutput` before anything is written when ``path`` is one of ``inputs``
    or a directory, and ``OSError`` when the directory cannot take a new file.  On an exception
    (KeyboardInterrupt and SystemExit included) the temporary file is removed and the exception
    goes on; the target is untouched.  So it is after a stop signal whose exception a finaliser dropped
    (:func:`solver.interrupts.check`).
    """
    target = os.fspath(path)
    for source in inputs:
        if same_file(target, source):
            raise UnsafeOutput(f"is the input {os.fspath(source)!r}: refusing to overwrite it")
    try:
        info = os.lstat(target)
    except FileNotFoundError:
        info = None
    if info is not None and stat.S_ISDIR(info.st_mode):
        raise UnsafeOutput("is a directory")
    if info is not None and not (stat.S_ISREG(info.st_mode) or stat.S_ISLNK(info.st_mode)):
        with _open_in_place(target, binary, encoding) as special:  # /dev/null, a FIFO: nothing to replace
            out = SafeOutput(special, None)
            yield out
        return
    fd, temporary = _exclusive_temporary(target)
    handle: TextIO | BinaryIO
    raw = os.fdopen(fd, "wb")
    handle = raw if binary else io.TextIOWrapper(raw, encoding=encoding, newline="")
    out = SafeOutput(handle, temporary)
    try:
        yield out
        if out.discarded:
            handle.close()
            os.unlink(temporary)
            return
        handle.flush()
        os.fsync(raw.fileno())
        os.fchmod(raw.fileno(), new_file_mode())
        handle.close()
        interrupts.check()  # a stop signal a finaliser dropped: the block did not end cleanly after all
        os.replace(temporary, target)
    except BaseException:
        with contextlib.suppress(OSError):
            handle.close()
        with contextlib.suppress(OSError):
            os.unlink(temporary)
        raise
    _sync_directory(os.path.dirname(os.path.abspath(target)))


def _exclusive_temporary(target: str) -> tuple[int, str]:
    """A new file next to ``target``, created by us alone (a name planted there, link or not, is skipped)."""
    directory, name = os.path.split(os.path.abspath(target))
    flags = os.O_WRONLY | os.O_CREAT | os.O_EXCL | getattr(os, "O_NOFOLLOW", 0) | getattr(os, "O_CLOEXEC", 0)
    for _ in range(100):
        temporary = os.path.join(directory, f".{name[:200]}.{secrets.token_hex(6)}.tmp")
        try:
            return os.open(temporary, flags, 0o600), temporary
        except FileExistsError:
            continue
    raise FileExistsError(f"cannot create a temporary file in {directory!r}")


@contextlib.contextmanager
def _open_in_place(target: str, binary: bool, encoding: str) -> Iterator[TextIO | BinaryIO]:
    if binary:
        with open(target, "wb") as bhandle:
            yield bhandle
    else:
        with open(target, "w", encoding=encoding, newline="") as thandle:
            yield thandle


def _sync_directory(directory: str) -> None:
    """Make the rename durable (best effort: not every system can open a directory)."""
    try:
        fd = os.open(directory, os.O_RDONLY)
    except OSError:
        return
    try:
        os.fsync(fd)
    except OSError:
        pass
    finally:
        os.close(fd)
