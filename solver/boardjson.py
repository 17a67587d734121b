"""Board JSON, format version 1: the only way boards enter and leave the library as data.

The loader is strict (unknown fields are errors) because a misspelt field silently falling
back to its default would give a confidently wrong decision.  It reports every problem in
one pass, each at the JSON path of the offending value, so a user fixes a board in one edit
rather than one error at a time.  It is also the hot path for 100,000-permanent boards, so
each value is checked once with cheap type tests and counter kinds are normalised through
a per-load cache.  The format is documented in ``docs/board-format.md`` and
``solver/schema/board-v1.schema.json``.
"""

from __future__ import annotations

import gc
import json
import os
from collections.abc import Iterator, Mapping, Sequence
from contextlib import contextmanager
from typing import Any, NamedTuple, TypeAlias

import numpy as np

from . import jsoncodec, limits
from .board import CARD_TYPE_NAMES, Board, Effect, PermanentRow, Player, TeamPoison, Threshold, Variant, assemble
from .cards import CARDS, SUPPORTED_CARDS, canonical_card
from .errors import BoardError, Problem
from .files import TooLarge, read_bounded
from .kinds import KindError, known_kind, same_kind_message
from .validation import (
    Problems,
    finite_number,
    id_string,
    int_in_range,
    is_int,
    is_list,
    is_text,
    join,
    keyed,
    string,
    text,
    unknown_fields,
)

__all__ = ["FORMAT_VERSION", "BoardLike", "as_board", "dump_board", "load_board"]

FORMAT_VERSION = 1

_TOP_FIELDS = frozenset(
    {"format", "variant", "proliferator", "proliferates", "team_poison", "players", "permanents", "effects"}
)
_PLAYER_FIELDS = frozenset({"id", "team", "life", "counters"})
_PERMANENT_FIELDS = frozenset(
    {
        "id",
        "controller",
        "name",
        "types",
        "power",
        "toughness",
        "damage",
        "counters",
        "keywords",
        "subtypes",
        "chapters",
        "protector",
        "phased_out",
        "no_counters",
        "value",
        "thresholds",
        "counter_values",
    }
)
#: The fields :meth:`_Loader.plain_permanent` reads; a permanent with any other takes the checked path.
_PLAIN_FIELDS = _PERMANENT_FIELDS - {"value", "thresholds", "counter_values"}
_THRESHOLD_FIELDS = frozenset({"kind", "at", "effect", "label"})
_EFFECT_FIELDS = frozenset(
    {"card", "controller", "source"} | {p.name for card in CARDS.values() for p in card.parameters}
)

#: Card types by lower-case spelling; "tribal" is the pre-2024 name of kindred (205.2a).
_TYPES: dict[str, str] = {name: name for name in CARD_TYPE_NAMES} | {"tribal": "kindred"}
_TYPE_LIST = ", ".join(sorted(CARD_TYPE_NAMES))
_VARIANTS = {v.value: v for v in Variant}
_MAX_PROLIFERATES = limits.MAX_PROLIFERATES
#: Bound on counts: see :mod:`solver.limits`.
_MAX_INT = limits.MAX_COUNT
_MAX_SIGNED = limits.MAX_SIGNED
#: Stands for a field that is absent, as distinct from one set to null.
_ABSENT: Any = object()


#: A board in any form the public entry points accept (:func:`as_board`).
BoardLike: TypeAlias = Board | Mapping[str, Any] | str | bytes | os.PathLike[str]

_BOARD = "a Board, a mapping (board JSON), JSON text (str or UTF-8 bytes) or a path to a board file"


def as_board(board: object) -> Board:
    """The board given in any accepted form; BoardError for a bad board, TypeError for anything else.

    The one coercion every public entry point uses (re-exported by :mod:`solver.inputs`).

    >>> as_board({"variant": "duel", "players": [{"id": "me"}, {"id": "you"}], "proliferator": "me"}).n_players
    2
    """
    if isinstance(board, Board | Mapping | str | bytes | os.PathLike):
        return load_board(board)
    raise TypeError(f"board must be {_BOARD}, not {type(board).__name__}")


def load_board(source: BoardLike, *, max_bytes: int = limits.MAX_BOARD_BYTES) -> Board:
    """Load a board from parsed JSON, JSON text, or a JSON file (a :class:`Board` is returned as it is).

    A ``str`` (or UTF-8 ``bytes``) starting with ``{`` (after whitespace) is JSON text, any
    other ``str``, ``bytes`` or path-like is a file name.  Raises
    :class:`~solver.errors.BoardError` listing every problem found; no other exception
    escapes for bad input.  A file is read only up to ``max_bytes`` (docs/limits.md): a
    larger one is a BoardError, having read no more than that.
    """
    if isinstance(source, Board):
        return source
    with gc_paused():
        data = _parse(source, max_bytes)
        if not isinstance(data, Mapping):
            raise BoardError([Problem("", "must be an object (the board)")])
        return _Loader().load(data)


