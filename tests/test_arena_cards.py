"""Card names from a fixture Arena card database built in tmp_path (same tables and columns as the client's)."""

from __future__ import annotations

import json
import os
import sqlite3
import subprocess
import sys
from pathlib import Path
from typing import Any

import pytest
from analysis_helpers import ARENA_NEW, ROOT, creature, duel, record

from solver.analysis.cards import (
    CardDatabase,
    CardDatabaseError,
    default_locations,
    find_card_database,
    name_items,
    name_record,
)

#: grpId -> (name, type, subtype) as the client stores them (Cards -> Localizations_enUS by LocId).
CARDS = {
    75460: ("Grizzly Bears", "Creature", "Bear"),
    83345: ("Atraxa, Grand Unifier", "Legendary Creature", "Phyrexian Angel"),
    70136: ("Everflowing Chalice", "Artifact", ""),
}


def make_database(
    path: Path, cards: dict[int, tuple[str, str, str]] = CARDS, abilities: dict[int, str] | None = None
) -> Path:
    """A small ``Raw_CardDatabase_*.mtga``: the columns the client has that we read, plus a few we do not."""
    db = sqlite3.connect(path)
    db.execute("CREATE TABLE Abilities (Id INTEGER PRIMARY KEY, TextId INTEGER, BaseId INTEGER, Category INTEGER)")
    db.execute(
        "CREATE TABLE Cards (GrpId INTEGER PRIMARY KEY, ArtId INTEGER, TitleId INTEGER, AltTitleId INTEGER, "
        "TypeTextId INTEGER, SubtypeTextId INTEGER, ExpansionCode TEXT, Power TEXT, Toughness TEXT, Types TEXT, "
        "Subtypes TEXT, IsToken BOOLEAN)"
    )
    db.execute("CREATE TABLE Localizations_enUS (LocId INTEGER, Formatted INTEGER, Loc TEXT)")
    loc = 1000
    for grp, (name, types, subtypes) in cards.items():
        ids = []
        for text in (name, types, subtypes):
            if not text:
                ids.append(0)
                continue
            loc += 1
            ids.append(loc)
            # The client keeps several Formatted variants of a text; the raw one (0) is read first.
            db.execute("INSERT INTO Localizations_enUS VALUES (?, 1, ?)", (loc, f"<i>{text}</i>"))
            db.execute("INSERT INTO Localizations_enUS VALUES (?, 0, ?)", (loc, text))
        db.execute(
            "INSERT INTO Cards VALUES (?, 1, ?, 0, ?, ?, 'ONE', '2', '2', '2', '', 0)", (grp, ids[0], ids[1], ids[2])
        )
    for ability_id, text in (abilities or {}).items():
        loc += 1
        db.execute("INSERT INTO Localizations_enUS VALUES (?, 0, ?)", (loc, text))
        db.execute("INSERT INTO Abilities VALUES (?, ?, 0, 1)", (ability_id, loc))
    db.commit()
    db.close()
    return path


def arena_record() -> dict[str, Any]:
    bears = creature("292", "seat1", {"+1/+1": 1}) | {"name": "grpId 75460"}
    atraxa = creature("300", "seat1", {"+1/+1": 2}, 7, 7) | {"name": "grpId 83345"}
    unknown = creature("301", "seat2", {"-1/-1": 1}) | {"name": "grpId 1"}
    board = duel("alice", {}, {"poison": 3}, [bears, atraxa, unknown])
    board["players"][0]["id"], board["players"][1]["id"], board["proliferator"] = "seat1", "seat2", "seat1"
    return record(board, ["292"], meta={"grpid": 83345})


def test_names_and_type_lines_come_from_the_database(tmp_path: Path) -> None:
    with CardDatabase(make_database(tmp_path / "Raw_CardDatabase_abc.mtga")) as cards:
        bears = cards.card(75460)
        atraxa = cards.card(83345)
        chalice = cards.card(70136)
        assert bears is not None and (bears.name, bears.type_line) == ("Grizzly Bears", "Creature — Bear")
        assert atraxa is not None and atraxa.type_line == "Legendary Creature — Phyrexian Angel"
        assert chalice is not None and chalice.type_line == "Artifact"
        assert cards.card(1) is None


