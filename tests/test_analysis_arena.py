"""The MTG Arena Player.log importer (solver.analysis.arena), on hand-written anonymised logs of both layouts."""

from __future__ import annotations

import json
import random
from pathlib import Path
from typing import Any

import pytest
from analysis_helpers import ARENA_2020, ARENA_NEW, ARENA_NEW_GZ, ARENA_POISON_TRIGGERS, ARENA_SHOWN
from hypothesis import given, settings
from hypothesis import strategies as st

import solver
from solver.analysis.analyze import analyze_record
from solver.analysis.arena import (
    ImportStats,
    counter_kind,
    detect_proliferate,
    import_log,
    is_proliferate_request,
    says_proliferate,
)
from solver.analysis.grading import Grade
from solver.analysis.records import parse_record, resolve

#: What a card database says of the fixtures' abilities: 90003 is the opponent's proliferate.
TEXTS = {90003: "Proliferate. (Choose any number of permanents and/or players, then give each another counter...)"}


def _records(path: Path, texts: dict[int, str] | None = None) -> tuple[list[dict[str, Any]], ImportStats]:
    stats = ImportStats()
    return [r for _, r in import_log(path, stats, texts.get if texts is not None else None)], stats


@pytest.mark.parametrize("path", [ARENA_NEW, ARENA_NEW_GZ, ARENA_2020], ids=["persistent", "gzip", "2020"])
def test_the_missed_poison_decision_is_found_with_its_candidates_and_choice(path: Path) -> None:
    records, _ = _records(path)
    first = records[0]
    # Before it: seat 2 had 8 poison, 292 one +1/+1, 305 one -1/-1; only 292 was proliferated.
    assert first["candidates"] == ["seat2", "292", "305"]
    assert first["chosen"] == ["292"]
    assert first["decider"] == "seat1"
    assert first["turn"] == 5 and first["phase"] == "main1" and first["game"] == "match-0001:1"
    board = solver.load_board(first["board"])
    assert board.variant is solver.Variant.DUEL
    bears = next(p for p in board.permanents if p.id == "292")
    assert (bears.power, bears.toughness) == (2, 2)  # Arena's 3/3 includes the +1/+1 counter (122.1a)
    assert dict(next(p for p in board.players if p.id == "seat2").counters) == {"poison": 8}


def test_the_imported_decision_analyses_as_a_missed_poison() -> None:
    records, _ = _records(ARENA_NEW)
    result = analyze_record(parse_record(records[0]))
    assert "seat2" in result.best["chosen"]
    assert "also proliferate seat2 (poison 8 -> 9)" in result.comment
    assert result.grade is not Grade.BEST


def test_both_layouts_give_the_same_first_record_apart_from_provenance() -> None:
    new, _ = _records(ARENA_NEW)
    old, _ = _records(ARENA_2020)
    strip = ("source", "meta")
    assert {k: v for k, v in new[0].items() if k not in strip} == {k: v for k, v in old[0].items() if k not in strip}
    assert new[0]["meta"]["layout"] == "persistentAnnotations" and old[0]["meta"]["layout"] == "annotations"


def test_the_decider_is_the_controller_of_the_resolving_ability() -> None:
    records, stats = _records(ARENA_NEW, TEXTS)
    assert len(records) == 2  # the +1/+1 onto a counterless creature and combat poison are not proliferates
    second = records[1]
    assert second["decider"] == "seat2"
    assert second["chosen"] == ["seat1", "310"]
    assert second["candidates"] == ["seat1", "seat2", "292", "310"]  # 305 died earlier, its counters with it
    assert stats.resolutions == 3


def test_a_compound_effect_takes_candidates_from_just_before_the_proliferate_part() -> None:
    records, _ = _records(ARENA_2020)
    assert len(records) == 2  # the queued copy of a state is not counted twice
    compound = records[1]
    assert compound["chosen"] == ["seat2", "310"]
    assert compound["candidates"] == ["seat2", "292", "305", "310"]
    assert compound["decider"] == "seat1"  # the ability was never described: the active player
    assert compound["board"]["permanents"][2]["counters"] == {"-1/-1": 1}


