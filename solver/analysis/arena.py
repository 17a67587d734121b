"""MTG Arena ``Player.log`` (detailed logs) to native game records: the proliferate decisions players made.

Arena logs the game engine's (GRE) state messages: a full state replaces what we know, a
diff merges into it.  Counters are not a field of objects but *annotations*:
``AnnotationType_Counter`` gives an absolute count and persists (newer logs keep it in
``persistentAnnotations``; 2020 logs repeat it in ``annotations`` on every diff), and
``AnnotationType_CounterAdded`` is the transient delta, tagged with the resolving ability
(``affectorId``) between ``ResolutionStart`` and ``ResolutionComplete``.

A resolution is a proliferate only when the log *shows* one: the game asked the decider to
choose "any number" of the entities holding counters while the ability resolved (the
proliferate selection request, :func:`is_proliferate_request`), or the resolving ability's
text says "proliferate" (from the Arena card database, when one is given).  Counters going
up alone are never a decision: two triggers that each give a player two poison counters
(0 -> 2 -> 4) look like a proliferate the second time.  Within a shown proliferate, the
counter additions must still fit one (see :func:`detect_proliferate`): every entity that
gained counters gained at least one of *every* kind it already had, and nothing else.  The
candidates are the entities holding counters just before; the choice is the entities that
gained (none, when the request was answered with nothing).

Logs are large and messy: lines stream through, anything not understood is skipped and
counted in :class:`ImportStats`, and no input makes the importer raise.  Each record's
board is checked with :func:`solver.load_board` before it is emitted.
"""

from __future__ import annotations

import json
import os
import re
from collections import Counter
from collections.abc import Callable, Iterator, Mapping, Sequence
from dataclasses import dataclass, field
from typing import Any

from ..board import CARD_TYPE_NAMES
from ..boardjson import load_board
from ..errors import BoardError
from ..kinds import pt_delta
from ..limits import MAX_LINE_BYTES
from ..rules import eligible
from .records import LineProblem, iter_lines

__all__ = [
    "COUNTER_TYPES",
    "AbilityText",
    "ImportStats",
    "counter_kind",
    "detect_proliferate",
    "import_log",
    "is_proliferate_request",
    "says_proliferate",
]

#: Arena ``CounterType`` integers we know (protobuf enum ``CounterType_*``); others stay ``arena:<n>``.
COUNTER_TYPES: dict[int, str] = {
    1: "+1/+1",
    2: "-1/-1",
    3: "poison",
    5: "time",
    7: "loyalty",
    19: "charge",
    35: "energy",
    108: "lore",
    135: "deathtouch",
    140: "menace",
}
_POISON = 3
_LOYALTY = 7

_SELECT_N = "GREMessageType_SelectNReq"
_STATE_MESSAGES = frozenset({"GREMessageType_GameStateMessage", "GREMessageType_QueuedGameStateMessage"})
_BATTLEFIELD = "ZoneType_Battlefield"

# An entity is a seat number (players) or an instanceId (objects); counters are {counter type: count}.
Counters = dict[int, dict[int, int]]
Add = tuple[int, int, int]  # entity, counter type, amount
#: The text of an Arena ability by its ``grpid`` (e.g. from the card database), or None when unknown.
AbilityText = Callable[[int], str | None]
_PROLIFERATE_WORD = re.compile(r"\bproliferat", re.IGNORECASE)


def counter_kind(counter_type: int) -> str:
    """Our counter kind for an Arena counter type."""
    return COUNTER_TYPES.get(counter_type, f"arena:{counter_type}")


