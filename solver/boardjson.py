"""Board JSON, format version 1: the only way boards enter and leave the library as data.

The format is defined once, by the Structs of :mod:`solver.formats`: msgspec decodes and
validates the JSON text into them in C while parsing.  This module adds what a type cannot
state, once per board over the decoded Structs (ids unique across players and permanents, a
controller or protector names a player, Two-Headed Giant teams, card types and names, counter
kinds, the limits of ``docs/limits.md`` that need the whole board), building the rows that
:func:`solver.board.assemble` turns into a :class:`~solver.board.Board`.

The loader is strict (unknown fields are errors) because a misspelt field silently falling
back to its default would give a confidently wrong decision.  It reports every problem, each
at the JSON path of the offending value, so a user fixes a board in one edit rather than one
error at a time: msgspec stops at the first, so on the error path the parsed document is
walked against the same Structs (:func:`solver.formats.type_problems`) and the checks above
run over the parts that decoded.  The format is documented in ``docs/board-format.md`` and
the generated ``solver/schema/board-v1.schema.json``.
"""

from __future__ import annotations

import gc
import json
import os
import re
from collections.abc import Iterable, Mapping, Sequence
from types import MappingProxyType
from typing import Any, NamedTuple, TypeAlias, get_type_hints

import msgspec
import numpy as np
from msgspec import UNSET
from msgspec.structs import astuple

from . import effects, limits
from .board import (
    CARD_TYPE_NAMES,
    FORMAT_VERSION,
    T_CHAPTERS,
    T_DAMAGE,
    T_INDESTRUCTIBLE,
    T_NO_COUNTERS,
    T_PHASED_OUT,
    T_PROTECTOR,
    Board,
    CardType,
    Effect,
    FloatArray,
    IntArray,
    Objects,
    TeamPoison,
    Threshold,
    Variant,
    assemble_objects,
    board_table,
    type_bits,
)
from .cards import CARDS, SUPPORTED_CARDS, canonical_card
from .errors import BoardError, Problem
from .files import TooLarge, read_bounded
from .formats import (
    BOARD_DECODER,
    NOT_TEXT,
    BoardStruct,
    EffectStruct,
    PermanentStruct,
    PlayerStruct,
    is_text,
    join,
    keyed,
    type_problems,
)
from .kernels.checks import magnitude_rows_kernel
from .kinds import KindError, known_kind, same_kind_message

__all__ = ["FORMAT_VERSION", "BoardLike", "as_board", "dump_board", "load_board", "load_struct"]


#: Card types by lower-case spelling; "tribal" is the pre-2024 name of kindred (205.2a).
_TYPES: dict[str, str] = {name: name for name in CARD_TYPE_NAMES} | {"tribal": "kindred"}
_TYPE_LIST = ", ".join(sorted(CARD_TYPE_NAMES))
_VARIANTS = {v.value: v for v in Variant}
_TEAM_POISON = {t.value: t for t in TeamPoison}
#: The effect fields that are card parameters (solver.cards.Parameter), in the Struct's order.
_PARAMETERS = tuple(sorted({p.name for card in CARDS.values() for p in card.parameters}))
#: Each card's parameters by name.
_DECLARED = {name: {p.name: p for p in card.parameters} for name, card in CARDS.items()}
#: Per-process caches of what a spelling means (pure functions of the text; cleared past _CACHE_SIZE entries).
_KINDS: dict[str, str | None] = {}
_CANONICAL: set[str] = set()  # keys that are their own canonical kind
_CARD_NAMES: dict[str, str | None] = {}
_TYPE_CACHE: dict[tuple[str, ...], tuple[tuple[str, ...], int]] = {}  # listed -> canonical names, CardType bits
_CACHE_SIZE = 100_000
#: The path of a permanent's problem: ``permanents[i]`` and what follows.
_PERMANENT_PATH = re.compile(r"permanents\[(\d+)\]")
#: A board in any form the public entry points accept (:func:`as_board`).
BoardLike: TypeAlias = Board | Mapping[str, Any] | str | bytes | os.PathLike[str]

_BOARD = "a Board, a mapping (board JSON), JSON text (str or UTF-8 bytes) or a path to a board file"


def as_board(board: object) -> Board:
    """The board given in any accepted form; BoardError for a bad board, TypeError for anything else.

    The one coercion every public entry point uses (re-exported by :mod:`solver.inputs`).

    >>> as_board({"variant": "duel", "players": [{"id": "me"}, {"id": "you"}], "proliferator": "me"}).n_players
    2
    """
    if isinstance(board, Board | BoardStruct | Mapping | str | bytes | os.PathLike):
        return load_board(board)
    raise TypeError(f"board must be {_BOARD}, not {type(board).__name__}")