def test_what_is_skipped_is_counted_with_its_first_line() -> None:
    _, stats = _records(ARENA_NEW)
    assert stats.first_line["skipped line that is not valid JSON"] == 12
    assert stats.games == 1 and stats.records == 1  # the opponent's proliferate needs the card text


def test_client_messages_are_expected_and_not_warnings() -> None:
    _, stats = _records(ARENA_NEW)
    assert stats.client_messages == 1  # the pretty-printed block of lines 8-11
    assert not any("client message" in what for what in stats.warnings)
    assert stats.failure() is None


def test_every_imported_record_is_valid() -> None:
    for path in (ARENA_NEW, ARENA_2020):
        for rec in _records(path)[0]:
            resolve(parse_record(rec))


# ---------------------------------------------------------------------------- what counts as a proliferate (701.34)
def test_counters_going_up_without_a_proliferate_shown_are_no_decision() -> None:
    """Issue 24, tabi-cat-room.log's shape: two triggers of one ability each give seat 2 two poison (0 -> 2 -> 4).

    The second looks like a proliferate of seat 2 (it had poison, gained poison), but the
    log shows none (701.34a: proliferate is a choice the game asks for), so nothing is imported.
    """
    records, stats = _records(ARENA_POISON_TRIGGERS)
    assert records == []
    assert stats.resolutions == 2
    (what,) = [w for w in stats.warnings if "shows no proliferate" in w]
    assert stats.first_line[what] == 5  # the second trigger


def test_a_proliferate_shown_by_its_selection_request_is_a_decision() -> None:
    records, stats = _records(ARENA_SHOWN)
    assert [r["chosen"] for r in records] == [["seat2"], []]
    first = records[0]
    assert first["candidates"] == ["seat2", "292"] and first["meta"]["grpid"] == 90010
    assert first["source"].endswith(":3")  # the line of its ResolutionStart
    # the "choose a counter" request (minSel 1) in between adds a +1/+1 the way a proliferate would: not one
    assert stats.first_line[next(w for w in stats.warnings if "shows no proliferate" in w)] == 9


def test_a_proliferate_answered_with_nothing_is_graded() -> None:
    """The request shows the decision even when no counter moved: seat 2 at 9 poison was not chosen (704.5c)."""
    records, _ = _records(ARENA_SHOWN)
    empty = records[1]
    assert empty["chosen"] == [] and empty["candidates"] == ["seat2", "292"]
    result = analyze_record(parse_record(empty))
    assert "seat2" in result.best["chosen"] and result.grade is Grade.BLUNDER


def test_the_ability_text_shows_a_proliferate_the_log_has_no_request_for() -> None:
    """Seat 1's log never holds seat 2's request; the card database's text of the ability tells it."""
    without, _ = _records(ARENA_NEW)
    with_text, _ = _records(ARENA_NEW, TEXTS)
    assert [r["decider"] for r in without] == ["seat1"]
    assert [r["decider"] for r in with_text] == ["seat1", "seat2"]
    assert _records(ARENA_POISON_TRIGGERS, {140044: "Its controller gets two poison counters."})[0] == []


def test_only_an_any_number_choice_of_entities_with_counters_is_the_proliferate_request() -> None:
    holding = {2: {3: 8}, 292: {1: 1}}
    assert is_proliferate_request({"minSel": 0, "maxSel": 2, "ids": [2, 292], "idType": "IdType_InstanceId"}, holding)
    assert not is_proliferate_request({"minSel": 1, "maxSel": 1, "ids": [292]}, holding)  # choose one
    assert not is_proliferate_request({"minSel": 0, "ids": [2, 400]}, holding)  # 400 has no counters
    assert not is_proliferate_request({"minSel": 0, "ids": [1, 2], "idType": "IdType_PromptParameterIndex"}, holding)
    assert says_proliferate("Whenever you attack, proliferate.") and not says_proliferate("Put a +1/+1 counter")