@dataclass
class ImportStats:
    """What an import found and skipped; ``warnings`` counts each kind of skip, with the first line it happened."""

    lines: int = 0
    messages: int = 0
    games: int = 0
    resolutions: int = 0
    records: int = 0
    #: Pretty-printed multi-line JSON blocks: the client's own messages, expected in every log and not game state.
    client_messages: int = 0
    #: Why the file could not be read (to its end), if it could not.
    unreadable: str | None = None
    warnings: Counter[str] = field(default_factory=Counter)
    first_line: dict[str, int] = field(default_factory=dict)

    def warn(self, what: str, line: int) -> None:
        self.warnings[what] += 1
        self.first_line.setdefault(what, line)

    def warning_lines(self) -> list[str]:
        return [f"{n} × {what} (first at line {self.first_line[what]})" for what, n in self.warnings.most_common()]

    def failure(self) -> str | None:
        """Why the log as a whole gave nothing to analyse (unreadable, or not an Arena log), else None."""
        if self.unreadable is not None:
            return self.unreadable
        if not self.messages:
            return (
                f"no MTG Arena game state in {self.lines} line(s) "
                "(not a Player.log, or detailed logs were off: Settings > Account > Detailed Logs)"
            )
        return None


# ---------------------------------------------------------------------------- detection
def detect_proliferate(before: Counters, adds: Sequence[Add]) -> tuple[int, list[int]] | None:
    """Find the proliferate in one resolution's counter additions, or None.

    Returns ``(split, chosen)``: the additions from ``split`` on are the proliferate, and
    ``chosen`` are the entities they touch, in order of first appearance.  A compound
    effect ("put a counter on X, then proliferate") puts its own counters first, so the
    earliest split that fits is taken and the candidates are read from the state after
    the additions before it.  "Fits" means every entity that gains had counters, gains
    at least one of each kind it had (a replacement effect may make it more than one),
    and gains no other kind (701.34a).
    """
    state = {e: dict(c) for e, c in before.items()}
    for split in range(len(adds)):
        if split:
            entity, ctype, amount = adds[split - 1]
            kinds = state.setdefault(entity, {})
            kinds[ctype] = kinds.get(ctype, 0) + amount
        gained: dict[int, set[int]] = {}
        for entity, ctype, amount in adds[split:]:
            if amount >= 1:
                gained.setdefault(entity, set()).add(ctype)
        had_ok = all(amount >= 1 for _, _, amount in adds[split:])
        if had_ok and gained and all(kinds == _held(state, e) for e, kinds in gained.items()):
            return split, list(gained)
    return None


def says_proliferate(text: str | None) -> bool:
    """Whether an ability's rules text proliferates (the keyword action of 701.34)."""
    return bool(text) and _PROLIFERATE_WORD.search(text or "") is not None


def is_proliferate_request(request: Mapping[str, Any], holding: Counters) -> bool:
    """Whether a ``selectNReq`` is the proliferate choice: any number (none included) of entities with counters.

    701.34a: the player chooses "any number of permanents and/or players" that have a
    counter, so the request lets the decider select none (``minSel`` 0) of a list of
    instance ids (seat numbers for players) every one of which holds counters.  Other
    choices made while an ability resolves ("choose a counter", "choose one") need at
    least one selection or offer things without counters.
    """
    ids = _ints(request.get("ids"))
    return (
        request.get("idType", "IdType_InstanceId") == "IdType_InstanceId"
        and _int(request.get("minSel"), 0) == 0
        and bool(ids)
        and all(holding.get(i) for i in ids)
    )


def _held(state: Counters, entity: int) -> set[int]:
    return {t for t, n in state.get(entity, {}).items() if n > 0}


def state_after(before: Counters, adds: Sequence[Add]) -> Counters:
    state = {e: dict(c) for e, c in before.items()}
    for entity, ctype, amount in adds:
        kinds = state.setdefault(entity, {})
        kinds[ctype] = kinds.get(ctype, 0) + amount
    return state


# ---------------------------------------------------------------------------- game state
@dataclass
class _Resolution:
    affector: int
    grpid: int | None
    line: int
    state_id: int | None
    adds: list[Add] = field(default_factory=list)
    before: Counters | None = None
    removed: bool = False
    #: The ids of the proliferate selection request answered during this resolution, if one was.
    offered: list[int] | None = None