def load_board(source: BoardLike | BoardStruct, *, max_bytes: int = limits.MAX_BOARD_BYTES) -> Board:
    """Load a board from a :class:`Board` (returned as it is), decoded Structs, parsed JSON (a mapping), JSON text,
    or a JSON file.

    A ``str`` (or UTF-8 ``bytes``) starting with ``{`` (after whitespace) is JSON text, any
    other ``str``, ``bytes`` or path-like is a file name.  Raises
    :class:`~solver.errors.BoardError` listing every problem found; no other exception
    escapes for bad input.  A file is read only up to ``max_bytes`` (docs/limits.md): a
    larger one is a BoardError, having read no more than that.
    """
    if isinstance(source, Board):
        return source
    with gc_paused():
        if isinstance(source, BoardStruct):
            return load_struct(source)
        if isinstance(source, Mapping):
            try:
                struct = msgspec.convert(source, BoardStruct)
            except (msgspec.ValidationError, UnicodeEncodeError) as exc:  # the latter: a lone surrogate
                raise _refusal(source, exc) from None
            return load_struct(struct, check_text=True)
        text = _text(source, max_bytes)
        try:
            struct = BOARD_DECODER.decode(text)
        except (msgspec.ValidationError, msgspec.DecodeError, UnicodeEncodeError) as exc:
            if isinstance(exc, msgspec.ValidationError) and "length" in str(exc):
                _refuse_sizes(text)  # a list past its limit: refused without building the parsed document
            raise _refusal(_parse(text), exc) from None
        board = load_struct(struct)
        del struct  # freed before the collector resumes, which would otherwise walk its containers once
        return board


def load_struct(struct: BoardStruct, check_text: bool = False) -> Board:
    """The board of decoded Structs, after the checks a type cannot state; BoardError lists every problem.

    ``check_text``: also refuse lone surrogates in free text (JSON text decoded by msgspec
    cannot hold one; a mapping can).
    """
    checker = _Checker(len(struct.players) + len(struct.permanents), check_text)
    checker.sizes(struct.variant, len(struct.players), len(struct.effects))
    checker.team_poison = _TEAM_POISON[struct.team_poison]
    return checker.board(
        struct.variant, struct.proliferator, struct.proliferates, struct.players, struct.permanents, struct.effects
    )


def _card(name: str) -> str | None:
    """:func:`solver.cards.canonical_card` of a name (cached for the process: boards repeat few cards)."""
    try:
        return _CARD_NAMES[name]
    except KeyError:
        pass
    if len(_CARD_NAMES) > _CACHE_SIZE:
        _CARD_NAMES.clear()
    _CARD_NAMES[name] = card = canonical_card(name)
    return card


def _kind(key: str) -> str | None:
    """The canonical kind of a key, or None (cached for the process: boards repeat few kinds)."""
    try:
        return _KINDS[key]
    except KeyError:
        pass
    try:
        kind: str | None = known_kind(key)
    except KindError:
        kind = None
    if len(_KINDS) > _CACHE_SIZE:
        _KINDS.clear()
        _CANONICAL.clear()
    _KINDS[key] = kind
    if kind == key:
        _CANONICAL.add(key)
    return kind


class gc_paused:
    """Pause the cyclic garbage collector while loading (nested pauses leave it to the outermost).

    Loading allocates millions of small acyclic objects on big boards, and the collections
    that this triggers cost about a third of the load time while freeing nothing.  The
    analysis pauses it around a whole chunk of records for the same reason
    (:func:`solver.analysis.analyze.analyze_chunk`).  A class rather than a generator-based
    context manager: it is entered once per board, and a small board loads in tens of microseconds.
    """

    __slots__ = ("enabled",)

    def __enter__(self) -> None:
        self.enabled = gc.isenabled()
        gc.disable()

    def __exit__(self, *exc: object) -> None:
        if self.enabled:
            gc.enable()


def dump_board(board: BoardLike) -> dict[str, Any]:
    """The board (in any form :func:`as_board` takes) as a JSON-ready dict that :func:`load_board` reads back.

    Optional permanent fields at their defaults are left out so dumps stay readable and
    diffs show only what matters; keys come in a fixed order (see :meth:`Board.to_dict`).
    """
    return as_board(board).to_dict()


# ---------------------------------------------------------------------- parsing


def _text(source: str | bytes | os.PathLike[str], max_bytes: int) -> str | bytes:
    """The JSON text of a source: the text itself, or the file's (read up to ``max_bytes``)."""
    if isinstance(source, str) and source.lstrip().startswith("{"):
        return source
    if isinstance(source, bytes) and source.lstrip().startswith(b"{"):
        return source  # as read from a socket or a pipe: UTF-8
    try:
        name = os.fspath(source)
    except TypeError:
        message = f"a board must be a mapping, JSON text or a file path, not {type(source).__name__}"
        raise BoardError([Problem("", message)]) from None
    try:
        return read_bounded(name, max_bytes, "board file").decode("utf-8")
    except TooLarge as exc:
        raise BoardError([Problem("", f"cannot read board file {str(name)!r}: {exc}")]) from None
    except OSError as exc:
        raise BoardError([Problem("", f"cannot read board file {str(name)!r}: {exc.strerror or exc}")]) from None
    except UnicodeDecodeError as exc:
        raise BoardError([Problem("", f"cannot read board file {str(name)!r}: not UTF-8 ({exc.reason})")]) from None
    except ValueError:  # a NUL byte or a lone surrogate (UnicodeEncodeError): no file can have that name
        raise BoardError([Problem("", f"cannot read board file {str(name)!r}: not a possible file name")]) from None


