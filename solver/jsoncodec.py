"""JSON text to values and back: orjson where the ``fast`` extra installed it, else the standard library.

Parsing and writing JSON is most of what ``proliferate serve`` adds to a decision on a
board of a few hundred objects (about 0.3 ms to write a 200-object request in Python and
0.2 ms to read it, against 1 ms to load it as a board), and a large part of reading
records for ``proliferate analyze``.  orjson reads such text about twice as fast and
writes it ten times as fast, but it is not the same parser, so it is used only where its
answer is the standard library's:

* it reads an integer outside the 64-bit range as a float (the standard library keeps the
  integer), so text with a run of 19 or more digits goes to the standard library;
* it refuses what the standard library accepts (``NaN``, ``Infinity``, lone UTF-16
  surrogates, numbers too large for a float) and what both refuse: whatever it refuses
  goes to the standard library, which then returns its value or raises its own error with
  its own message, so errors are exactly those of :func:`json.loads`;
* it writes NaN and the infinities as ``null`` (the standard library writes ``NaN``), so
  output holding a ``null`` is written again by the standard library, as is anything it
  cannot write (keys that are not strings, integers past 64 bits, unknown types).

What remains different is immaterial to a caller: orjson accepts nesting up to 1,024
levels, a little deeper than the standard library's recursion limit, and writes
non-ASCII characters as UTF-8 rather than ``\\u`` escapes (the same JSON value).
"""

from __future__ import annotations

import json
from typing import Any

try:
    import orjson
except ImportError:  # the default install: the standard library alone
    orjson = None  # type: ignore[assignment]

__all__ = ["dumps", "loads", "name"]

#: Digits to ``9``, every other byte to a space: a run of 19 nines marks a number orjson might round.
_DIGITS = bytes(0x39 if 0x30 <= b <= 0x39 else 0x20 for b in range(256))
_LONG_NUMBER = b"9" * 19


def name() -> str:
    """Which parser this process uses, for benchmarks and bug reports: ``"orjson 3.x"`` or ``"json (stdlib)"``."""
    return "json (stdlib)" if orjson is None else f"orjson {orjson.__version__}"


def loads(data: bytes | str) -> Any:
    """The value of JSON text, as :func:`json.loads` of its UTF-8 text returns it (and with its errors).

    Raises :class:`UnicodeDecodeError` for bytes that are not UTF-8, and whatever
    :func:`json.loads` raises for text that is not JSON (:class:`json.JSONDecodeError`,
    :class:`RecursionError`, :class:`ValueError` for integers too long to convert).

    >>> loads(b'{"counters": {"+1/+1": 2}}')
    {'counters': {'+1/+1': 2}}
    >>> loads('[1e400, 123456789012345678901234567890]')
    [inf, 123456789012345678901234567890]
    """
    if orjson is not None:
        try:
            raw = data if isinstance(data, bytes) else data.encode()
        except UnicodeEncodeError:  # a str holding a lone surrogate: only the standard library reads it
            raw = None
        if raw is not None and _LONG_NUMBER not in raw.translate(_DIGITS):
            try:
                return orjson.loads(raw)
            except orjson.JSONDecodeError:
                pass
    return json.loads(data if isinstance(data, str) else data.decode("utf-8"))


def dumps(value: Any) -> bytes:
    """Compact JSON of ``value`` as UTF-8 bytes: the value of ``json.dumps(value, separators=(",", ":"))``.

    Raises what :func:`json.dumps` raises (:class:`TypeError` for a value JSON cannot
    hold, :class:`ValueError` for a circular reference).

    >>> dumps({"id": 1, "fields": ["chosen", "value"]})
    b'{"id":1,"fields":["chosen","value"]}'
    """
    if orjson is not None:
        try:
            out = orjson.dumps(value)
        except orjson.JSONEncodeError:
            pass
        else:
            if b"null" not in out:
                return out
    return json.dumps(value, separators=(",", ":")).encode()
