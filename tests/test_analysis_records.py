"""The native game-record format: parsing, streaming, writing and the JSON Schema (solver.analysis.records)."""

from __future__ import annotations

import gzip
import io
import json
from pathlib import Path
from typing import Any

import jsonschema
import pytest
from analysis_helpers import NATIVE, ROOT, creature, duel, record
from referencing import Registry, Resource

from solver.analysis.records import (
    LineProblem,
    RecordError,
    encode_record,
    parse_line,
    parse_record,
    read_records,
    resolve,
    write_records,
)
from solver.formats import BoardStruct


def _validator() -> jsonschema.Draft202012Validator:
    schemas = [
        json.loads((ROOT / "solver" / "schema" / name).read_text())
        for name in ("game-record-v1.schema.json", "board-v1.schema.json")
    ]
    registry: Registry[Any] = Registry().with_resources([(s["$id"], Resource.from_contents(s)) for s in schemas])
    return jsonschema.Draft202012Validator(schemas[0], registry=registry)


def _board() -> dict[str, Any]:
    return duel("alice", {}, {"poison": 3}, [creature("bears", "alice", {"+1/+1": 1})])


def test_a_malformed_line_is_reported_with_its_line_number_and_the_rest_is_read() -> None:
    items = list(read_records(NATIVE))
    problems = [i for i in items if isinstance(i, LineProblem)]
    good = [i for i in items if not isinstance(i, LineProblem)]
    assert [(p.line, p.path) for p in problems] == [(3, "")]
    assert str(problems[0]).startswith(f"{NATIVE}:3: not valid JSON")
    assert [line for line, _ in good] == [1, 2, 4, 6]  # line 5 is blank


def test_every_problem_of_a_record_names_its_json_path() -> None:
    with pytest.raises(RecordError) as info:
        parse_record({"game": "", "turn": -1, "board": [], "chosen": ["a", "a", 3], "colour": "red"})
    paths = {p.path for p in info.value.problems}
    assert paths == {"colour", "decider", "game", "turn", "board", "chosen[1]", "chosen[2]"}


def test_bad_items_name_their_type_and_null_optional_fields_mean_absent() -> None:
    """One toolkit with the protocol: an item's JSON type is named, null recipients are none (both new here)."""
    with pytest.raises(RecordError) as info:
        parse_record({**record(_board(), []), "chosen": ["bears", 3]})
    assert [str(p) for p in info.value.problems] == [
        "chosen[1]: must be a non-empty string (an id of the board), not a number"
    ]
    parsed = parse_record(record(_board(), [], poison_recipients=None, phase=None, candidates=None, meta=None))
    assert (dict(parsed.poison_recipients), parsed.phase, parsed.candidates, parsed.meta) == ({}, None, None, None)


@pytest.mark.parametrize(
    ("extra", "path"),
    [
        ({"decider": "al\ud800ice"}, "decider"),
        ({"game": "\udfff"}, "game"),
        ({"chosen": ["be\udc00ars"]}, "chosen[0]"),
        ({"phase": "main\ud800"}, "phase"),
        ({"poison_recipients": {"A": "\ud800"}}, 'poison_recipients["A"]'),
        ({"meta": {"notes": ["ok", "\ud800"]}}, "meta.notes[1]"),
    ],
)
def test_a_lone_surrogate_is_refused_where_it_could_not_be_written_back(extra: dict[str, Any], path: str) -> None:
    with pytest.raises(RecordError) as info:
        parse_record({**record(_board(), []), **extra})
    assert [p.path for p in info.value.problems] == [path]
    assert "lone surrogate" in info.value.problems[0].message


