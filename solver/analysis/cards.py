"""Card names from the MTG Arena client's own card database, so imported decisions read as cards.

Arena logs name objects by card id (``grpId``), and the importer writes ``name: "grpId N"``.
The client keeps every card in an SQLite file, ``Raw_CardDatabase_<hash>.mtga``, under its
install's ``Downloads/Raw`` folder: table ``Cards`` (``GrpId``, ``TitleId`` -> the name,
``TypeTextId`` and ``SubtypeTextId`` -> the two halves of the type line) and table
``Localizations_enUS`` (``LocId``, ``Formatted``, ``Loc``; several ``Formatted`` variants of
one text, the lowest is used).  Nothing is fetched from the network: without the file,
names stay ``grpId N``.

:func:`find_card_database` looks in the usual install locations on Windows (Wizards
installer, Epic Games, Steam) and macOS; :func:`name_record` rewrites one game record.
"""

from __future__ import annotations

import json
import os
import re
import sqlite3
from collections.abc import Iterable, Iterator, Mapping, Sequence
from dataclasses import dataclass
from pathlib import Path
from typing import Any

__all__ = [
    "Card",
    "CardDatabase",
    "CardDatabaseError",
    "default_locations",
    "find_card_database",
    "name_items",
    "name_record",
]

GRPID_NAME = re.compile(r"^grpId (\d+)$")
DATABASE_GLOB = "Raw_CardDatabase_*.mtga"


class CardDatabaseError(ValueError):
    """A file that is not a readable Arena card database; the message says which part is missing."""


@dataclass(frozen=True)
class Card:
    grp_id: int
    name: str
    type_line: str


class CardDatabase:
    """Read-only lookups in one ``Raw_CardDatabase_*.mtga``; each card is read once and remembered."""

    def __init__(self, path: str | os.PathLike[str]) -> None:
        self.path = Path(path)
        try:
            # Opened read-only and immutable: the client may hold it, and we must never change it.
            self.connection = sqlite3.connect(f"{self.path.resolve().as_uri()}?mode=ro&immutable=1", uri=True)
            tables = {row[0] for row in self.connection.execute("SELECT name FROM sqlite_master WHERE type='table'")}
        except sqlite3.Error as exc:
            raise CardDatabaseError(f"{self.path}: not an SQLite card database ({exc})") from None
        missing = {"Cards", "Localizations_enUS"} - tables
        if missing:
            self.connection.close()
            raise CardDatabaseError(f"{self.path}: not an Arena card database (no table {', '.join(sorted(missing))})")
        columns = {row[1] for row in self.connection.execute("PRAGMA table_info(Cards)")}
        if not {"GrpId", "TitleId"} <= columns:
            self.connection.close()
            raise CardDatabaseError(f"{self.path}: Cards has no GrpId/TitleId columns")
        self._type_columns = [c for c in ("TypeTextId", "SubtypeTextId") if c in columns]
        self._cache: dict[int, Card | None] = {}
        ability_columns = {row[1] for row in self.connection.execute("PRAGMA table_info(Abilities)")}
        self._has_abilities = "Abilities" in tables and {"Id", "TextId"} <= ability_columns
        self._ability_cache: dict[int, str | None] = {}

    def close(self) -> None:
        self.connection.close()

    def __enter__(self) -> CardDatabase:
        return self

    def __exit__(self, *exc: object) -> None:
        self.close()

    def _text(self, loc_id: int | None) -> str:
        if not loc_id:
            return ""
        row = self.connection.execute(
            "SELECT Loc FROM Localizations_enUS WHERE LocId = ? ORDER BY Formatted LIMIT 1", (loc_id,)
        ).fetchone()
        return str(row[0]) if row and row[0] is not None else ""

    def card(self, grp_id: int) -> Card | None:
        """The card with this ``grpId``, or None when the database does not have it."""
        if grp_id in self._cache:
            return self._cache[grp_id]
        selected = ", ".join(["TitleId", *self._type_columns])
        try:
            row = self.connection.execute(f"SELECT {selected} FROM Cards WHERE GrpId = ?", (grp_id,)).fetchone()
        except sqlite3.Error:
            row = None
        card = None
        if row is not None:
            name = self._text(row[0])
            types, subtypes = (self._text(v) for v in (*row[1:], None, None)[:2])
            type_line = f"{types} — {subtypes}" if types and subtypes else types or subtypes
            card = Card(grp_id, name, type_line) if name else None
        self._cache[grp_id] = card
        return card

    def ability_text(self, grp_id: int) -> str | None:
        """The rules text of the ability with this ``grpid`` (table ``Abilities``: ``Id``, ``TextId``), else None.

        The importer asks it whether a resolving ability proliferates (docs/analysis.md).
        """
        if not self._has_abilities:
            return None
        if grp_id not in self._ability_cache:
            try:
                row = self.connection.execute("SELECT TextId FROM Abilities WHERE Id = ?", (grp_id,)).fetchone()
            except sqlite3.Error:
                row = None
            text = self._text(row[0]) if row is not None and isinstance(row[0], int) else ""
            self._ability_cache[grp_id] = text or None
        return self._ability_cache[grp_id]


