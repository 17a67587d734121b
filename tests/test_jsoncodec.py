"""solver.jsoncodec: msgspec's parser and writer, with exactly the standard library's values and errors."""

from __future__ import annotations

import doctest
import json
import math
from collections.abc import Iterator
from typing import Any

import msgspec
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from solver import jsoncodec


@pytest.fixture(params=["msgspec", "stdlib"])
def codec(request: pytest.FixtureRequest, monkeypatch: pytest.MonkeyPatch) -> Iterator[str]:
    """Each test on both paths: msgspec (the default), and the standard library alone."""
    if request.param == "stdlib":
        monkeypatch.setattr(jsoncodec, "FAST", False)
    yield request.param


def same(a: Any, b: Any) -> bool:
    """Equal JSON values, with NaN equal to NaN and the int/float distinction kept."""
    if isinstance(a, float) and isinstance(b, float):
        return (math.isnan(a) and math.isnan(b)) or a == b
    if type(a) is not type(b):
        return False
    if isinstance(a, dict):
        return list(a) == list(b) and all(same(a[k], b[k]) for k in a)
    if isinstance(a, list):
        return len(a) == len(b) and all(same(x, y) for x, y in zip(a, b, strict=True))
    return bool(a == b)


def outcome(parse: Any, data: bytes) -> tuple[str, Any]:
    try:
        return "value", parse(data)
    except (ValueError, RecursionError) as exc:  # JSONDecodeError and UnicodeDecodeError are ValueErrors
        return type(exc).__name__, str(exc)


json_values = st.recursive(
    st.none()
    | st.booleans()
    | st.integers(min_value=-(2**70), max_value=2**70)
    | st.floats(allow_nan=True, allow_infinity=True)
    | st.text(),
    lambda inner: st.lists(inner, max_size=4) | st.dictionaries(st.text(max_size=5), inner, max_size=4),
    max_leaves=20,
)


@settings(max_examples=400, deadline=None)
@given(value=json_values)
def test_values_read_back_as_the_standard_library_reads_them(value: Any) -> None:
    text = json.dumps(value)
    assert same(jsoncodec.loads(text.encode()), json.loads(text))
    assert same(jsoncodec.loads(text), json.loads(text))


@settings(max_examples=400, deadline=None)
@given(value=json_values)
def test_written_text_holds_the_standard_library_value(value: Any) -> None:
    out = jsoncodec.dumps(value)
    assert same(json.loads(out), json.loads(json.dumps(value, separators=(",", ":"))))


@settings(max_examples=600, deadline=None)
@given(
    data=st.binary(max_size=40)
    | st.text(alphabet='{}[]",:0123456789.eE+-truefalsnNaIfiy \\u\ud800', max_size=40).map(
        lambda t: t.encode("utf-8", "surrogatepass")
    )
)
def test_any_bytes_give_the_standard_library_value_or_error(data: bytes) -> None:
    mine, theirs = outcome(jsoncodec.loads, data), outcome(lambda d: json.loads(d.decode("utf-8")), data)
    if mine[0] == "value":
        assert same(mine[1], theirs[1])
    else:
        assert mine == theirs  # the same error, with the same message


@pytest.mark.parametrize(
    ("text", "expected"),
    [
        (
            b"123456789012345678901234567890",
            123456789012345678901234567890,
        ),  # orjson (used before) made it a float
        (b"-9223372036854775809", -9223372036854775809),
        (b"18446744073709551616", 18446744073709551616),
        (b"[NaN, Infinity, -Infinity]", [math.nan, math.inf, -math.inf]),
        (b"1e400", math.inf),
        (b'"\\ud800"', "\ud800"),  # a lone surrogate: valid JSON syntax that msgspec refuses
        (b'{"a": 1, "a": 2}', {"a": 2}),
    ],
)
def test_where_msgspec_differs_the_standard_library_answers(codec: str, text: bytes, expected: Any) -> None:
    assert same(jsoncodec.loads(text), expected)


@pytest.mark.parametrize(
    ("value", "expected"),
    [
        ({"v": math.nan}, b'{"v":NaN}'),  # msgspec writes null
        ({1: "a"}, b'{"1":"a"}'),  # a key that is not a string
        ([2**70], b"[1180591620717411303424]"),
        ({"a": None}, b'{"a":null}'),
    ],
)
def test_where_msgspec_writes_otherwise_the_standard_library_writes(codec: str, value: Any, expected: bytes) -> None:
    assert jsoncodec.dumps(value) == expected


def test_errors_are_the_standard_librarys(codec: str) -> None:
    with pytest.raises(json.JSONDecodeError, match=r"Expecting value: line 1 column 6 \(char 5\)"):
        jsoncodec.loads(b'{"a":}')
    with pytest.raises(UnicodeDecodeError):
        jsoncodec.loads(b'{"a": "\xff"}')
    with pytest.raises(TypeError, match="not JSON serializable"):
        jsoncodec.dumps({"a": object()})


def test_the_codec_in_use_is_named(codec: str) -> None:
    expected = "json (stdlib)" if codec == "stdlib" else f"msgspec {msgspec.__version__}"
    assert jsoncodec.name() == expected


def test_docstring_examples_run(codec: str) -> None:
    assert doctest.testmod(jsoncodec).failed == 0