@dataclass
class _Game:
    """What we know of one game, merged from full states and diffs (internal to one import)."""

    key: str
    players: dict[int, dict[str, Any]] = field(default_factory=dict)
    zones: dict[int, str] = field(default_factory=dict)
    objects: dict[int, dict[str, Any]] = field(default_factory=dict)
    bases: dict[int, tuple[int | None, int | None]] = field(default_factory=dict)
    counter_notes: dict[int, tuple[tuple[int, ...], int, int]] = field(default_factory=dict)
    turn: dict[str, Any] = field(default_factory=dict)
    open: dict[int, _Resolution] = field(default_factory=dict)
    renamed: dict[int, int] = field(default_factory=dict)
    layout: str = "annotations"

    def counters(self) -> Counters:
        """Counters per entity now: the Counter annotations, plus a planeswalker's loyalty field if none."""
        out: Counters = {}
        for affected, ctype, count in self.counter_notes.values():
            for entity in affected:
                out.setdefault(entity, {})[ctype] = count
        for iid, obj in self.objects.items():
            loyalty = _value(obj.get("loyalty"))
            if loyalty and "CardType_Planeswalker" in _strings(obj.get("cardTypes")) and self.on_battlefield(iid):
                out.setdefault(iid, {}).setdefault(_LOYALTY, loyalty)
        return {e: {t: n for t, n in c.items() if n > 0} for e, c in out.items() if any(n > 0 for n in c.values())}

    def on_battlefield(self, iid: int) -> bool:
        obj = self.objects.get(iid)
        return obj is not None and self.zones.get(_int(obj.get("zoneId"), -1)) == _BATTLEFIELD

    def eligible_entities(self, counters: Counters) -> Counters:
        """Players and battlefield permanents only: proliferate reaches nothing else (701.34a, 403.3)."""
        return {e: c for e, c in counters.items() if e in self.players or self.on_battlefield(e)}


def _int(value: object, default: int) -> int:
    return value if isinstance(value, int) and not isinstance(value, bool) else default


def _value(value: object) -> int | None:
    """``{"value": n}`` (Arena's wrapped ints) or a bare int."""
    if isinstance(value, Mapping):
        value = value.get("value", 0)
    return value if isinstance(value, int) and not isinstance(value, bool) else None


def _strings(value: object) -> list[str]:
    return [v for v in value if isinstance(v, str)] if isinstance(value, list) else []


def _ints(value: object) -> list[int]:
    return [v for v in value if isinstance(v, int) and not isinstance(v, bool)] if isinstance(value, list) else []


def _detail(annotation: Mapping[str, Any], key: str) -> int | None:
    for detail in annotation.get("details") or ():
        if isinstance(detail, Mapping) and detail.get("key") == key:
            values = _ints(detail.get("valueInt32"))
            return values[0] if values else None
    return None


