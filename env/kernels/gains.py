"""What one proliferate adds to every slot of a game under the replacement effects in play (616.1, 614).

The card registry (:data:`solver.cards.CARDS`) says, per card, which scopes are in force given
who proliferates and the card's parameters; a scope is an operation on the count, a set of
objects and a set of kinds.  :func:`scope_table` turns the registry into tables once, by asking
each card for its scopes in every situation that can differ (the proliferator is the effect's
controller, a teammate or an opponent; each value of its parameter) and naming each scope's
object set by the one of :data:`OBJECT_SETS` that selects the same objects on probe boards of
every variant.  A card whose scope matches none is refused at import, naming it.

:func:`game_gains` then computes, for one game in arrays, the counters each slot gets per kind
(as :func:`solver.effects.gains` has it, by the same compiled rule,
:func:`solver.kernels.gains.gains_616_1`: zero where the slot has no counter of the kind, 701.34a;
the best order of the effects for the affected party, 616.1).  In Two-Headed Giant the poison
column of a head is what it would get as its team's recipient (701.34b), as
:func:`solver.effects.gain` has it.
"""

from __future__ import annotations

from dataclasses import dataclass
from functools import lru_cache

import numpy as np
import numpy.typing as npt
from numba import njit

from solver.core import CARDS, Board, CardType, Effect, Op, Permanent, Player, Variant, gains_616_1, inner, valence

from .jit import boundary
from .state import EFFECT_NAMES

__all__ = ["OBJECT_SETS", "UNTABLED", "ScopeTable", "game_gains", "game_rounds", "scope_table", "wanted_kinds"]

I64 = npt.NDArray[np.int64]

#: Operations by code, in :class:`solver.cards.Op` order (the codes :func:`solver.core.gains_616_1` reads).
OPS: tuple[Op, ...] = tuple(Op)
#: The object sets a scope can select, by code (``c`` is the seat controlling the effect).
OBJECT_SETS: tuple[str, ...] = (
    "every object",
    "permanents c controls",
    "creatures c controls",
    "artifacts and creatures c controls",
    "every creature",
    "players of c's team",
    "players, artifacts, creatures, enchantments and lands",
    "artifacts and creatures c controls, and c",
    "permanents c's team controls",
)
#: Relations of the proliferator to an effect's controller: the situations a card may tell apart.
RELATIONS = ("self", "teammate", "opponent")
MAX_LEVEL = 3
MAX_SCOPES = 4

_ARTIFACT = int(CardType.ARTIFACT)
_CREATURE = int(CardType.CREATURE)
_ENCHANTMENT = int(CardType.ENCHANTMENT)
_LAND = int(CardType.LAND)


@njit(cache=True)
def in_object_set(code: int, is_player: bool, slot_seat: int, types: int, controller: int, c: int,
                  team_of_controller: int, team_c: int) -> bool:  # fmt: skip
    """Whether an object is in object set ``code`` of :data:`OBJECT_SETS` for an effect controlled by ``c``.

    ``slot_seat`` is a player's own seat (-1 for a permanent); a player's types are 0.
    """
    if code == 0:
        return True
    if code == 1:
        return not is_player and controller == c
    if code == 2:
        return not is_player and controller == c and (types & _CREATURE) != 0
    if code == 3:
        return not is_player and controller == c and (types & (_ARTIFACT | _CREATURE)) != 0
    if code == 4:
        return not is_player and (types & _CREATURE) != 0
    if code == 5:
        return is_player and team_of_controller == team_c
    if code == 6:
        return is_player or (types & (_ARTIFACT | _CREATURE | _ENCHANTMENT | _LAND)) != 0
    if code == 7:
        return (is_player and slot_seat == c) or (
            not is_player and controller == c and (types & (_ARTIFACT | _CREATURE)) != 0
        )
    if code == 8:
        return not is_player and team_of_controller == team_c
    return False


@dataclass(frozen=True)
class ScopeTable:
    """The registry as arrays: ``scopes[card, relation, level - 1, j] = (op, object set, kind)``.

    ``kind`` is a catalogue column, or -1 for every kind; ``n_scopes`` counts the rows used, and
    is -1 for a card the tables cannot express (its scopes select objects by subtype or by the
    effect's own permanent, or depend on what happened this turn: :data:`UNTABLED` names them,
    and a board with one is refused by the v1 envs rather than played with another rule);
    ``factor[card]`` multiplies the proliferates of the card's controller (Tekuthal).
    """

    scopes: I64
    n_scopes: I64
    factor: I64


