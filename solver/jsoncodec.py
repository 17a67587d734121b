"""JSON text to values and back: msgspec's parser and writer, with exactly the standard library's values and errors.

Parsing and writing JSON is most of what ``proliferate serve`` adds to a decision on a
board of a few hundred objects.  msgspec (a default dependency: the formats are decoded by
it, :mod:`solver.formats`) reads such text two to three times as fast as the standard
library and writes it tens of times as fast, but it is not the same parser, so it is used
only where its answer is the standard library's:

* it refuses what the standard library accepts (``NaN``, ``Infinity``, numbers too large
  for a float, lone UTF-16 surrogates) and what both refuse: whatever it refuses goes to
  the standard library, which then returns its value or raises its own error with its own
  message, so errors are exactly those of :func:`json.loads`;
* it writes NaN and the infinities as ``null`` (the standard library writes ``NaN``), so
  output holding a ``null`` is written again by the standard library, as is anything it
  cannot write.

What remains different is immaterial to a caller: msgspec writes non-ASCII characters as
UTF-8 rather than ``\\u`` escapes (the same JSON value), and it also writes a few Python
types the standard library refuses (dataclasses, msgspec Structs, dates).
"""

from __future__ import annotations

import json
from typing import Any

import msgspec

__all__ = ["dumps", "loads", "name"]

_DECODER = msgspec.json.Decoder()
_ENCODER = msgspec.json.Encoder()
#: Whether msgspec is used (tests turn it off to check the standard library's path alone).
FAST = True


def name() -> str:
    """Which parser this process uses, for benchmarks and bug reports: ``"msgspec 0.x"`` or ``"json (stdlib)"``."""
    return f"msgspec {msgspec.__version__}" if FAST else "json (stdlib)"


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
    if FAST:
        try:
            return _DECODER.decode(data)
        except (msgspec.DecodeError, msgspec.ValidationError, UnicodeEncodeError, RecursionError):
            pass
    return json.loads(data if isinstance(data, str) else data.decode("utf-8"))


def dumps(value: Any) -> bytes:
    """Compact JSON of ``value`` as UTF-8 bytes: the value of ``json.dumps(value, separators=(",", ":"))``.

    Raises what :func:`json.dumps` raises (:class:`TypeError` for a value JSON cannot
    hold, :class:`ValueError` for a circular reference).

    >>> dumps({"id": 1, "fields": ["chosen", "value"]})
    b'{"id":1,"fields":["chosen","value"]}'
    """
    if FAST:
        try:
            out = _ENCODER.encode(value)
        except (TypeError, ValueError, OverflowError, RecursionError, UnicodeEncodeError):
            pass
        else:
            if b"null" not in out:
                return out
    return json.dumps(value, separators=(",", ":")).encode()