# ---------------------------------------------------------------------------- the importer
class _Importer:
    """One pass over one log; yields ``(line, record)`` as decisions complete."""

    def __init__(
        self,
        source: str,
        stats: ImportStats,
        ability_text: AbilityText | None = None,
        max_line_bytes: int = MAX_LINE_BYTES,
    ) -> None:
        self.source = source
        self.ability_text = ability_text
        self.max_line_bytes = max_line_bytes
        self.label = os.path.basename(source)
        self.stats = stats
        self.game: _Game | None = None
        self.seen_states: set[tuple[str, int]] = set()

    def run(self) -> Iterator[tuple[int, dict[str, Any]]]:
        skipping_block = False
        for item in iter_lines(self.source, self.max_line_bytes):
            if isinstance(item, LineProblem):
                if item.line:
                    self.stats.lines += 1
                    self.stats.warn("skipped line that is not UTF-8", item.line)
                else:
                    self.stats.unreadable = item.message
                continue
            lineno, text = item
            self.stats.lines += 1
            stripped = text.strip()
            if skipping_block:
                skipping_block = stripped != "}"
                continue
            if stripped == "{":  # a pretty-printed client message: expected, and not game state
                skipping_block = True
                self.stats.client_messages += 1
                continue
            start = stripped.find("{")
            if start < 0 or (start > 0 and "greToClientEvent" not in stripped):
                continue  # log prose
            try:
                data = json.loads(stripped[start:])
            except (ValueError, RecursionError):
                self.stats.warn("skipped line that is not valid JSON", lineno)
                continue
            if isinstance(data, Mapping) and "greToClientEvent" in data:
                yield from self.event(data["greToClientEvent"], lineno)
        if self.game is not None:
            self.end_game(self.stats.lines)

    def event(self, event: object, line: int) -> Iterator[tuple[int, dict[str, Any]]]:
        messages = event.get("greToClientMessages") if isinstance(event, Mapping) else None
        if not isinstance(messages, list):
            self.stats.warn("skipped greToClientEvent without greToClientMessages", line)
            return
        for message in messages:
            if isinstance(message, Mapping) and message.get("type") == _SELECT_N:
                try:
                    self.select_n(message, line)
                except (KeyError, TypeError, ValueError, AttributeError, IndexError) as exc:
                    self.stats.warn(f"skipped selection request not understood ({type(exc).__name__})", line)
                continue
            if not isinstance(message, Mapping) or message.get("type") not in _STATE_MESSAGES:
                continue
            state = message.get("gameStateMessage")
            if not isinstance(state, Mapping):
                self.stats.warn("skipped game state message without gameStateMessage", line)
                continue
            self.stats.messages += 1
            try:
                yield from self.state_message(state, line)
            except (KeyError, TypeError, ValueError, AttributeError, IndexError) as exc:
                self.stats.warn(f"skipped game state message not understood ({type(exc).__name__})", line)

    def select_n(self, message: Mapping[str, Any], line: int) -> None:
        """Attach a proliferate selection request to its resolution (the ``sourceId``, else the only one open)."""
        request = message.get("selectNReq")
        game = self.game
        if not isinstance(request, Mapping) or game is None or not game.open:
            return
        source = _int(request.get("sourceId"), -1)
        source = game.renamed.get(source, source)
        if source in game.open:
            res = game.open[source]
        elif len(game.open) == 1 and source < 0:
            res = next(iter(game.open.values()))
        else:
            return
        holding = game.eligible_entities(game.counters())
        if not is_proliferate_request(request, holding):
            return
        if res.before is None:
            res.before = {e: dict(c) for e, c in holding.items()}
        res.offered = _ints(request.get("ids"))

    # ------------------------------------------------------------------ merging states
    def state_message(self, msg: Mapping[str, Any], line: int) -> Iterator[tuple[int, dict[str, Any]]]:
        full = msg.get("type") == "GameStateType_Full"
        previous = self.game
        game = self.game_for(msg, full, line)
        prior = previous if previous is not None and previous.key == game.key else game
        state_id = _int(msg.get("gameStateId"), -1)
        if state_id >= 0:
            if (game.key, state_id) in self.seen_states:
                return  # the same state logged twice (queued and sent)
            self.seen_states.add((game.key, state_id))
        annotations = [a for a in msg.get("annotations") or () if isinstance(a, Mapping)]
        deltas = any(
            t in ("AnnotationType_CounterAdded", "AnnotationType_CounterRemoved")
            for a in annotations
            for t in _strings(a.get("type"))
        )
        before = prior.counters() if deltas or game.open else {}
        battlefield_before = {e for e in before if prior.on_battlefield(e)}
        removed = self.apply(game, msg, annotations, full, line)
        if prior is not game:  # a full state replaced the game: what it no longer has was removed
            removed.update((iid, obj) for iid, obj in prior.objects.items() if iid not in game.objects)
        yield from self.walk(game, annotations, before, battlefield_before, removed, line, state_id)

    def game_for(self, msg: Mapping[str, Any], full: bool, line: int) -> _Game:
        info = msg.get("gameInfo")
        key = None
        if isinstance(info, Mapping) and info.get("matchID") is not None:
            key = f"{info.get('matchID')}:{_int(info.get('gameNumber'), 1)}"
        if self.game is None or (key is not None and key != self.game.key):
            if self.game is not None:
                self.end_game(line)
            if not full:
                self.stats.warn("diff before any full state of its game (merged into an empty state)", line)
            self.game = _Game(key or f"{self.label}:{line}")
            self.stats.games += 1
        elif full:
            fresh = _Game(self.game.key, open=self.game.open, renamed=self.game.renamed, layout=self.game.layout)
            self.game = fresh
        return self.game

    def end_game(self, line: int) -> None:
        assert self.game is not None
        for res in self.game.open.values():
            if res.adds:
                self.stats.warn("skipped resolution with counters but no ResolutionComplete", res.line)
        self.game.open.clear()

    def apply(
        self, game: _Game, msg: Mapping[str, Any], annotations: list[Mapping[str, Any]], full: bool, line: int
    ) -> dict[int, dict[str, Any]]:
        """Merge a state into ``game``; returns the objects this message deleted (for later lookups)."""
        for player in msg.get("players") or ():
            if isinstance(player, Mapping) and _int(player.get("systemSeatNumber"), -1) > 0:
                seat = player["systemSeatNumber"]
                game.players[seat] = {**game.players.get(seat, {}), **player}
        for zone in msg.get("zones") or ():
            if isinstance(zone, Mapping) and _int(zone.get("zoneId"), -1) >= 0:
                game.zones[zone["zoneId"]] = str(zone.get("type", ""))
                for iid in _ints(zone.get("objectInstanceIds")):
                    if iid in game.objects:
                        game.objects[iid] = {**game.objects[iid], "zoneId": zone["zoneId"]}
        updated = []
        for obj in msg.get("gameObjects") or ():
            if isinstance(obj, Mapping) and _int(obj.get("instanceId"), -1) >= 0:
                game.objects[obj["instanceId"]] = dict(obj)
                updated.append(obj["instanceId"])
        turn = msg.get("turnInfo")
        if isinstance(turn, Mapping):
            game.turn = {**game.turn, **turn}
        removed: dict[int, dict[str, Any]] = {}
        for iid in _ints(msg.get("diffDeletedInstanceIds")):
            if iid in game.objects:
                removed[iid] = game.objects.pop(iid)
        persistent = msg.get("persistentAnnotations")
        if persistent is not None:
            game.layout = "persistentAnnotations"
        if full:
            game.counter_notes = {}
        for ann in [*(persistent or ()), *annotations]:
            self.counter_note(game, ann, line)
        for ann_id in _ints(msg.get("diffDeletedPersistentAnnotationIds")):
            game.counter_notes.pop(ann_id, None)
        gone = set(removed)
        if gone:
            game.counter_notes = {k: v for k, v in game.counter_notes.items() if not gone & set(v[0])}
        now = game.counters()
        for iid in updated:
            obj = game.objects.get(iid) or removed[iid]
            held = now.get(iid, {})
            game.bases[iid] = (_base(_value(obj.get("power")), held, 0), _base(_value(obj.get("toughness")), held, 1))
        return removed

    def counter_note(self, game: _Game, ann: object, line: int) -> None:
        if not (isinstance(ann, Mapping) and "AnnotationType_Counter" in _strings(ann.get("type"))):
            return
        ann_id = _int(ann.get("id"), -1)
        count, ctype = _detail(ann, "count"), _detail(ann, "counter_type")
        affected = tuple(_ints(ann.get("affectedIds")))
        if ann_id < 0 or count is None or ctype is None or not affected:
            self.stats.warn("skipped Counter annotation without id, count, counter_type or affectedIds", line)
            return
        if count <= 0:
            game.counter_notes.pop(ann_id, None)
        else:
            game.counter_notes[ann_id] = (affected, ctype, count)

    # ------------------------------------------------------------------ resolutions
    def walk(
        self,
        game: _Game,
        annotations: list[Mapping[str, Any]],
        before: Counters,
        battlefield_before: set[int],
        removed: dict[int, dict[str, Any]],
        line: int,
        state_id: int,
    ) -> Iterator[tuple[int, dict[str, Any]]]:
        running = {e: dict(c) for e, c in before.items()}
        for ann in annotations:
            types = _strings(ann.get("type"))
            affector = _int(ann.get("affectorId"), -1)
            if "AnnotationType_ResolutionStart" in types:
                game.open[affector] = _Resolution(affector, _detail(ann, "grpid"), line, state_id)
            if "AnnotationType_ObjectIdChanged" in types:
                self.rename(game, running, _detail(ann, "orig_id"), _detail(ann, "new_id"))
            for kind, sign in (("AnnotationType_CounterAdded", 1), ("AnnotationType_CounterRemoved", -1)):
                if kind not in types:
                    continue
                ctype, amount = _detail(ann, "counter_type"), _detail(ann, "transaction_amount")
                if ctype is None or amount is None:
                    self.stats.warn(
                        f"skipped {kind.removeprefix('AnnotationType_')} without counter_type or amount", line
                    )
                    continue
                res = game.open.get(affector)
                for entity in _ints(ann.get("affectedIds")):
                    if res is not None:
                        if res.before is None:
                            eligible_now = {
                                e: c for e, c in running.items() if e in game.players or e in battlefield_before
                            }
                            res.before = {e: dict(c) for e, c in eligible_now.items()}
                        res.adds.append((entity, ctype, sign * amount))
                        res.removed |= sign < 0
                    kinds = running.setdefault(entity, {})
                    kinds[ctype] = kinds.get(ctype, 0) + sign * amount
            if "AnnotationType_ResolutionComplete" in types:
                res = game.open.pop(affector, None)
                if res is not None and (res.adds or res.offered is not None) and not res.removed:
                    self.stats.resolutions += 1
                    record = self.decision(game, res, removed)
                    if record is not None:
                        self.stats.records += 1
                        yield res.line, record

    def text_says_proliferate(self, grpid: int | None) -> bool:
        if grpid is None or self.ability_text is None:
            return False
        return says_proliferate(self.ability_text(grpid))

    def rename(self, game: _Game, running: Counters, orig: int | None, new: int | None) -> None:
        if orig is None or new is None:
            return
        game.renamed[orig] = new
        if orig in running:
            running[new] = running.pop(orig)
        if orig in game.open:
            res = game.open.pop(orig)
            res.affector = new
            game.open[new] = res

    def lookup(self, game: _Game, iid: int, removed: Mapping[int, dict[str, Any]]) -> dict[str, Any] | None:
        obj = game.objects.get(iid) or removed.get(iid)
        if obj is None and iid in game.renamed:
            obj = game.objects.get(game.renamed[iid])
        return obj

    def decision(self, game: _Game, res: _Resolution, removed: Mapping[int, dict[str, Any]]) -> dict[str, Any] | None:
        """The record for a resolution that is a proliferate, or None (with a counted warning if skipped)."""
        before = res.before or {}
        found = detect_proliferate(before, res.adds) if res.adds else (0, [])
        if found is None:
            return None
        split, chosen = found
        if res.offered is None and not self.text_says_proliferate(res.grpid):
            self.stats.warn(
                "skipped counters added like a proliferate, but the log shows no proliferate "
                "(no proliferate selection request, and the ability's text is not known to proliferate)",
                res.line,
            )
            return None
        if res.offered is not None and not set(chosen) <= set(res.offered):
            self.stats.warn("skipped proliferate whose counters went to entities it did not offer", res.line)
            return None
        state = {
            e: c
            for e, c in state_after(before, res.adds[:split]).items()
            if e in before or e in game.players or game.on_battlefield(e) or e in removed
        }
        seats = sorted(game.players)
        if len(seats) < 2:
            self.stats.warn("skipped proliferate with fewer than two players known", res.line)
            return None
        affector = self.lookup(game, res.affector, removed)
        seat = _int(affector.get("controllerSeatId"), -1) if affector else -1
        if seat not in game.players:
            seat = _int(game.turn.get("activePlayer"), -1)
        if seat not in game.players:
            self.stats.warn("skipped proliferate whose decider is unknown (no controller, no active player)", res.line)
            return None
        board = self.board(game, seats, seat, state, removed, res.line)
        if board is None:
            return None
        try:
            loaded = load_board(board)
        except BoardError as exc:
            self.stats.warn(f"skipped proliferate whose board was rejected ({exc.problems[0]})", res.line)
            return None
        picked = {_entity_id(e, game) for e in chosen}
        candidates = eligible(loaded)
        chosen_ids = [i for i in candidates if i in picked] + sorted(picked - set(candidates))
        recipients = self.recipients(game, chosen, res.adds[split:])
        phase = game.turn.get("phase")
        meta: dict[str, Any] = {"layout": game.layout}
        if res.grpid is not None:
            meta["grpid"] = res.grpid
        if res.state_id is not None and res.state_id >= 0:
            meta["gameStateId"] = res.state_id
        record: dict[str, Any] = {
            "game": game.key,
            "turn": _int(game.turn.get("turnNumber"), 0),
            "decider": f"seat{seat}",
            "board": board,
            "chosen": chosen_ids,
            "poison_recipients": recipients,
            "candidates": list(candidates),
            "source": f"arena {self.label}:{res.line}",
            "meta": meta,
        }
        if isinstance(phase, str):
            record["phase"] = phase.removeprefix("Phase_").lower()
        return record

    def recipients(self, game: _Game, chosen: list[int], adds: Sequence[Add]) -> dict[str, str]:
        """In 2HG, the chosen head whose poison went up gets the team's poison (701.34b)."""
        teams = self.teams(game)
        if teams is None:
            return {}
        out: dict[str, str] = {}
        poisoned = [e for e, t, _ in adds if t == _POISON and e in game.players]
        for team, members in teams.items():
            heads = [s for s in members if s in chosen]
            if len(heads) > 1:
                head = next((s for s in poisoned if s in heads), heads[0])
                out[team] = f"seat{head}"
        return out

    def teams(self, game: _Game) -> dict[str, list[int]] | None:
        """Teams when every team has two or more seats (Two-Headed Giant), else None."""
        if len(game.players) <= 2:
            return None
        teams: dict[str, list[int]] = {}
        for seat, player in sorted(game.players.items()):
            team_id = player.get("teamId")
            if not isinstance(team_id, int):
                return None
            teams.setdefault(f"team{team_id}", []).append(seat)
        if len(teams) < 2 or any(len(m) < 2 for m in teams.values()):
            return None
        return teams

    def board(
        self,
        game: _Game,
        seats: list[int],
        decider: int,
        state: Counters,
        removed: Mapping[int, dict[str, Any]],
        line: int,
    ) -> dict[str, Any] | None:
        teams = self.teams(game)
        team_of = {s: t for t, members in (teams or {}).items() for s in members}
        if teams is not None:
            variant = "two_headed_giant"
            for members in teams.values():  # team poison is shared (810.10): every head shows the total
                total = max(state.get(s, {}).get(_POISON, 0) for s in members)
                for s in members:
                    if total:
                        state.setdefault(s, {})[_POISON] = total
        else:
            variant = "duel" if len(seats) == 2 else "free_for_all"
        players = []
        for seat in seats:
            player: dict[str, Any] = {"id": f"seat{seat}"}
            if seat in team_of:
                player["team"] = team_of[seat]
            life = _int(game.players[seat].get("lifeTotal"), -(10**12))
            if life > -(10**12):
                player["life"] = life
            player["counters"] = _kinds(state.get(seat, {}))
            players.append(player)
        permanents = []
        for entity in sorted(e for e in state if e not in game.players and state[e]):
            obj = self.lookup(game, entity, removed)
            if obj is None:
                self.stats.warn("skipped proliferate with counters on an object the log never described", line)
                return None
            permanent = self.permanent(game, entity, obj, state[entity], line)
            if permanent is None:
                return None
            permanents.append(permanent)
        return {
            "format": 1,
            "variant": variant,
            "proliferator": f"seat{decider}",
            "players": players,
            "permanents": permanents,
        }

    def permanent(
        self, game: _Game, iid: int, obj: Mapping[str, Any], counters: Mapping[int, int], line: int
    ) -> dict[str, Any] | None:
        controller = _int(obj.get("controllerSeatId"), -1)
        if controller not in game.players:
            self.stats.warn("skipped proliferate with a permanent whose controller is not a known seat", line)
            return None
        types = []
        for name in _strings(obj.get("cardTypes")):
            card_type = name.removeprefix("CardType_").lower()
            if card_type in CARD_TYPE_NAMES:
                types.append(card_type)
            else:
                self.stats.warn(f"card type {name!r} (not modelled; dropped from the board)", line)
        subtypes = []
        for name in _strings(obj.get("subtypes")):
            subtype = name.removeprefix("SubType_")
            if subtype == "Saga":  # its chapter count is on the card, not in the log
                self.stats.warn(
                    "Saga subtype (chapter count unknown without a card database; treated as no Saga)", line
                )
            else:
                subtypes.append(subtype)
        out: dict[str, Any] = {"id": str(iid), "controller": f"seat{controller}", "types": types}
        if subtypes:
            out["subtypes"] = subtypes
        power, toughness = game.bases.get(iid, (None, None))
        if "creature" in types and (power is None or toughness is None):
            self.stats.warn("creature power/toughness (missing; assumed 0/0 before counters)", line)
        if power is not None or "creature" in types:
            out["power"] = power or 0
        if toughness is not None or "creature" in types:
            out["toughness"] = toughness or 0
        damage = _int(obj.get("damage"), 0)
        if damage > 0:
            out["damage"] = damage
        out["counters"] = _kinds(counters)
        grp = obj.get("grpId")
        if isinstance(grp, int):
            out["name"] = f"grpId {grp}"
        return out