def _parse(text: str | bytes) -> Any:
    """The error path: the text as plain Python values (the standard library's reading and messages)."""
    try:
        return json.loads(text if isinstance(text, str) else text.decode("utf-8"))
    except json.JSONDecodeError as exc:
        raise BoardError([Problem("", f"not valid JSON: line {exc.lineno} column {exc.colno}: {exc.msg}")]) from None
    except (ValueError, RecursionError) as exc:
        raise BoardError([Problem("", f"not valid JSON: {exc}")]) from None


class _Sizes(msgspec.Struct):
    """The lists whose sizes have limits, each item left undecoded (for refusing a huge board cheaply)."""

    variant: Any = None
    players: list[msgspec.Raw] | Any = ()
    permanents: list[msgspec.Raw] | Any = ()
    effects: list[msgspec.Raw] | Any = ()


_SIZES = msgspec.json.Decoder(_Sizes)


def _refuse_sizes(text: str | bytes) -> None:
    """Raise the size problems of a board's JSON text, if it has any (else return)."""
    try:
        sizes = _SIZES.decode(text)
    except (msgspec.ValidationError, msgspec.DecodeError):
        return
    players, permanents, effects = (
        len(v) if isinstance(v, list) else 0 for v in (sizes.players, sizes.permanents, sizes.effects)
    )
    _Checker(players + permanents, check_text=False).sizes(sizes.variant, players, effects)


def _refusal(data: Any, exc: Exception) -> BoardError:
    """Every problem of a board msgspec refused (at its first problem): the type walk, then the other checks."""
    if not isinstance(data, Mapping):
        return BoardError([Problem("", "must be an object (the board)")])
    players, permanents, effects = (data.get(key) for key in ("players", "permanents", "effects"))
    players = players if isinstance(players, list | tuple) else ()
    permanents = permanents if isinstance(permanents, list | tuple) else ()
    effects = effects if isinstance(effects, list | tuple) else ()
    checker = _Checker(len(players) + len(permanents), check_text=True)
    variant = data.get("variant")
    checker.sizes(variant, len(players), len(effects))
    problems = type_problems(data, BoardStruct)
    checker.incomplete = True
    top = {key: _decoded(data.get(key), key) for key in ("variant", "proliferator", "proliferates", "team_poison")}
    if top["team_poison"] is not None:
        checker.team_poison = TeamPoison(top["team_poison"])
    try:
        checker.board(
            top["variant"],
            top["proliferator"],
            top["proliferates"] if top["proliferates"] is not None else 1,
            [_decoded_item(raw, PlayerStruct) for raw in players],
            [_decoded_item(raw, PermanentStruct) for raw in permanents],
            [_decoded_item(raw, EffectStruct) for raw in effects],
        )
    except BoardError as more:
        problems += [p for p in more.problems if p not in problems]
    if not problems:  # msgspec refused what the walk accepts (it should not happen): say what msgspec said
        problems = [Problem("", f"invalid board: {exc}")]
    return BoardError(problems)


def _decoded(value: Any, key: str) -> Any:
    """One top-level field's value if it is valid, else None."""
    try:
        return None if value is None else msgspec.convert(value, _BOARD_HINTS[key])
    except (msgspec.ValidationError, UnicodeEncodeError):
        return None


_BOARD_HINTS = get_type_hints(BoardStruct, include_extras=True)


def _decoded_item(raw: Any, struct: type) -> Any:
    """A list item as its Struct if it is valid, else the raw item (whose id, if any, is still registered)."""
    try:
        return msgspec.convert(raw, struct)
    except (msgspec.ValidationError, UnicodeEncodeError):
        return raw


class _Head(NamedTuple):
    """A checked player (the fields of :class:`~solver.board.Player`) with where it came from, for the checks
    that need the whole table."""

    id: str
    team: str
    life: int
    counters: Mapping[str, int]
    path: str
    raw: Mapping[str, Any]


#: The counter values of a permanent that overrides none (most), shared: nothing writes to a row's values.
_NO_VALUES: Mapping[str, float] = MappingProxyType({})