def test_a_file_that_is_not_a_card_database_says_what_is_missing(tmp_path: Path) -> None:
    other = tmp_path / "other.mtga"
    db = sqlite3.connect(other)
    db.execute("CREATE TABLE Cards (GrpId INTEGER, TitleId INTEGER)")
    db.close()
    with pytest.raises(CardDatabaseError, match="Localizations_enUS"):
        CardDatabase(other)
    text = tmp_path / "text.mtga"
    text.write_text("not sqlite at all " * 100)
    with pytest.raises(CardDatabaseError, match="not an SQLite card database"):
        CardDatabase(text)


def test_name_record_renames_grpid_permanents_and_keeps_the_rest(tmp_path: Path) -> None:
    with CardDatabase(make_database(tmp_path / "Raw_CardDatabase_abc.mtga")) as cards:
        original = arena_record()
        named = name_record(original, cards)
    names = {p["id"]: p["name"] for p in named["board"]["permanents"]}
    assert names == {"292": "Grizzly Bears", "300": "Atraxa, Grand Unifier", "301": "grpId 1"}
    assert named["meta"]["grpid"] == 83345
    assert named["meta"]["cards"]["300"] == {
        "grpId": 83345,
        "name": "Atraxa, Grand Unifier",
        "type_line": "Legendary Creature — Phyrexian Angel",
    }
    assert original["board"]["permanents"][0]["name"] == "grpId 75460"  # the input is not changed


def test_name_items_passes_lines_it_cannot_read_through_untouched(tmp_path: Path) -> None:
    with CardDatabase(make_database(tmp_path / "Raw_CardDatabase_abc.mtga")) as cards:
        line = json.dumps(arena_record())
        items = [("f", 1, "{not json grpId 5"), ("f", 2, line), ("f", 3, '"grpId 5"'), ("f", 4, "{}")]
        out = list(name_items(items, cards))
    assert out[0] == items[0] and out[2] == items[2] and out[3] == items[3]
    payload = out[1][2]
    assert isinstance(payload, dict) and payload["board"]["permanents"][0]["name"] == "Grizzly Bears"


def test_the_usual_install_folders_are_searched_newest_first(tmp_path: Path) -> None:
    places = default_locations(home=tmp_path, environ={"ProgramFiles": "C:/Program Files"})
    texts = [p.as_posix() for p in places]
    assert "C:/Program Files/Wizards of the Coast/MTGA/MTGA_Data/Downloads/Raw" in texts
    assert f"{tmp_path.as_posix()}/Library/Application Support/com.wizards.mtga/Downloads/Raw" in texts
    empty, raw = tmp_path / "empty", tmp_path / "Raw"
    empty.mkdir()
    raw.mkdir()
    old = make_database(raw / "Raw_CardDatabase_old.mtga")
    new = make_database(raw / "Raw_CardDatabase_new.mtga")
    os.utime(old, (1, 1))
    assert find_card_database([tmp_path / "missing", empty, raw]) == new
    assert find_card_database([empty]) is None


def _proliferate(tmp_path: Path, *args: str, home: Path | None = None) -> subprocess.CompletedProcess[str]:
    """The command in a child process whose HOME holds no installed Arena client (unless ``home`` has one)."""
    env = dict(os.environ, HOME=str(home or tmp_path / "nohome"))
    return subprocess.run(
        [sys.executable, "-m", "solver", *args],
        capture_output=True,
        text=True,
        cwd=ROOT,
        env=env,
        timeout=120,
        check=False,
    )


def _analyze(tmp_path: Path, *args: str, home: Path | None = None) -> subprocess.CompletedProcess[str]:
    records = tmp_path / "game.jsonl"
    records.write_text(json.dumps(arena_record()) + "\n")
    return _proliferate(tmp_path, "analyze", str(records), "--workers", "1", *args, home=home)