def _base(value: int | None, counters: Mapping[int, int], half: int) -> int | None:
    """Power or toughness before counters: Arena logs the current value, counters included (122.1a)."""
    if value is None:
        return None
    for ctype, count in counters.items():
        delta = pt_delta(counter_kind(ctype))
        if delta is not None:
            value -= delta[half] * count
    return value


def _kinds(counters: Mapping[int, int]) -> dict[str, int]:
    return {counter_kind(t): n for t, n in sorted(counters.items()) if n > 0}


def _entity_id(entity: int, game: _Game) -> str:
    return f"seat{entity}" if entity in game.players else str(entity)


def import_log(
    path: str | os.PathLike[str],
    stats: ImportStats | None = None,
    ability_text: AbilityText | None = None,
    max_line_bytes: int = MAX_LINE_BYTES,
) -> Iterator[tuple[int, dict[str, Any]]]:
    """``(log line, record JSON)`` for every proliferate decision found in an Arena log (gzip or not).

    ``stats`` collects what was found and skipped; a file that cannot be opened shows up
    there as a warning, so callers that must fail on it check readability first.
    ``ability_text`` (e.g. :meth:`solver.analysis.cards.CardDatabase.ability_text`) lets a
    resolution whose ability's text says "proliferate" count without a selection request.
    A line past ``max_line_bytes`` raises :class:`~solver.analysis.records.LineTooLong`.
    """
    stats = stats if stats is not None else ImportStats()
    yield from _Importer(os.fspath(path), stats, ability_text, max_line_bytes).run()