@pytest.mark.parametrize("as_line", [False, True])
@pytest.mark.parametrize("number", [float("nan"), float("inf"), float("-inf")])
def test_a_free_form_meta_number_that_is_not_finite_is_refused_at_its_path(number: float, as_line: bool) -> None:
    """``meta`` is free-form, but what is read must be written back as JSON: NaN and the infinities are not JSON
    (a mapping can hold them, and so can a line the standard library reads), so they are refused, as on boards."""
    data = {**record(_board(), []), "meta": {"source": "arena", "scores": [1.5, number]}}
    with pytest.raises(RecordError) as info:
        parse_line(json.dumps(data)) if as_line else parse_record(data)
    assert [(p.path, p.message) for p in info.value.problems] == [("meta.scores[1]", "must be a finite number")]
    assert parse_record({**data, "meta": {"scores": [1.5, 1e300]}}).meta == {"scores": [1.5, 1e300]}


def test_round_problems_name_the_round() -> None:
    data = record(_board(), ["bears"], rounds=[{"chosen": ["bears"], "extra": 1}, "x", {"chosen": ["bob", "bob"]}])
    with pytest.raises(RecordError) as info:
        parse_record(data)
    assert [p.path for p in info.value.problems] == ["rounds[0].extra", "rounds[1]", "rounds[2].chosen[1]"]


def test_board_problems_carry_the_board_path() -> None:
    bad = _board()
    bad["permanents"][0]["power"] = "big"
    with pytest.raises(RecordError) as info:
        resolve(parse_record(record(bad, [])))
    assert [p.path for p in info.value.problems] == ["board.permanents[0].power"]


def test_the_decider_must_be_the_proliferator_and_the_choice_legal() -> None:
    with pytest.raises(RecordError, match="decider"):
        resolve(parse_record({**record(_board(), []), "decider": "bob"}))
    with pytest.raises(RecordError, match=r"701\.34a"):
        resolve(parse_record(record(_board(), ["alice"])))  # alice has no counters


def test_rounds_must_start_with_the_chosen_ids() -> None:
    data = record(_board(), ["bears"], rounds=[{"chosen": ["bob"]}])
    with pytest.raises(RecordError, match=r"rounds\[0\]"):
        parse_record(data)


def test_records_round_trip_through_write_and_read(tmp_path: Path) -> None:
    original = parse_record(record(_board(), ["bears", "bob"], phase="main1", meta={"note": "x"}))
    buffer = io.StringIO()
    assert write_records([original, original], buffer) == 2
    path = tmp_path / "out.jsonl.gz"
    path.write_bytes(gzip.compress(buffer.getvalue().encode()))
    assert list(read_records(path)) == [(1, original), (2, original)]


def test_native_fixture_records_follow_the_schema() -> None:
    validator = _validator()
    for item in read_records(NATIVE):
        if not isinstance(item, LineProblem):
            assert list(validator.iter_errors(item[1].to_json())) == []


def test_the_schema_rejects_what_the_reader_rejects() -> None:
    validator = _validator()
    assert not validator.is_valid({"game": "g", "turn": 1, "decider": "alice", "board": _board(), "chosen": [], "x": 1})
    assert not validator.is_valid({"game": "g", "turn": -1, "decider": "alice", "board": _board(), "chosen": []})


def test_a_line_is_decoded_once_by_the_record_decoder_board_included() -> None:
    """analyze decodes each line into the record Structs (issue 27): the board comes typed, not as a dict to re-read."""
    line = json.dumps(record(_board(), ["bears"], phase="main1"))
    parsed = parse_line(line)
    assert isinstance(parsed.board, BoardStruct)
    assert parsed == parse_record(json.loads(line))
    board, _ = resolve(parsed)
    assert board.ids == ("alice", "bob", "bears")


def test_import_arena_writes_records_through_the_record_structs() -> None:
    """Records are written by msgspec through RecordStruct: what it writes reads back equal; a bad one is refused."""
    data = record(_board(), ["bears"], meta={"grpid": 7})
    written = encode_record(data)
    assert parse_line(written.decode()) == parse_record(data)
    with pytest.raises(RecordError) as info:
        encode_record({**data, "turn": -1})
    assert [str(p) for p in info.value.problems] == ["turn: must be an integer >= 0"]