def test_counter_types_map_to_kinds_and_unknown_ones_are_kept() -> None:
    assert [counter_kind(n) for n in (1, 2, 3, 7, 108)] == ["+1/+1", "-1/-1", "poison", "loyalty", "lore"]
    assert counter_kind(159) == "arena:159"


def test_detection_needs_every_kind_an_entity_had_and_nothing_new() -> None:
    before = {292: {1: 1}, 305: {2: 1, 5: 2}, 2: {3: 8}}
    assert detect_proliferate(before, [(292, 1, 1)]) == (0, [292])
    assert detect_proliferate(before, [(305, 2, 1)]) is None  # its time counters were not added
    assert detect_proliferate(before, [(305, 2, 1), (305, 5, 1), (2, 3, 1)]) == (0, [305, 2])
    assert detect_proliferate(before, [(292, 1, 2)]) == (0, [292])  # a doubler gives more than one
    assert detect_proliferate(before, [(400, 1, 1)]) is None  # had no counters
    assert detect_proliferate(before, [(292, 2, 1), (292, 1, 1), (292, 2, 1)]) == (
        1,
        [292],
    )  # -1/-1 first, then proliferate


@settings(max_examples=60, deadline=None)
@given(
    st.lists(
        st.one_of(
            st.text(max_size=40),
            st.just("{"),
            st.just("}"),
            st.just('{"greToClientEvent": 5}'),
            st.just(
                '{"greToClientEvent": {"greToClientMessages": [{"type": "GREMessageType_GameStateMessage", '
                '"gameStateMessage": {"type": "GameStateType_Diff", "players": [1], "annotations": '
                '[{"type": ["AnnotationType_CounterAdded"], "details": 3}]}}]}}'
            ),
            st.just(
                '{"greToClientEvent": {"greToClientMessages": [{"type": "GREMessageType_SelectNReq", '
                '"selectNReq": {"ids": "x", "minSel": "0", "sourceId": [1]}}]}}'
            ),
            st.just(
                '{"greToClientEvent": {"greToClientMessages": [{"type": "GREMessageType_GameStateMessage", '
                '"gameStateMessage": {"type": "GameStateType_Full", "players": [{"systemSeatNumber": 1}], '
                '"annotations": [{"type": ["AnnotationType_ResolutionStart"], "affectorId": 9}]}}, '
                '{"type": "GREMessageType_SelectNReq", "selectNReq": {"ids": [1, null], "minSel": 0}}]}}'
            ),
        ),
        max_size=12,
    )
)
def test_garbage_never_crashes_the_importer(lines: list[str]) -> None:
    import tempfile

    with tempfile.NamedTemporaryFile("w", suffix=".log", delete=False, encoding="utf-8") as handle:
        handle.write("\n".join(lines))
    records = list(import_log(handle.name, ImportStats()))
    Path(handle.name).unlink()
    assert all(isinstance(r, dict) for _, r in records)


def test_a_truncated_gzip_is_a_counted_warning_not_a_crash(tmp_path: Path) -> None:
    cut = tmp_path / "cut.log.gz"
    cut.write_bytes(ARENA_NEW_GZ.read_bytes()[:-40])
    stats = ImportStats()
    list(import_log(cut, stats))
    assert stats.unreadable is not None and stats.unreadable.startswith("cannot read further after line")
    assert stats.failure() == stats.unreadable


def test_random_bytes_are_not_an_arena_log(tmp_path: Path) -> None:
    noise = tmp_path / "noise.log"
    noise.write_bytes(random.Random(3).randbytes(5000))
    stats = ImportStats()
    assert list(import_log(noise, stats)) == []
    assert stats.messages == 0 and stats.lines > 0
    failure = stats.failure()
    assert failure is not None and failure.startswith("no MTG Arena game state")


def test_records_are_json_serialisable() -> None:
    records, _ = _records(ARENA_NEW)
    assert json.loads(json.dumps(records)) == records