def test_analyze_cards_puts_names_on_the_report(tmp_path: Path) -> None:
    db = make_database(tmp_path / "Raw_CardDatabase_abc.mtga")
    done = _analyze(tmp_path, "--cards", str(db), "--report", str(tmp_path / "out"))
    assert done.returncode == 0, done.stderr
    page = (tmp_path / "out" / "game-001.html").read_text()
    assert "Grizzly Bears" in page and "Legendary Creature — Phyrexian Angel" in page
    assert "grpId 1" in page  # not in the database: the id stays


def test_the_installed_database_is_found_without_the_option(tmp_path: Path) -> None:
    home = tmp_path / "home"
    raw = home / "Library" / "Application Support" / "com.wizards.mtga" / "Downloads" / "Raw"
    raw.mkdir(parents=True)
    make_database(raw / "Raw_CardDatabase_f00.mtga")
    done = _analyze(tmp_path, "--report", str(tmp_path / "out"), home=home)
    assert done.returncode == 0, done.stderr
    assert "Grizzly Bears" in (tmp_path / "out" / "game-001.html").read_text()


def test_a_bad_cards_path_exits_2_naming_the_option(tmp_path: Path) -> None:
    done = _analyze(tmp_path, "--cards", str(tmp_path / "nope.mtga"), "--json")
    assert done.returncode == 2
    assert "--cards" in done.stderr and "no such file" in done.stderr and "Traceback" not in done.stderr
    assert done.stdout == ""


def test_an_arena_log_analysed_with_cards_shows_card_names(tmp_path: Path) -> None:
    db = make_database(
        tmp_path / "Raw_CardDatabase_abc.mtga",
        {
            1001: ("Grizzly Bears", "Creature", "Bear"),
            1002: ("Tamiyo, Field Researcher", "Legendary Planeswalker", "Tamiyo"),
        },
        abilities={90003: "Proliferate."},  # the opponent's proliferate, shown by its text
    )
    out = tmp_path / "out"
    args = ["analyze", "--from", "arena", str(ARENA_NEW), "--cards", str(db), "--report", str(out), "--workers", "1"]
    done = subprocess.run(
        [sys.executable, "-m", "solver", *args],
        capture_output=True,
        text=True,
        cwd=ROOT,
        timeout=120,
        check=False,
    )
    assert done.returncode == 0, done.stderr
    page = (out / "game-001.html").read_text(encoding="utf-8")
    assert "Grizzly Bears (292)" in page  # in the chosen/best lines
    assert "Legendary Planeswalker — Tamiyo" in page  # the type line on the drawn card
    assert "grpId 1003" in page  # a card the database lacks keeps its id


def _import(tmp_path: Path, *args: str) -> subprocess.CompletedProcess[str]:
    return _proliferate(tmp_path, "import-arena", *args)


def test_ability_text_comes_from_the_abilities_table(tmp_path: Path) -> None:
    db = make_database(tmp_path / "Raw_CardDatabase_abc.mtga", abilities={90003: "Proliferate."})
    with CardDatabase(db) as cards:
        assert cards.ability_text(90003) == "Proliferate."
        assert cards.ability_text(5) is None


def test_import_arena_cards_shows_the_opponents_proliferate_by_its_text(tmp_path: Path) -> None:
    """Seat 1's log holds no request for seat 2's proliferate: the ability's text (701.34) shows it."""
    db = make_database(tmp_path / "Raw_CardDatabase_abc.mtga", abilities={90003: "Proliferate."})
    without = _import(tmp_path, str(ARENA_NEW))
    with_cards = _import(tmp_path, str(ARENA_NEW), "--cards", str(db))
    assert without.returncode == 0 and with_cards.returncode == 0, with_cards.stderr
    deciders = [[json.loads(line)["decider"] for line in done.stdout.splitlines()] for done in (without, with_cards)]
    assert deciders == [["seat1"], ["seat1", "seat2"]]
    bad = _import(tmp_path, str(ARENA_NEW), "--cards", str(tmp_path / "nope.mtga"))
    assert bad.returncode == 2 and "--cards" in bad.stderr and "Traceback" not in bad.stderr