def default_locations(home: Path | None = None, environ: Mapping[str, str] | None = None) -> list[Path]:
    """``Downloads/Raw`` folders of the usual Arena installs on Windows and macOS, in the order tried."""
    home = home or Path.home()
    env = os.environ if environ is None else environ
    roots: list[Path] = []
    for var, default in (("ProgramFiles", "C:/Program Files"), ("ProgramFiles(x86)", "C:/Program Files (x86)")):
        base = Path(env.get(var, default))
        roots += [
            base / "Wizards of the Coast" / "MTGA" / "MTGA_Data",
            base / "Epic Games" / "MagicTheGathering" / "MTGA_Data",
            base / "Steam" / "steamapps" / "common" / "MTGA" / "MTGA_Data",
        ]
    roots += [
        home / "Library" / "Application Support" / "com.wizards.mtga",
        Path("/Applications/MTGA.app/Contents/Resources/Data"),
    ]
    return [root / "Downloads" / "Raw" for root in roots]


def find_card_database(folders: Iterable[Path] | None = None) -> Path | None:
    """The newest ``Raw_CardDatabase_*.mtga`` in the first install folder that has one, else None."""
    for folder in default_locations() if folders is None else folders:
        try:
            found = sorted(folder.glob(DATABASE_GLOB), key=lambda p: p.stat().st_mtime, reverse=True)
        except OSError:
            continue
        if found:
            return found[0]
    return None


def name_record(record: Mapping[str, Any], cards: CardDatabase) -> dict[str, Any]:
    """``record`` with ``name: "grpId N"`` permanents renamed from the database, their type lines in ``meta.cards``.

    Anything that does not look like a record is returned unchanged (the record reader
    reports it); a card missing from the database keeps its ``grpId N`` name.
    """
    board = record.get("board")
    permanents = board.get("permanents") if isinstance(board, Mapping) else None
    if not isinstance(permanents, list):
        return dict(record)
    named: dict[str, dict[str, Any]] = {}
    new_permanents: list[Any] = []
    for perm in permanents:
        match = GRPID_NAME.match(perm.get("name", "")) if isinstance(perm, Mapping) else None
        card = cards.card(int(match.group(1))) if match else None
        if card is None or not isinstance(perm, Mapping):
            new_permanents.append(perm)
            continue
        new_permanents.append({**perm, "name": card.name})
        named[str(perm.get("id"))] = {"grpId": card.grp_id, "name": card.name, "type_line": card.type_line}
    if not named:
        return dict(record)
    meta = record.get("meta")
    meta = dict(meta) if isinstance(meta, Mapping) else {}
    known = meta.get("cards")
    meta["cards"] = {**(known if isinstance(known, Mapping) else {}), **named}
    assert isinstance(board, Mapping)
    return {**record, "board": {**board, "permanents": new_permanents}, "meta": meta}


def name_items(
    items: Iterable[tuple[str, int, str | Mapping[str, Any]] | Any], cards: CardDatabase
) -> Iterator[tuple[str, int, str | Mapping[str, Any]] | Any]:
    """Analysis input items with card names filled in; lines that are not JSON objects pass through untouched."""
    for item in items:
        if not isinstance(item, tuple) or len(item) != 3:
            yield item
            continue
        source, line, payload = item
        if isinstance(payload, str):
            if "grpId " not in payload:
                yield item
                continue
            try:
                parsed = json.loads(payload)
            except ValueError:
                yield item
                continue
            if not isinstance(parsed, dict):
                yield item
                continue
            payload = parsed
        yield source, line, name_record(payload, cards) if isinstance(payload, Mapping) else payload


def open_cards(path: str | None, *, search: Sequence[Path] | None = None) -> CardDatabase | None:
    """``--cards PATH`` if given (errors raise :class:`CardDatabaseError`), else the default install's, else None."""
    if path:
        if not Path(path).is_file():
            raise CardDatabaseError(f"{path}: no such file")
        return CardDatabase(path)
    found = find_card_database(search)
    if found is None:
        return None
    try:
        return CardDatabase(found)
    except CardDatabaseError:
        return None