def _probe_boards() -> list[Board]:
    """Boards with every kind of object under every player, in each variant (for naming object sets)."""
    kinds_of = (("creature",), ("artifact",), ("artifact", "creature"), ("enchantment",), ("land",),
                ("planeswalker",), ("battle",), ("enchantment", "land"))  # fmt: skip
    out = []
    for variant, teams in ((Variant.TWO_HEADED_GIANT, "AABB"), (Variant.FREE_FOR_ALL, "ABCD"), (Variant.DUEL, "AB")):
        players = [Player(f"p{i}", t, 20, {"poison": 1}) for i, t in enumerate(teams)]
        perms = [
            Permanent(
                id=f"o{i}_{j}",
                controller=f"p{i}",
                types=types,
                power=1 if "creature" in types else None,
                toughness=1 if "creature" in types else None,
                counters={"+1/+1": 1},
            )
            for i in range(len(teams))
            for j, types in enumerate(kinds_of)
        ]
        # artifacts with the subtypes some cards name (205.3g), so a set that selects by subtype is told apart
        perms += [
            Permanent(id=f"s{i}_{sub}", controller=f"p{i}", types=("artifact",), subtypes=(sub,), counters={"+1/+1": 1})
            for i in range(len(teams))
            for sub in ("vehicle", "spacecraft", "planet")
        ]
        out.append(Board.build(variant=variant, proliferator="p0", players=players, permanents=perms))
    return out


def _set_code(objects: object, boards: list[Board]) -> int:
    """The code of the object set a scope's ``objects(board, c)`` selects on every probe board and seat."""
    for code in range(len(OBJECT_SETS)):
        same = True
        for board in boards:
            for c in range(board.n_players):
                want = objects(board, c)  # type: ignore[operator]
                for i in range(board.n_objects):
                    player = i < board.n_players
                    got = in_object_set(code, player, i if player else -1, int(board.types[i]),
                                        int(board.controller[i]), c, int(board.team[board.controller[i]]),
                                        int(board.team[c]))  # fmt: skip
                    if got != bool(want[i]):
                        same = False
                        break
                if not same:
                    break
            if not same:
                break
        if same:
            return code
    raise ValueError(f"a scope selects objects that none of env.kernels.gains.OBJECT_SETS does: {objects!r}")


def _kind_code(kinds: object, column: dict[str, int]) -> int:
    """-1 for a scope over every kind, else the column of its one kind."""
    probe = [*column, "charge", "oil", "flying", "time"]
    taken = [k for k in probe if kinds(k)]  # type: ignore[operator]
    if len(taken) == len(probe):
        return -1
    if len(taken) == 1 and taken[0] in column:
        return column[taken[0]]
    raise ValueError(f"a scope takes kinds {taken}: env.kernels.gains handles one kind or every kind")


def scope_table(column: dict[str, int]) -> ScopeTable:
    """The registry as a :class:`ScopeTable`; ``column`` maps the kinds scopes name to catalogue columns."""
    return _scope_table(tuple(column.items()))


@lru_cache(maxsize=16)
def _scope_table(items: tuple[tuple[str, int], ...]) -> ScopeTable:
    """:func:`scope_table`, built once per kind columns (probing the registry costs a few hundred ms)."""
    column = dict(items)
    boards = _probe_boards()
    duel = boards[0]  # 2HG: self (row 0), teammate (row 1) and opponent (row 2) are all there
    n = len(EFFECT_NAMES)
    scopes = np.zeros((n, len(RELATIONS), MAX_LEVEL, MAX_SCOPES, 3), dtype=np.int64)
    n_scopes = np.zeros((n, len(RELATIONS), MAX_LEVEL), dtype=np.int64)
    factor = np.ones(n, dtype=np.int64)
    for code, name in enumerate(EFFECT_NAMES):
        card = CARDS[name]
        factor[code] = card.proliferate_factor
        if name in UNTABLED:
            n_scopes[code] = -1
            continue
        for rel in range(len(RELATIONS)):
            board = duel.with_proliferator(rel)
            for level in range(1, MAX_LEVEL + 1):
                found = card.scopes(board, 0, Effect(name, "p0", level))
                if len(found) > MAX_SCOPES:
                    raise ValueError(f"{name} has {len(found)} scopes; env.kernels.gains takes {MAX_SCOPES}")
                n_scopes[code, rel, level - 1] = len(found)
                for j, scope in enumerate(found):
                    scopes[code, rel, level - 1, j] = (
                        OPS.index(scope.op),
                        _set_code(scope.objects, boards),
                        _kind_code(scope.kinds, column),
                    )
    return ScopeTable(scopes, n_scopes, factor)