@contextmanager
def gc_paused() -> Iterator[None]:
    """Pause the cyclic garbage collector while loading (nested pauses leave it to the outermost).

    Loading allocates millions of small acyclic objects on big boards, and the collections
    that this triggers cost about a third of the load time while freeing nothing.  The
    analysis pauses it around a whole chunk of records for the same reason
    (:func:`solver.analysis.analyze.analyze_chunk`).
    """
    enabled = gc.isenabled()
    gc.disable()
    try:
        yield
    finally:
        if enabled:
            gc.enable()


def dump_board(board: BoardLike) -> dict[str, Any]:
    """The board (in any form :func:`as_board` takes) as a JSON-ready dict that :func:`load_board` reads back.

    Optional permanent fields at their defaults are left out so dumps stay readable and
    diffs show only what matters; keys come in a fixed order.
    """
    board = as_board(board)
    return {
        "format": FORMAT_VERSION,
        "variant": board.variant.value,
        "proliferator": board.proliferator_id,
        "proliferates": board.proliferates,
        **({"team_poison": board.team_poison.value} if board.team_poison is not TeamPoison.SHARED else {}),
        "players": [{"id": p.id, "team": p.team, "life": p.life, "counters": dict(p.counters)} for p in board.players],
        "permanents": [_dump_permanent(p) for p in board.permanent_fields()],
        "effects": [_dump_effect(e) for e in board.effects],
    }


def _dump_permanent(p: dict[str, Any]) -> dict[str, Any]:
    """One permanent's JSON, from :meth:`Board.permanent_fields`, with defaults left out."""
    out: dict[str, Any] = {"id": p["id"]}
    if p["name"]:
        out["name"] = p["name"]
    out["controller"] = p["controller"]
    out["types"] = list(p["types"])
    if p["power"] is not None:
        out["power"] = p["power"]
    if p["toughness"] is not None:
        out["toughness"] = p["toughness"]
    if p["damage"]:
        out["damage"] = p["damage"]
    out["counters"] = p["counters"]
    if p["keywords"]:
        out["keywords"] = list(p["keywords"])
    if p["subtypes"]:
        out["subtypes"] = list(p["subtypes"])
    if p["chapters"] is not None:
        out["chapters"] = p["chapters"]
    if p["protector"] is not None:
        out["protector"] = p["protector"]
    if p["phased_out"]:
        out["phased_out"] = True
    if p["no_counters"]:
        out["no_counters"] = True
    if p["value"] is not None:
        out["value"] = p["value"]
    if p["thresholds"]:
        out["thresholds"] = [_dump_threshold(t) for t in p["thresholds"]]
    if p["counter_values"]:
        out["counter_values"] = p["counter_values"]
    return out


def _dump_threshold(t: Threshold) -> dict[str, Any]:
    out: dict[str, Any] = {"kind": t.kind, "at": t.at, "effect": t.effect}
    if t.label:
        out["label"] = t.label
    return out


def _dump_effect(e: Effect) -> dict[str, Any]:
    out: dict[str, Any] = {"card": e.card, "controller": e.controller}
    if e.source is not None:
        out["source"] = e.source
    for param in CARDS[e.card].parameters:
        if getattr(e, param.name) != param.default:
            out[param.name] = getattr(e, param.name)
    return out


# ---------------------------------------------------------------------- parsing


def _parse(source: str | bytes | os.PathLike[str] | Mapping[str, Any], max_bytes: int) -> Any:
    if isinstance(source, Mapping):
        return source
    text: str | bytes
    if isinstance(source, str) and source.lstrip().startswith("{"):
        text = source
    elif isinstance(source, bytes) and source.lstrip().startswith(b"{"):
        text = source  # as read from a socket or a pipe; jsoncodec reads it as UTF-8
    else:
        try:
            name = os.fspath(source)
        except TypeError:
            raise BoardError(
                [
                    Problem(
                        "",
                        f"a board must be a mapping, JSON text or a file path, not {type(source).__name__}",
                    )
                ]
            ) from None
        try:
            text = read_bounded(name, max_bytes, "board file").decode("utf-8")
        except TooLarge as exc:
            raise BoardError([Problem("", f"cannot read board file {str(name)!r}: {exc}")]) from None
        except OSError as exc:
            raise BoardError([Problem("", f"cannot read board file {str(name)!r}: {exc.strerror or exc}")]) from None
        except UnicodeDecodeError as exc:
            raise BoardError([Problem("", f"cannot read board file {str(name)!r}: not UTF-8 ({exc.reason})")]) from None
        except ValueError:  # a NUL byte or a lone surrogate (UnicodeEncodeError): no file can have that name
            raise BoardError([Problem("", f"cannot read board file {str(name)!r}: not a possible file name")]) from None
    try:
        return jsoncodec.loads(text)
    except json.JSONDecodeError as exc:
        raise BoardError([Problem("", f"not valid JSON: line {exc.lineno} column {exc.colno}: {exc.msg}")]) from None
    except (ValueError, RecursionError) as exc:
        raise BoardError([Problem("", f"not valid JSON: {exc}")]) from None