class _Checker:
    """One board's checks beyond the types: collects problems, the ids and the counter kinds seen."""

    def __init__(self, n_objects: int, check_text: bool) -> None:
        self.problems: list[Problem] = []
        self.ids: dict[str, str | int] = {}  # id -> path of the player, or index of the permanent, first using it
        self.player_ids: set[str] = set()
        self.kinds: set[str] = set()  # distinct canonical kinds seen, for the kinds and cells limits
        self.n_objects = n_objects
        self.check_text = check_text
        self.incomplete = False  # some items failed their types (the error path): check, never build
        self.team_poison = TeamPoison.SHARED

    def problem(self, path: str, message: str) -> None:
        self.problems.append(Problem(path, message))

    # ------------------------------------------------------------------ limits
    def sizes(self, variant: object, n_players: int, n_effects: int) -> None:
        """Refuse lists past their limits before anything else is checked, each alone."""
        problems: list[Problem] = []
        if n_players > limits.MAX_PLAYERS:
            problems.append(Problem("players", f"{n_players} players; the limit is {limits.MAX_PLAYERS}"))
        elif variant != Variant.TWO_HEADED_GIANT and n_players > limits.MAX_SEATS:
            problems.append(
                Problem("players", f"{n_players} players; the limit is {limits.MAX_SEATS} outside two_headed_giant")
            )
        if self.n_objects > limits.MAX_OBJECTS:
            problems.append(
                Problem("permanents", f"{self.n_objects} players and permanents; the limit is {limits.MAX_OBJECTS}")
            )
        if n_effects > limits.MAX_EFFECTS:
            problems.append(Problem("effects", f"{n_effects} effects; the limit is {limits.MAX_EFFECTS}"))
        if problems:
            raise BoardError(problems)

    # ------------------------------------------------------------------ the board
    def board(
        self,
        variant_name: str | None,
        proliferator: str | None,
        proliferates: int,
        players: Sequence[Any],
        permanents: Sequence[Any],
        effects: Sequence[Any],
    ) -> Board:
        """The board, or BoardError with every problem; items that failed their types are given raw."""
        variant = _VARIANTS.get(variant_name) if variant_name is not None else None
        heads = self.players(players, variant)
        player_rows = {head.id: row for row, head in enumerate(heads)}
        objects = Objects.of_players(heads)
        if self.problems or self.incomplete or self.check_text or not self.permanents(permanents, player_rows, objects):
            objects = Objects.of_players(heads)  # the pass again, checking each id where it is (every problem named)
            self.permanents(permanents, player_rows, objects, exact=True)
        placed = self.effects(effects, permanents)
        self.check_kinds(players, permanents)
        if proliferator is not None:
            proliferator = self.player_ref(proliferator, "proliferator")
        if proliferator is not None:
            self.check_rounds(placed, proliferator, proliferates)
        if self.problems or self.incomplete or variant is None or proliferator is None:
            raise BoardError(self.problems)
        board = assemble_objects(
            variant,
            proliferator,
            [head.id for head in heads],
            [head.team for head in heads],
            [head.life for head in heads],
            objects,
            tuple(e for e, _ in placed),
            proliferates,
            self.team_poison,
        )
        self.check_once_per_turn(board, placed)
        check_magnitude(board)
        return board

    def check_once_per_turn(self, board: Board, placed: list[tuple[Effect, str]]) -> None:
        """Refuse a resolution that would give a "once a turn" kind to its card's controller twice.

        Melira, the Living Cure lets its controller get one poison counter a turn; each of a
        resolution's proliferates adds the same (:func:`solver.effects.gain`), so a second one, which
        gives them nothing, is not modelled.
        """
        if board.rounds == 1:
            return
        for effect, path in placed:
            card = CARDS[effect.card]
            col = board.kind_column(card.once_per_turn) if card.once_per_turn else -1
            if col < 0 or effect.poisoned_this_turn:
                continue
            if board.counts[board.index[effect.controller], col] > 0:
                self.problem(
                    path,
                    f"{effect.card}: {effect.controller!r} can get {card.once_per_turn} counters only once this "
                    f"turn, but this resolution proliferates {board.rounds} times; not modelled",
                )
        if self.problems:
            raise BoardError(self.problems)

    def check_kinds(self, players: Sequence[Any], permanents: Sequence[Any]) -> None:
        """Refuse the first kind past the kinds or the cells limit, at its path (found again only then)."""
        if not self.refusal(len(self.kinds)):
            return
        seen: set[str] = set()
        places: list[tuple[str, Iterable[str]]] = [
            (f"players[{i}].counters", p.counters) for i, p in enumerate(players) if type(p) is PlayerStruct
        ]
        for i, p in enumerate(permanents):
            if type(p) is PermanentStruct:
                places.append((f"permanents[{i}].counters", p.counters))
                places.extend((f"permanents[{i}].thresholds[{j}].kind", [t.kind]) for j, t in enumerate(p.thresholds))
                places.append((f"permanents[{i}].counter_values", p.counter_values))
        for where, keys in places:
            for key in keys:
                kind = self.kind(key)
                if kind is None or kind in seen:
                    continue
                seen.add(kind)
                message = self.refusal(len(seen))
                if message:
                    self.problem(where if where.endswith(".kind") else keyed(where, key), message)
                    return

    def refusal(self, n: int) -> str:
        """Why ``n`` distinct kinds are too many for this board (the kinds or the cells limit), else ""."""
        if n > limits.MAX_KINDS:
            return f"more than {limits.MAX_KINDS} distinct counter kinds on one board (the limit)"
        if n * self.n_objects > limits.MAX_CELLS:
            return (
                f"{self.n_objects} objects x {n} distinct counter kinds is more than {limits.MAX_CELLS:,} cells "
                "(the limit on objects x kinds)"
            )
        return ""

    def check_rounds(self, placed: list[tuple[Effect, str]], proliferator: str, first: int) -> None:
        """Refuse more proliferates per resolution than every solver loops over (the rounds limit)."""
        rounds = first
        for effect, path in placed:
            if effect.controller == proliferator:
                rounds *= CARDS[effect.card].proliferate_factor
                if rounds > limits.MAX_ROUNDS:
                    self.problem(
                        path,
                        f"{effect.card} makes {rounds} proliferates in one resolution; "
                        f"the limit is {limits.MAX_ROUNDS}",
                    )
                    return

    # ------------------------------------------------------------------ players
    def players(self, players: Sequence[Any], variant: Variant | None) -> list[_Head]:
        giant = variant is Variant.TWO_HEADED_GIANT
        default_life = 30 if giant else 20  # 103.4, 810.4
        heads: list[_Head] = []
        for i, p in enumerate(players):
            path = f"players[{i}]"
            if type(p) is not PlayerStruct:
                self.raw_id(p, path, player=True)
                continue
            pid = self.new_id(p.id, path, path)
            team: str | None = None
            if isinstance(p.team, str):
                team = p.team
                if self.check_text and not is_text(team):
                    self.problem(f"{path}.team", NOT_TEXT)
                    team = None
            elif giant:
                self.problem(f"{path}.team", "required in two_headed_giant (810.1)")
            life = default_life if p.life is UNSET else p.life
            counters = p.counters
            if counters.keys() <= _CANONICAL:  # the usual case: every key spelt canonically
                self.kinds.update(counters)
            else:
                counters = self.counters(counters, path)
            if pid is not None:
                self.player_ids.add(pid)
                if team is not None or not giant:
                    heads.append(_Head(pid, team or pid, life, counters, path, p.counters))
        if variant is not None:
            self.check_variant(variant, len(players), heads)
        return heads

    def raw_id(self, raw: Any, path: str, player: bool) -> None:
        """The id of an item that failed its types, registered if it is one, so references to it stand."""
        pid = raw.get("id") if isinstance(raw, Mapping) else None
        if isinstance(pid, str) and pid and is_text(pid) and pid not in self.ids:
            self.ids[pid] = path
            if player:
                self.player_ids.add(pid)

    def check_variant(self, variant: Variant, n_raw: int, heads: list[_Head]) -> None:
        if variant is Variant.DUEL:
            if n_raw != 2:
                self.problem("players", f"a duel has exactly 2 players, not {n_raw}")
            elif len(heads) == 2 and heads[0].team == heads[1].team:
                self.problem(f"{heads[1].path}.team", "the two players of a duel must be on different teams")
            return
        if n_raw < 2:
            self.problem("players", f"{variant.value} needs at least 2 players")
            return
        if variant is not Variant.TWO_HEADED_GIANT:
            return
        teams: dict[str, list[_Head]] = {}
        for head in heads:
            teams.setdefault(head.team, []).append(head)
        if len(teams) < 2 and len(heads) == n_raw:
            self.problem("players", "two_headed_giant needs at least 2 teams (810.1)")
        if len(teams) > limits.MAX_SEATS:
            self.problem("players", f"{len(teams)} teams; the limit is {limits.MAX_SEATS}")
        for team, members in teams.items():
            if len(members) < 2:
                self.problem(
                    f"{members[0].path}.team",
                    f"team {team!r} has one player; a Two-Headed Giant team has at least two (810.1, 810.11)",
                )
            self.check_team_poison(members)

    def check_team_poison(self, members: list[_Head]) -> None:
        """The team's poison is one shared total (810.10), so heads that state it must agree.

        Unless the board counts it per head (``"team_poison": "per_head"``): then each head
        states its own count and the team's total is their sum.
        """
        if self.team_poison is TeamPoison.PER_HEAD:
            return
        first: _Head | None = None
        for head in members:
            count = head.counters.get("poison")
            if count is None:
                continue
            if first is None:
                first = head
            elif count != first.counters["poison"]:
                key = next(k for k in head.raw if self.kind(k) == "poison")
                self.problem(
                    keyed(f"{head.path}.counters", key),
                    f"team poison is shared (810.10): {count} here but {first.counters['poison']} on {first.id!r}"
                    ' (a board that counts poison per head says "team_poison": "per_head")',
                )

    # ------------------------------------------------------------------ permanents
    def permanents(
        self, permanents: Sequence[Any], player_rows: Mapping[str, int], objects: Objects, exact: bool = False
    ) -> bool:
        """Check the permanents, gathering into ``objects`` what the board is built from (one pass; the problems
        recorded, each at its path under ``permanents[i]``); whether they passed.

        ``player_rows``: the checked players' rows.  A permanent's fields are read at once
        (``msgspec.structs.astuple``, in the Struct's order); the rare fields are looked at only where set.
        ``exact``: check and register each id in turn, as every problem's message and order needs; else (the
        Structs of valid JSON text, most boards) the ids are registered together after the pass (at C level)
        and the pass returns False, its problems taken back, at any problem or repeated id: then the caller
        passes again with ``exact``.
        """
        n_problems = len(self.problems)
        ids = self.ids
        players = self.player_ids
        type_cache = _TYPE_CACHE
        canonical = _CANONICAL
        text = self.check_text
        pids, ints, sparse, kinds, cells, names, type_names = (
            objects.ids, objects.ints, objects.sparse, objects.kinds, objects.cells, objects.names, objects.type_names
        )  # fmt: skip
        base = len(player_rows)
        for i, p in enumerate(permanents):
            if type(p) is not PermanentStruct:
                self.raw_id(p, f"permanents[{i}]", player=False)
                continue
            (pid, controller, listed, name, power, toughness, damage, held, keywords, subtypes, chapters, protector,
             phased, no_counters, value, thresholds, counter_values) = astuple(p)  # fmt: skip
            row = base + i
            if exact:
                if pid in ids or (text and not is_text(pid)):
                    self.new_id(pid, f"permanents[{i}]", i)
                else:
                    ids[pid] = i
            controller_row = player_rows.get(controller)
            if controller_row is None:
                controller_row = -1
                if controller not in players:
                    self.player_ref(controller, f"permanents[{i}].controller")
            typed = type_cache.get(listed)  # decoded as a tuple (the Struct's type)
            if typed is None:
                typed = self.parse_types(listed, f"permanents[{i}].types")
            types, bits = typed or ((), 0)
            if power is UNSET:  # absent: 0 in the board's table
                if bits & _CREATURE:
                    self.problem(f"permanents[{i}].power", "required for a creature")
                power = 0
            if toughness is UNSET:
                if bits & _CREATURE:
                    self.problem(f"permanents[{i}].toughness", "required for a creature")
                toughness = 0
            ints += (controller_row, bits, power, toughness)
            if held:
                for kind, count in held.items():
                    col = kinds.get(kind)
                    if col is None:  # a kind new to this board: spelt canonically (the usual case), or not
                        if kind not in canonical:  # the cells again, of the canonical counters (problems reported)
                            while cells and cells[-3] == row:  # this row's cells are the last ones
                                del cells[-3:]
                            for known, number in self.counters(held, f"permanents[{i}]").items():
                                cells += (row, kinds.setdefault(known, len(kinds)), number)
                            break
                        col = kinds[kind] = len(kinds)
                    cells += (row, col, count)
            if keywords:
                keywords = tuple(k.lower() for k in keywords)
                objects.keywords.append((row, keywords))
                if "indestructible" in keywords:
                    sparse += (T_INDESTRUCTIBLE, row, 1)
            if damage:
                sparse += (T_DAMAGE, row, damage)
            if subtypes:
                objects.subtypes.append((row, subtypes))
                if chapters is UNSET and any(s.lower() == "saga" for s in subtypes):
                    self.problem(f"permanents[{i}].chapters", "required for a Saga (714.2d)")
            if chapters is not UNSET:
                sparse += (T_CHAPTERS, row, chapters)
            if protector is not UNSET:
                path = f"permanents[{i}].protector"
                protector_row = player_rows.get(protector)
                if protector_row is None:
                    self.player_ref(protector, path)
                else:
                    sparse += (T_PROTECTOR, row, protector_row)
                if typed is not None and not bits & _BATTLE:
                    self.problem(path, "only a battle has a protector (310.9)")
            if phased:
                sparse += (T_PHASED_OUT, row, 1)
            if no_counters:
                sparse += (T_NO_COUNTERS, row, 1)
            if value is not UNSET:
                objects.values.append((row, value))
            if thresholds or counter_values:
                objects.extras.append(
                    (
                        row,
                        self.thresholds(thresholds, f"permanents[{i}]") if thresholds else (),
                        self.counter_values(counter_values, f"permanents[{i}]") if counter_values else _NO_VALUES,
                    )
                )
            if text:
                self.texts(p, f"permanents[{i}]")
            pids.append(pid)
            names.append(name)
            type_names.append(types)
        self.kinds.update(kinds)
        if exact:
            return len(self.problems) == n_problems
        own: dict[str, str | int] = dict(zip(pids, range(len(pids)), strict=True))
        if len(self.problems) == n_problems and len(own) == len(pids) and own.keys().isdisjoint(ids.keys()):
            own.update(ids)  # the players' few ids into the permanents' (the order of ``ids`` means nothing)
            self.ids = own
            return True
        del self.problems[n_problems:]
        return False

    def texts(self, p: PermanentStruct, path: str) -> None:
        """Refuse lone surrogates in a permanent's free text (only a mapping can hold them)."""
        if not is_text(p.name):
            self.problem(f"{path}.name", NOT_TEXT)
        for key in ("keywords", "subtypes"):
            for j, item in enumerate(getattr(p, key)):
                if not is_text(item):
                    self.problem(f"{path}.{key}[{j}]", NOT_TEXT)
        for j, t in enumerate(p.thresholds):
            if not is_text(t.label):
                self.problem(f"{path}.thresholds[{j}].label", NOT_TEXT)

    def parse_types(self, listed: tuple[str, ...], path: str) -> tuple[tuple[str, ...], int] | None:
        """Card types of a list not seen before (any letter case, 'tribal' for kindred) and their
        :class:`CardType` bits, or None with problems."""
        out: list[str] = []
        ok = True
        for i, item in enumerate(listed):
            card_type = _TYPES.get(item.lower())
            if card_type is None:
                self.problem(f"{path}[{i}]", f"unknown card type {item!r}; expected one of {_TYPE_LIST}")
                ok = False
            elif card_type in out:
                self.problem(f"{path}[{i}]", f"duplicate card type {card_type!r}")
                ok = False
            else:
                out.append(card_type)
        if not ok:
            return None
        if len(_TYPE_CACHE) > _CACHE_SIZE:
            _TYPE_CACHE.clear()
        types = tuple(out)
        _TYPE_CACHE[tuple(listed)] = result = (types, type_bits(types))
        return result

    def thresholds(self, items: Sequence[Any], path: str) -> tuple[Threshold, ...]:
        out: list[Threshold] = []
        for i, t in enumerate(items):
            kind = self.kind_at(t.kind, f"{path}.thresholds[{i}].kind", quoted=False)
            if kind is not None:
                out.append(Threshold(kind, t.at, t.effect, t.label))
        return tuple(out)

    def counter_values(self, values: Mapping[str, float], path: str) -> dict[str, float]:
        cpath = f"{path}.counter_values"
        out: dict[str, float] = {}
        seen: dict[str, str] = {}
        for key, number in values.items():
            kind = self.kind_at(key, cpath)
            if kind is None:
                continue
            if kind in out:
                self.duplicate_kind(keyed(cpath, key), key, seen[kind], kind)
            out[kind] = float(number)
            seen[kind] = key
        return out

    # ------------------------------------------------------------------ effects
    def effects(self, effects: Sequence[Any], permanents: Sequence[Any]) -> list[tuple[Effect, str]]:
        """The effects that pass their checks; ``permanents`` as given to :meth:`permanents` (the valid ones are
        the Structs without a problem: their ids and controllers).

        Which permanent each valid id is, and its controller, is looked up only by an effect naming its source
        (the map is built then: a big board with no such effect never builds it).
        """
        placed: list[tuple[Effect, str]] = []
        controller_of: dict[str, str] | None = None
        for i, e in enumerate(effects):
            path = f"effects[{i}]"
            if not isinstance(e, EffectStruct):
                continue
            card = _card(e.card)  # type: ignore[attr-defined]
            if card is None:
                self.problem(
                    f"{path}.card",
                    f"unknown card {e.card!r}; supported: {'; '.join(SUPPORTED_CARDS)}",  # type: ignore[attr-defined]
                )
            controller = e.controller  # type: ignore[attr-defined]
            if controller not in self.player_ids:
                controller = self.player_ref(controller, f"{path}.controller")
            values = self.parameters(e, card, path) if card is not None else None
            if controller_of is None and e.source is not UNSET:  # type: ignore[attr-defined]
                bad = self.permanents_with_problems()
                controller_of = {
                    p.id: p.controller for i, p in enumerate(permanents) if type(p) is PermanentStruct and i not in bad
                }
            ok, source = self.effect_source(e.source, card, controller, controller_of or {}, path)  # type: ignore[attr-defined]
            if card is not None and controller is not None and values is not None and ok:
                placed.append((Effect(card, controller, **values, source=source), path))
        return placed

    def permanents_with_problems(self) -> set[int]:
        """The indices of the permanents :meth:`permanents` found problems in (each problem's path names its
        permanent), read off the problems rather than tracked for every permanent."""
        return {int(m.group(1)) for problem in self.problems if (m := _PERMANENT_PATH.match(problem.path))}

    def effect_source(
        self, source: Any, card: str | None, controller: str | None, controller_of: Mapping[str, str], path: str
    ) -> tuple[bool, str | None]:
        """Whether the effect's ``source`` is valid (a permanent its controller controls), and the source."""
        if source is UNSET:
            if card is not None and CARDS[card].needs_source:
                self.problem(join(path, "source"), f"required: the id of the {card} permanent (its text names itself)")
                return False, None
            return True, None
        owner = controller_of.get(source)
        spath = join(path, "source")
        if owner is None:
            if source in self.ids and source not in self.player_ids:  # a permanent with problems of its own
                return False, None
            self.problem(spath, f"{source!r} is not a permanent on this board")
            return False, None
        if controller is not None and owner != controller:
            self.problem(spath, f"{source!r} is controlled by {owner!r}, not by the effect's controller {controller!r}")
            return False, None
        return True, source

    def parameters(self, e: Any, card: str, path: str) -> dict[str, int] | None:
        """The card's parameters (only those it declares; absent ones keep their defaults), or None."""
        declared = _DECLARED[card]
        values: dict[str, int] = {}
        ok = True
        for key in _PARAMETERS:
            value = getattr(e, key)
            if value is UNSET:
                continue
            param = declared.get(key)
            if param is None:
                self.problem(join(path, key), f"{card} has no {key}")
                ok = False
            elif not param.low <= value <= param.high:
                self.problem(join(path, key), f"must be an integer from {param.low} to {param.high}")
                ok = False
            else:
                values[key] = value
        return values if ok else None

    # ------------------------------------------------------------------ ids and references
    def new_id(self, pid: str, path: str, where: str | int) -> str | None:
        ipath = f"{path}.id"
        if self.check_text and not is_text(pid):
            self.problem(ipath, NOT_TEXT)
            return None
        first = self.ids.get(pid)
        if first is not None:
            shown = first if isinstance(first, str) else f"permanents[{first}]"
            self.problem(ipath, f"duplicate id {pid!r} (first used at {shown}.id)")
            return None
        self.ids[pid] = where
        return pid

    def player_ref(self, ref: str, path: str) -> str | None:
        if ref in self.player_ids:
            return ref
        if ref in self.ids:
            self.problem(path, f"{ref!r} is a permanent, not a player")
        else:
            self.problem(path, f"{ref!r} is not a player id")
        return None

    # ------------------------------------------------------------------ counters and kinds
    def counters(self, held: Mapping[str, int], path: str) -> dict[str, int]:
        """Counters by canonical kind; each new kind counted, every bad key reported."""
        out: dict[str, int] = {}
        cpath = f"{path}.counters"
        for key, count in held.items():
            kind = self.kind_at(key, cpath)
            if kind is None:
                continue
            if kind in out:
                first = next(k for k in held if k != key and self.kind(k) == kind)
                self.duplicate_kind(keyed(cpath, key), key, first, kind)
                continue
            out[kind] = count
        return out

    def duplicate_kind(self, path: str, key: object, first: object, kind: str) -> None:
        self.problem(path, same_kind_message(key, first, kind))

    def kind(self, key: str) -> str | None:
        """The canonical kind of a key, or None (cached for the process: boards repeat few kinds)."""
        return _kind(key)

    def kind_at(self, key: str, path: str, quoted: bool = True) -> str | None:
        """Like :meth:`kind`, counting the kind and reporting why a key is not one (at ``path``, keyed if quoted)."""
        kind = self.kind(key)
        if kind is None:
            try:
                known_kind(key)
            except KindError as exc:
                self.problem(keyed(path, key) if quoted else path, str(exc))
            return None
        self.kinds.add(kind)
        return kind