def untabled_cards() -> frozenset[str]:
    """The registry's cards whose scopes :func:`scope_table` cannot express (see :class:`ScopeTable`)."""
    boards = _probe_boards()
    column = {k: i for i, k in enumerate(("+1/+1", "-1/-1", "poison", "loyalty", "lore", "defense"))}
    out = set()
    for name, card in CARDS.items():
        if getattr(card, "needs_source", False) or getattr(card, "once_per_turn", ""):
            out.add(name)
            continue
        try:
            for rel in range(len(RELATIONS)):
                board = boards[0].with_proliferator(rel)
                for level in range(1, MAX_LEVEL + 1):
                    for scope in card.scopes(board, 0, Effect(name, "p0", level)):
                        _set_code(scope.objects, boards)
                        _kind_code(scope.kinds, column)
                        OPS.index(scope.op)
        except (ValueError, TypeError):
            out.add(name)
    return frozenset(out)


#: Cards of the registry the compiled gains do not model yet (a board with one is refused by the v1 envs).
UNTABLED: frozenset[str] = untabled_cards()


def wanted_kinds(kinds: list[str]) -> npt.NDArray[np.bool_]:
    """Whether more of each kind is good for whoever has it (the catalogue's default valence, 616.1 ordering)."""
    return np.array([valence(kind) >= 0 for kind in kinds], dtype=np.bool_)


@inner
def relation_of(proliferator: int, c: int, team: np.ndarray) -> int:
    """0 when seat ``c`` proliferates, 1 when its teammate does, 2 when an opponent does."""
    if proliferator == c:
        return 0
    return 1 if team[proliferator] == team[c] else 2


@inner
def game_rounds(effects: np.ndarray, n_effects: int, proliferator: int, proliferates: int, factor: np.ndarray) -> int:
    """Proliferates performed: ``proliferates`` times the factor of each card the proliferator controls."""
    rounds = proliferates
    for e in range(n_effects):
        if effects[e, 1] == proliferator:
            rounds *= factor[effects[e, 0]]
    return rounds


@boundary
def game_gains(
    counts: np.ndarray,
    card: np.ndarray,
    controller: np.ndarray,
    protector: np.ndarray,
    player_in: np.ndarray,
    team: np.ndarray,
    n_perm: int,
    effects: np.ndarray,
    n_effects: int,
    proliferator: int,
    card_types: np.ndarray,
    scopes: np.ndarray,
    n_scopes: np.ndarray,
    wanted: np.ndarray,
    defense: int,
    out: np.ndarray,
) -> None:
    """One game's gains into ``out`` (slots x kinds), from its slots (see the module docstring).

    The effects' scopes become rows of the slots and kinds each covers, which the solver's
    compiled rule (:func:`solver.kernels.gains.gains_616_1`) orders per slot and kind (616.1).
    """
    seats = player_in.shape[0]
    n_kinds = counts.shape[1]
    hi = seats + n_perm
    out[:, :] = 0
    n_rows = 0
    for e in range(n_effects):
        code, c, level = effects[e, 0], effects[e, 1], effects[e, 2]
        n_rows += n_scopes[code, relation_of(proliferator, c, team), min(max(level, 1), scopes.shape[2]) - 1]
    # has, the scopes' objects and their kinds as pieces of one block (one allocation rather than three); every
    # cell is written below
    bools = np.empty(hi * n_kinds + n_rows * hi + n_rows * n_kinds, dtype=np.bool_)
    has = bools[: hi * n_kinds].reshape((hi, n_kinds))
    rows = bools[hi * n_kinds : hi * n_kinds + n_rows * hi].reshape((n_rows, hi))
    cols = bools[hi * n_kinds + n_rows * hi :].reshape((n_rows, n_kinds))
    ops = np.empty(n_rows, dtype=np.int64)
    for s in range(hi):
        for k in range(n_kinds):
            has[s, k] = counts[s, k] > 0
    r = 0
    for e in range(n_effects):
        code, c, level = effects[e, 0], effects[e, 1], effects[e, 2]
        rel = relation_of(proliferator, c, team)
        lv = min(max(level, 1), scopes.shape[2]) - 1
        for j in range(n_scopes[code, rel, lv]):
            op, objects, kind = scopes[code, rel, lv, j, 0], scopes[code, rel, lv, j, 1], scopes[code, rel, lv, j, 2]
            ops[r] = op
            for k in range(n_kinds):
                cols[r, k] = kind < 0 or kind == k
            for s in range(hi):
                is_player = s < seats
                if is_player and not player_in[s]:
                    rows[r, s] = False
                    continue
                ctrl = s if is_player else controller[s]
                types = 0 if is_player else card_types[card[s]]
                rows[r, s] = in_object_set(
                    objects, is_player, s if is_player else -1, types, ctrl, c, team[ctrl], team[c]
                )
            r += 1
    gains_616_1(rows, cols, ops, has, wanted, protector, controller, team, defense, seats, out[:hi])