class _Head(NamedTuple):
    """A loaded player with where it came from, for the checks that need the whole table."""

    player: Player
    path: str
    raw: Mapping[str, Any]


class _Loader:
    """One load: collects problems and the ids seen so far while walking the document once."""

    def __init__(self) -> None:
        self.problems = Problems()
        self.ids: dict[str, str] = {}  # id -> path of the object that first used it
        self.player_ids: set[str] = set()
        self.kind_cache: dict[str, str | None] = {}
        self.type_cache: dict[tuple[str, ...], tuple[str, ...]] = {}
        self.kinds: set[str] = set()  # distinct canonical kinds seen, for the kinds and cells limits
        self.n_objects = 0  # players and permanents, known before they are walked
        self.kinds_refused = False
        self.team_poison = TeamPoison.SHARED
        self.controller_of: dict[str, str] = {}  # permanent id -> its controller, for effects' sources

    def problem(self, path: str, message: str) -> None:
        self.problems.add(path, message)

    # ------------------------------------------------------------------ the board
    def load(self, data: Mapping[str, Any]) -> Board:
        self.check_sizes(data)
        unknown_fields(data, _TOP_FIELDS, "", self.problems)
        if "format" in data and not (is_int(data["format"]) and data["format"] == FORMAT_VERSION):
            self.problem("format", f"unsupported format {data['format']!r}; this library reads format 1")
        variant = self.variant(data)
        proliferates = 1
        if "proliferates" in data:
            value = data["proliferates"]
            if is_int(value) and 1 <= value <= _MAX_PROLIFERATES:
                proliferates = value
            else:
                self.problem("proliferates", f"must be an integer from 1 to {_MAX_PROLIFERATES}")
        if "team_poison" in data:
            conventions = [c.value for c in TeamPoison]
            if data["team_poison"] in conventions:
                self.team_poison = TeamPoison(data["team_poison"])
            else:
                self.problem("team_poison", f"must be one of {', '.join(map(repr, conventions))} (810.10)")
        players = self.players(data, variant)
        permanents = [
            perm
            for i, raw in enumerate(self.list_field(data, "permanents", "", required=False))
            if (perm := self.permanent(raw, f"permanents[{i}]")) is not None
        ]
        self.controller_of = {perm[0]: perm[1] for perm in permanents}
        placed = [
            (effect, path)
            for i, raw in enumerate(self.list_field(data, "effects", "", required=False))
            if (effect := self.effect(raw, path := f"effects[{i}]")) is not None
        ]
        effects = [effect for effect, _ in placed]
        proliferator = self.player_ref(data, "proliferator", "")
        if proliferator is not None:
            self.check_rounds(placed, proliferator, proliferates)
        if self.problems or variant is None or proliferator is None:
            raise BoardError(self.problems.list())
        board = assemble(variant, proliferator, players, permanents, tuple(effects), proliferates, self.team_poison)
        self.check_once_per_turn(board, placed)
        check_magnitude(board)
        return board

    def check_once_per_turn(self, board: Board, placed: list[tuple[Effect, str]]) -> None:
        """Refuse a resolution that would give a "once a turn" kind to its card's controller twice.

        Melira, the Living Cure lets its controller get one poison counter a turn; each of a
        resolution's proliferates adds the same (:attr:`Board.gain`), so a second one, which
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
            raise BoardError(self.problems.list())

    # ------------------------------------------------------------------ limits
    def check_sizes(self, data: Mapping[str, Any]) -> None:
        """Refuse lists past their limits before walking them, so a huge board costs little."""
        sizes = {key: len(value) for key in ("players", "permanents", "effects") if is_list(value := data.get(key))}
        self.n_objects = sizes.get("players", 0) + sizes.get("permanents", 0)
        variant = data.get("variant")
        problems: list[Problem] = []
        n_players = sizes.get("players", 0)
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
        if sizes.get("effects", 0) > limits.MAX_EFFECTS:
            problems.append(Problem("effects", f"{sizes['effects']} effects; the limit is {limits.MAX_EFFECTS}"))
        if problems:
            raise BoardError(problems)

    def new_kind(self, kind: str, path: str) -> None:
        """Count a distinct kind; refuse the first one past the kinds or cells limit, at its path."""
        message = self.count_kind(kind)
        if message:
            self.problem(path, message)

    def count_kind(self, kind: str) -> str:
        """Count a distinct kind: why it is refused if it is the first past a limit, else ""."""
        if kind in self.kinds:
            return ""
        self.kinds.add(kind)
        if self.kinds_refused:
            return ""
        message = self.refusal(len(self.kinds))
        self.kinds_refused = bool(message)
        return message

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

    def first_kind(self, key: object) -> str | None:
        """The kind of a key not seen before, counted, for the plain path; None where there is a problem.

        None for a key that is no kind, or whose kind a limit refuses: neither is cached or
        counted, so the checked path then meets the key for the first time and reports it.
        """
        if not isinstance(key, str) or key in self.kind_cache:
            return None
        try:
            kind = known_kind(key)
        except KindError:
            return None
        if kind not in self.kinds and not self.kinds_refused and self.refusal(len(self.kinds) + 1):
            return None
        self.kind_cache[key] = kind
        self.count_kind(kind)
        return kind

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

    def variant(self, data: Mapping[str, Any]) -> Variant | None:
        if "variant" not in data:
            self.problem("variant", "required")
            return None
        value = data["variant"]
        variant = _VARIANTS.get(value) if isinstance(value, str) else None
        if variant is None:
            self.problem("variant", f"unknown variant {value!r}; expected one of {', '.join(_VARIANTS)}")
        return variant

    # ------------------------------------------------------------------ players
    def players(self, data: Mapping[str, Any], variant: Variant | None) -> list[Player]:
        raws = self.list_field(data, "players", "", required=True)
        if "players" in data and is_list(data["players"]) and not raws:
            self.problem("players", "must not be empty")
        giant = variant is Variant.TWO_HEADED_GIANT
        life = 30 if giant else 20  # 103.4, 810.4
        heads: list[_Head] = []
        for i, raw in enumerate(raws):
            path = f"players[{i}]"
            if not isinstance(raw, Mapping):
                self.problem(path, "must be an object")
                continue
            self.unknown_fields(raw, _PLAYER_FIELDS, path)
            pid = raw.get("id")
            if type(pid) is str and pid and pid not in self.ids and is_text(pid):
                self.ids[pid] = path
            else:
                pid = self.new_id(raw, path)
            team: str | None = None
            if "team" in raw:
                team = self.name(raw["team"], f"{path}.team")
            elif giant:
                self.problem(f"{path}.team", "required in two_headed_giant (810.1)")
            player_life = self.int_field(raw, "life", path, None)
            if player_life is None:
                player_life = life
            counters = self.counters(raw, path)
            if pid is not None:
                self.player_ids.add(pid)
                if team is not None or not giant:
                    heads.append(_Head(Player(pid, team or pid, player_life, counters), path, raw))
        if variant is not None:
            self.check_variant(variant, len(raws), heads)
        return [head.player for head in heads]

    def check_variant(self, variant: Variant, n_raw: int, heads: list[_Head]) -> None:
        if variant is Variant.DUEL:
            if n_raw != 2:
                self.problem("players", f"a duel has exactly 2 players, not {n_raw}")
            elif len(heads) == 2 and heads[0].player.team == heads[1].player.team:
                self.problem(f"{heads[1].path}.team", "the two players of a duel must be on different teams")
            return
        if n_raw < 2:
            self.problem("players", f"{variant.value} needs at least 2 players")
            return
        if variant is not Variant.TWO_HEADED_GIANT:
            return
        teams: dict[str, list[_Head]] = {}
        for head in heads:
            teams.setdefault(head.player.team, []).append(head)
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
        first: Player | None = None
        for head in members:
            count = head.player.counters.get("poison")
            if count is None:
                continue
            if first is None:
                first = head.player
            elif count != first.counters["poison"]:
                key = next(k for k in head.raw["counters"] if self.kind(k) == "poison")
                self.problem(
                    keyed(f"{head.path}.counters", key),
                    f"team poison is shared (810.10): {count} here but {first.counters['poison']} on {first.id!r}"
                    ' (a board that counts poison per head says "team_poison": "per_head")',
                )

    # ------------------------------------------------------------------ permanents
    def permanent(self, raw: object, path: str) -> PermanentRow | None:
        """The permanent's row, or None with its problems recorded."""
        if type(raw) is dict:
            row = self.plain_permanent(raw, path)
            if row is not None:
                return row
        return self.checked_permanent(raw, path)

    def plain_permanent(self, raw: dict[str, Any], path: str) -> PermanentRow | None:
        """The row of a permanent whose every field is valid and in its common form, else None.

        Most permanents of real boards are such, and checking them inline (no thresholds or
        worths; types and counter kinds are cached on first sight) is a third of the cost of
        :meth:`checked_permanent`.  It records nothing unless it succeeds, so on None the
        checked path runs from scratch and reports exactly what it always did.
        """
        if not raw.keys() <= _PLAIN_FIELDS:
            return None
        get = raw.get
        pid = get("id")
        controller = get("controller")
        name = get("name", "")
        if (
            type(pid) is not str
            or not pid
            or pid in self.ids
            or not (pid.isascii() or is_text(pid))
            or type(controller) is not str
            or controller not in self.player_ids
            or type(name) is not str
            or not (name.isascii() or is_text(name))
        ):
            return None
        listed = get("types", _ABSENT)
        if listed is _ABSENT:
            types: tuple[str, ...] | None = ()
        elif type(listed) is list:
            try:
                types = self.type_cache.get(tuple(listed))
            except TypeError:  # an unhashable item
                return None
        else:
            return None
        if types is None:
            types = self.plain_types(listed)
            if types is None:
                return None
        creature = "creature" in types
        power = get("power", _ABSENT)
        if power is _ABSENT and not creature:
            power = None
        elif type(power) is not int or not -_MAX_SIGNED <= power <= _MAX_SIGNED:
            return None
        toughness = get("toughness", _ABSENT)
        if toughness is _ABSENT and not creature:
            toughness = None
        elif type(toughness) is not int or not -_MAX_SIGNED <= toughness <= _MAX_SIGNED:
            return None
        damage = get("damage", 0)
        if type(damage) is not int or not 0 <= damage <= _MAX_INT:
            return None
        held = get("counters", {})
        if type(held) is not dict:
            return None
        counters: dict[str, int] = {}
        cache = self.kind_cache
        for key, count in held.items():
            kind = cache.get(key)  # a kind in the cache has been counted (see :meth:`count_kind`)
            if kind is None:
                kind = self.first_kind(key)
            if kind is None or kind in counters or type(count) is not int or not 0 <= count <= _MAX_INT:
                return None
            counters[kind] = count
        keywords = get("keywords", _ABSENT)
        if keywords is _ABSENT:
            keywords = ()
        elif type(keywords) is list and all(type(k) is str and is_text(k) for k in keywords):
            keywords = tuple(k.lower() for k in keywords)
        else:
            return None
        subtypes = get("subtypes", _ABSENT)
        if subtypes is _ABSENT:
            subtypes = ()
        elif type(subtypes) is list and all(type(k) is str and is_text(k) for k in subtypes):
            subtypes = tuple(subtypes)
        else:
            return None
        chapters = get("chapters", _ABSENT)
        if chapters is _ABSENT and not (subtypes and any(s.lower() == "saga" for s in subtypes)):
            chapters = None
        elif type(chapters) is not int or not 1 <= chapters <= _MAX_INT:
            return None
        protector = get("protector", _ABSENT)
        if protector is _ABSENT:
            protector = None
        elif type(protector) is not str or protector not in self.player_ids or "battle" not in types:
            return None  # 310.9: only a battle has a protector, and it is a player
        phased_out = get("phased_out", False)
        if type(phased_out) is not bool:
            return None
        no_counters = get("no_counters", False)
        if type(no_counters) is not bool:
            return None
        self.ids[pid] = path
        return (pid, controller, types, name, power, toughness, damage, counters, keywords, subtypes, chapters,
                protector, phased_out, no_counters, None, (), {})  # fmt: skip

    def checked_permanent(self, raw: object, path: str) -> PermanentRow | None:
        """Every field checked, every problem recorded at its path."""
        if type(raw) is not dict and not isinstance(raw, Mapping):
            self.problem(path, "must be an object")
            return None
        if not raw.keys() <= _PERMANENT_FIELDS:
            self.unknown_fields(raw, _PERMANENT_FIELDS, path)
        n_before = len(self.problems)
        get = raw.get
        pid = get("id")
        if type(pid) is str and pid and pid not in self.ids and is_text(pid):
            self.ids[pid] = path
        else:
            pid = self.new_id(raw, path)
        controller = get("controller")
        if type(controller) is not str or controller not in self.player_ids:
            controller = self.player_ref(raw, "controller", path)
        name = get("name", "")
        if type(name) is not str or not is_text(name):
            name = self.string(raw, "name", path)
        types = self.types(raw, path)
        is_creature = types is not None and "creature" in types
        # Each field takes its fast path when present and valid, and the detailed check
        # (which reports the problem) otherwise, so problems come in the same order.
        power = get("power", _ABSENT)
        if type(power) is not int or not -_MAX_SIGNED <= power <= _MAX_SIGNED:
            power = self.int_field(raw, "power", path, None, is_creature, "for a creature")
        toughness = get("toughness", _ABSENT)
        if type(toughness) is not int or not -_MAX_SIGNED <= toughness <= _MAX_SIGNED:
            toughness = self.int_field(raw, "toughness", path, None, is_creature, "for a creature")
        damage = get("damage", 0)
        if type(damage) is not int or not 0 <= damage <= _MAX_INT:
            damage = self.int_field(raw, "damage", path, 0) or 0
        counters = self.counters(raw, path)
        keywords = tuple(k.lower() for k in self.strings(raw, "keywords", path)) if "keywords" in raw else ()
        subtypes = self.strings(raw, "subtypes", path) if "subtypes" in raw else ()
        is_saga = bool(subtypes) and any(s.lower() == "saga" for s in subtypes)
        chapters = get("chapters", _ABSENT)
        if type(chapters) is not int or not 1 <= chapters <= _MAX_INT:
            chapters = self.int_field(raw, "chapters", path, 1, is_saga, "for a Saga (714.2d)")
        protector = None
        if "protector" in raw:
            protector = self.player_ref(raw, "protector", path)
            if types is not None and "battle" not in types:
                self.problem(f"{path}.protector", "only a battle has a protector (310.9)")
        phased_out = get("phased_out", False)
        if type(phased_out) is not bool:
            self.problem(f"{path}.phased_out", "must be a boolean")
        no_counters = get("no_counters", False)
        if type(no_counters) is not bool:
            self.problem(f"{path}.no_counters", "must be a boolean")
        value = self.number(raw["value"], f"{path}.value") if "value" in raw else None
        thresholds = self.thresholds(raw, path) if "thresholds" in raw else ()
        counter_values = self.counter_values(raw, path) if "counter_values" in raw else {}
        if len(self.problems) != n_before or pid is None or controller is None or name is None:
            return None
        return (
            pid,
            controller,
            types or (),
            name,
            power,
            toughness,
            damage,
            counters,
            keywords,
            subtypes,
            chapters,
            protector,
            phased_out,
            no_counters,
            value,
            thresholds,
            counter_values,
        )

    def types(self, raw: Mapping[str, Any], path: str) -> tuple[str, ...] | None:
        """A permanent's card types, or None if they are invalid (cached: boards repeat few type lists)."""
        value = raw.get("types", _ABSENT)
        if value is _ABSENT:
            return ()
        if type(value) is list:
            try:
                return self.type_cache[tuple(value)]
            except (KeyError, TypeError):
                pass
        return self.parse_types(value, f"{path}.types")

    def plain_types(self, listed: list[Any]) -> tuple[str, ...] | None:
        """A type list not seen before, for the plain path: cached when every item is a distinct known type.

        Else None, with nothing recorded: :meth:`parse_types` then reports each bad item.
        """
        out: list[str] = []
        for item in listed:
            card_type = _TYPES.get(item.lower()) if type(item) is str else None
            if card_type is None or card_type in out:
                return None
            out.append(card_type)
        self.type_cache[tuple(listed)] = result = tuple(out)
        return result

    def parse_types(self, value: object, path: str) -> tuple[str, ...] | None:
        if not is_list(value):
            self.problem(path, "must be a list")
            return None
        out: list[str] = []
        ok = True
        for i, item in enumerate(value):
            card_type = _TYPES.get(item.lower()) if isinstance(item, str) else None
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
        self.type_cache[tuple(value)] = result = tuple(out)
        return result

    def thresholds(self, raw: Mapping[str, Any], path: str) -> tuple[Threshold, ...]:
        out: list[Threshold] = []
        for i, item in enumerate(self.list_field(raw, "thresholds", path, required=False)):
            tpath = f"{path}.thresholds[{i}]"
            if not isinstance(item, Mapping):
                self.problem(tpath, "must be an object")
                continue
            self.unknown_fields(item, _THRESHOLD_FIELDS, tpath)
            kind = None
            if "kind" in item:
                kind = self.kind_at(item["kind"], f"{tpath}.kind")
            else:
                self.problem(f"{tpath}.kind", "required")
            at = self.int_field(item, "at", tpath, 1, required=True)
            effect = self.threshold_effect(item, tpath)
            label = self.string(item, "label", tpath) if "label" in item else ""
            if kind is not None and at is not None and effect is not None and label is not None:
                out.append(Threshold(kind, at, effect, label))
        return tuple(out)

    def threshold_effect(self, item: Mapping[str, Any], path: str) -> str | float | None:
        if "effect" not in item:
            self.problem(f"{path}.effect", "required")
            return None
        effect = item["effect"]
        if isinstance(effect, str):
            if effect in ("win", "lose"):
                return effect
            self.problem(f"{path}.effect", f"must be 'win', 'lose' or a number, not {effect!r}")
            return None
        return self.number(effect, f"{path}.effect")

    def counter_values(self, raw: Mapping[str, Any], path: str) -> dict[str, float]:
        values = raw["counter_values"]
        cpath = f"{path}.counter_values"
        if not isinstance(values, Mapping):
            self.problem(cpath, "must be an object")
            return {}
        out: dict[str, float] = {}
        seen: dict[str, object] = {}
        for key, value in values.items():
            kpath = keyed(cpath, key)
            kind = self.kind_at(key, kpath)
            number = self.number(value, kpath)
            if kind is None or number is None:
                continue
            if kind in out:
                self.duplicate_kind(kpath, key, seen[kind], kind)
            out[kind] = number
            seen[kind] = key
        return out

    # ------------------------------------------------------------------ effects
    def effect(self, raw: object, path: str) -> Effect | None:
        if not isinstance(raw, Mapping):
            self.problem(path, "must be an object")
            return None
        self.unknown_fields(raw, _EFFECT_FIELDS, path)
        card = None
        if "card" not in raw:
            self.problem(f"{path}.card", "required")
        elif not isinstance(raw["card"], str):
            self.problem(f"{path}.card", "must be a string")
        else:
            card = canonical_card(raw["card"])
            if card is None:
                self.problem(f"{path}.card", f"unknown card {raw['card']!r}; supported: {'; '.join(SUPPORTED_CARDS)}")
        controller = self.player_ref(raw, "controller", path)
        values = self.parameters(raw, card, path) if card is not None else None
        ok, source = self.effect_source(raw, card, controller, path)
        if card is None or controller is None or values is None or not ok:
            return None
        return Effect(card, controller, **values, source=source)

    def effect_source(
        self, raw: Mapping[str, Any], card: str | None, controller: str | None, path: str
    ) -> tuple[bool, str | None]:
        """Whether the effect's ``source`` is valid (a permanent its controller controls), and the source."""
        spath = join(path, "source")
        if "source" not in raw:
            if card is not None and CARDS[card].needs_source:
                self.problem(spath, f"required: the id of the {card} permanent (its text names itself)")
                return False, None
            return True, None
        source = raw["source"]
        if type(source) is not str:
            self.problem(spath, "must be a permanent id")
            return False, None
        owner = self.controller_of.get(source)
        if owner is None:
            self.problem(spath, f"{source!r} is not a permanent on this board")
            return False, None
        if controller is not None and owner != controller:
            self.problem(spath, f"{source!r} is controlled by {owner!r}, not by the effect's controller {controller!r}")
            return False, None
        return True, source

    def parameters(self, raw: Mapping[str, Any], card: str, path: str) -> dict[str, int] | None:
        """The card's parameters (only those it declares; absent ones keep their defaults), or None."""
        declared = {p.name: p for p in CARDS[card].parameters}
        values: dict[str, int] = {}
        ok = True
        for key in sorted(_EFFECT_FIELDS - {"card", "controller", "source"}):
            if key not in raw:
                continue
            param = declared.get(key)
            if param is None:
                self.problem(join(path, key), f"{card} has no {key}")
                ok = False
                continue
            value = int_in_range(raw[key], join(path, key), param.low, param.high, self.problems)
            if value is None:
                ok = False
            else:
                values[key] = value
        return values if ok else None

    # ------------------------------------------------------------------ ids and references
    def new_id(self, raw: Mapping[str, Any], path: str) -> str | None:
        ipath = f"{path}.id"
        if "id" not in raw:
            self.problem(ipath, "required")
            return None
        pid = self.name(raw["id"], ipath)
        if pid is None:
            return None
        first = self.ids.get(pid)
        if first is not None:
            self.problem(ipath, f"duplicate id {pid!r} (first used at {first}.id)")
            return None
        self.ids[pid] = path
        return pid

    def player_ref(self, raw: Mapping[str, Any], key: str, path: str) -> str | None:
        ref = raw.get(key, _ABSENT)
        if type(ref) is str and ref in self.player_ids:
            return ref
        kpath = join(path, key)
        if ref is _ABSENT:
            self.problem(kpath, "required")
            return None
        if not isinstance(ref, str):
            self.problem(kpath, "must be a string")
        elif ref in self.player_ids:
            return ref
        elif ref in self.ids:
            self.problem(kpath, f"{ref!r} is a permanent, not a player")
        else:
            self.problem(kpath, f"{ref!r} is not a player id")
        return None

    # ------------------------------------------------------------------ counters and kinds
    def counters(self, raw: Mapping[str, Any], path: str) -> dict[str, int]:
        if "counters" not in raw:
            return {}
        counters = raw["counters"]
        if type(counters) is not dict and not isinstance(counters, Mapping):
            self.problem(f"{path}.counters", "must be an object")
            return {}
        out: dict[str, int] = {}
        cache = self.kind_cache
        for key, count in counters.items():
            kind = cache.get(key) if isinstance(key, str) else None
            if kind is None and isinstance(key, str) and key not in cache:
                kind = self.kind(key)  # first sight of this key: counted here, checked below like the rest
                if kind is not None and (message := self.count_kind(kind)):
                    self.problem(keyed(f"{path}.counters", key), message)
            if kind is None or kind in out or type(count) is not int or not 0 <= count <= _MAX_INT:
                kind = self.slow_counter(out, counters, key, count, f"{path}.counters")
                if kind is None:
                    continue
            out[kind] = count
        return out

    def slow_counter(
        self, out: dict[str, int], counters: Mapping[str, Any], key: object, count: object, path: str
    ) -> str | None:
        """The checks behind the fast path of :meth:`counters`, reporting what is wrong."""
        kpath = keyed(path, key)
        kind = self.kind_at(key, kpath)
        ok = is_int(count) and 0 <= count <= _MAX_INT
        if not ok:
            self.problem(
                kpath,
                f"must be at most {_MAX_INT}" if is_int(count) and count > 0 else "must be an integer >= 0",
            )
        if kind is not None and kind in out:
            first = next(k for k in counters if k != key and self.kind(k) == kind)
            self.duplicate_kind(kpath, key, first, kind)
            ok = False
        return kind if ok else None

    def duplicate_kind(self, path: str, key: object, first: object, kind: str) -> None:
        self.problem(path, same_kind_message(key, first, kind))

    def kind(self, key: object) -> str | None:
        """The canonical kind of a key, or None; cached per load because boards repeat few kinds."""
        if not isinstance(key, str):
            return None
        try:
            return self.kind_cache[key]
        except KeyError:
            pass
        try:
            kind: str | None = known_kind(key)
        except KindError:
            kind = None
        self.kind_cache[key] = kind
        return kind

    def kind_at(self, key: object, path: str) -> str | None:
        """Like :meth:`kind`, reporting why a key is not a counter kind."""
        if not isinstance(key, str):
            self.problem(path, "counter kind must be a string")
            return None
        kind = self.kind(key)
        if kind is None:
            try:
                known_kind(key)
            except KindError as exc:
                self.problem(path, str(exc))
        else:
            self.new_kind(kind, path)
        return kind

    # ------------------------------------------------------------------ scalars
    def unknown_fields(self, raw: Mapping[Any, Any], allowed: frozenset[str], path: str) -> None:
        unknown_fields(raw, allowed, path, self.problems)

    def list_field(self, raw: Mapping[str, Any], key: str, path: str, required: bool) -> Sequence[Any]:
        if key not in raw:
            if required:
                self.problem(join(path, key), "required")
            return ()
        value = raw[key]
        if not is_list(value):
            self.problem(join(path, key), "must be a list")
            return ()
        return value

    def name(self, value: object, path: str) -> str | None:
        return id_string(value, path, self.problems)

    def string(self, raw: Mapping[str, Any], key: str, path: str) -> str | None:
        return string(raw[key], join(path, key), self.problems)

    def strings(self, raw: Mapping[str, Any], key: str, path: str) -> tuple[str, ...]:
        if key not in raw:
            return ()
        value = raw[key]
        kpath = join(path, key)
        if not is_list(value):
            self.problem(kpath, "must be a list")
            return ()
        for i, item in enumerate(value):
            if not isinstance(item, str):
                self.problem(f"{kpath}[{i}]", "must be a string")
            else:
                text(item, f"{kpath}[{i}]", self.problems)
        return tuple(item for item in value if isinstance(item, str))

    def int_field(
        self,
        raw: Mapping[str, Any],
        key: str,
        path: str,
        low: int | None,
        required: bool = False,
        why: str = "",
    ) -> int | None:
        """An optional int field: a count from ``low`` to ``MAX_COUNT``, or (``low`` None) a signed integer.

        None when absent or invalid; the problem, if any, is reported.
        """
        value = raw.get(key, _ABSENT)
        if value is _ABSENT and not required:
            return None
        high = limits.MAX_SIGNED if low is None else limits.MAX_COUNT
        if type(value) is int and (-high if low is None else low) <= value <= high:
            return value
        kpath = join(path, key)
        if value is _ABSENT:
            self.problem(kpath, f"required {why}" if why else "required")
            return None
        return int_in_range(value, kpath, low, high, self.problems)

    def number(self, value: object, path: str) -> float | None:
        return finite_number(value, path, limits.MAX_POINTS, self.problems)


def check_magnitude(board: Board) -> None:
    """Refuse a board whose numbers could overflow the objective's arithmetic (see :mod:`solver.limits`).

    The problem is reported at the first player or permanent at which the running total
    of :func:`solver.limits.magnitude_rows` passes the limit.
    """
    total = np.cumsum(limits.magnitude_rows(board))
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