def magnitude_rows(board: Board, gain: IntArray | None = None) -> FloatArray:
    """Per object, the most the objective can count on it, in points at unit counter weight.

    Counters after the whole resolution if chosen every time (``count + rounds x gain``),
    each at its ``counter_values`` override if larger than 1; the permanent's worth (its
    ``value``, else 1 + (|power| + |toughness|) / 2 for a creature); a Saga's worth and 1.5
    per chapter; the amounts of its numeric thresholds.  Float, so it cannot overflow.
    ``gain`` is what one proliferate adds per object and kind: :func:`solver.effects.gain`
    unless given (an upper bound of it gives an upper bound of the magnitude).  The compiled
    :func:`solver.kernels.checks.magnitude_rows_kernel` on the board's arrays.
    """
    out: FloatArray = np.empty(board.n_objects, dtype=np.float64)
    _magnitude(board, effects.gain(board) if gain is None else gain, 0.0, out)
    return out


_NO_GAIN = np.zeros((0, 0), dtype=np.int64)
_NO_AMOUNTS = np.zeros(0, dtype=np.float64)


def _magnitude(board: Board, gain: IntArray, bound: float, out: FloatArray) -> float:
    """:func:`magnitude_rows` into ``out``, at ``gain`` (or ``bound`` on every cell with counters if it is empty)."""
    amounts = _NO_AMOUNTS
    if board.thr_effect:
        amounts = np.array([0.0 if isinstance(e, str) else abs(float(e)) for e in board.thr_effect])
    return float(
        magnitude_rows_kernel(
            board.counts, gain, bound, board.rounds, _CREATURE, board_table(board), board.value, board.cv_object,
            board.cv_kind, board.cv_value, board.thr_object, amounts, out,
        )
    )  # fmt: skip


#: A board whose magnitude bound is below this is accepted without working out its gains (a margin far
#: above float rounding, so a board at the limit is always judged by its exact magnitude).
_SURELY_WITHIN = limits.MAX_MAGNITUDE * (1 - 1e-9)
_CREATURE, _BATTLE = int(CardType.CREATURE), int(CardType.BATTLE)


def check_magnitude(board: Board) -> None:
    """Refuse a board whose numbers could overflow the objective's arithmetic (see :mod:`solver.limits`).

    The problem is reported at the first player or permanent at which the running total
    of :func:`magnitude_rows` passes the limit.  Most boards are far below it: they are
    accepted on an upper bound of their gains (:func:`solver.effects.gain_bound`, on every
    cell with counters), so loading does not run the card rules; the gains are worked out
    when a board is decided.
    """
    bound = effects.gain_bound(board)
    if bound <= limits.MAX_MAGNITUDE:
        rows: FloatArray = np.empty(board.n_objects, dtype=np.float64)
        if _magnitude(board, _NO_GAIN, float(bound), rows) <= _SURELY_WITHIN:
            return
    total = np.cumsum(magnitude_rows(board))
    if not len(total) or total[-1] <= limits.MAX_MAGNITUDE:
        return
    row = int(np.argmax(total > limits.MAX_MAGNITUDE))
    path = f"players[{row}]" if row < board.n_players else f"permanents[{row - board.n_players}]"
    raise BoardError(
        [
            Problem(
                path,
                f"the board's numbers pass the magnitude limit here: counters after the resolution "
                f"(count + rounds x what one proliferate adds), worths and thresholds could add up to "
                f"{total[-1]:.3g} points, and the limit is {limits.MAX_MAGNITUDE:,} points",
            )
        ]
    )
