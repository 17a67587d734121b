"""Every game's state as fixed-slot arrays, allocated once and kept between steps (issue 28).

The layout of game ``g`` (the first axis of every array) mirrors a :class:`solver.Board`:

* slots ``0 .. seats-1`` are the players, one per seat in turn order (absolute: slot 0 is
  seat 0); a seat the game does not have, or a free-for-all player who has left (800.4a),
  is not ``player_in``;
* slots ``seats .. seats + n_perm - 1`` are the permanents in board order (the order they
  entered); when one leaves, the later ones move up, so the order never changes while they stay;
* counters are one dense ``(N, slots, kinds)`` table over the :class:`Catalogue`'s kinds;
* what a permanent is (name, types, printed power and toughness, keywords, Saga chapters,
  thresholds, counter values) is its *card*, an entry of the catalogue, so a slot holds a card
  code and its changing state only (counters, damage, controller, protector, phasing);
* replacement effects in play are ``(card, controller seat, level)`` rows per game (an effect
  leaves with the last permanent of its card under its controller).

:meth:`GameArrays.load` puts a :class:`solver.Board` into one game's slots and
:meth:`GameArrays.board` builds the board back, so every rule the solver has applies to a
game in arrays unchanged, and the Python paths (a callable opponent, ``decision_board()``)
see the same board the compiled step works on.
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from dataclasses import dataclass, field

import numpy as np
import numpy.typing as npt

from solver.core import CARD_TYPE_NAMES, Board, Effect, Permanent, Player, Threshold, Variant
from solver.core import CARDS as EFFECT_CARDS

from ..opportunities import PERMANENT_SOURCES, SPELLS
from ..scenarios import LEGENDARY
from ..spaces import KIND_VOCABULARY

__all__ = ["EFFECT_NAMES", "SOURCE_NAMES", "Card", "Catalogue", "GameArrays", "scratch_width"]

#: Cards with a modelled replacement effect or proliferate factor, by code (the registry's order).
EFFECT_NAMES: tuple[str, ...] = tuple(EFFECT_CARDS)
#: Permanents that proliferate (:data:`env.opportunities.PERMANENT_SOURCES`), by code.
SOURCE_NAMES: tuple[str, ...] = tuple(PERMANENT_SOURCES)

I64 = npt.NDArray[np.int64]


@dataclass(frozen=True)
class Card:
    """What a permanent is, apart from its changing state: one catalogue entry per distinct printing."""

    name: str
    types: tuple[str, ...]
    power: int | None
    toughness: int | None
    keywords: tuple[str, ...]
    subtypes: tuple[str, ...]
    chapters: int | None
    value: float | None
    thresholds: tuple[Threshold, ...]
    counter_values: tuple[tuple[str, float], ...]

    @classmethod
    def of(cls, perm: Permanent) -> Card:
        return cls(
            perm.name,
            tuple(perm.types),
            perm.power,
            perm.toughness,
            tuple(perm.keywords),
            tuple(perm.subtypes),
            perm.chapters,
            perm.value,
            tuple(perm.thresholds),
            tuple(sorted(perm.counter_values.items())),
        )


def _toxic(keywords: Sequence[str]) -> int:
    """The total toxic of a permanent's keywords (702.164: "toxic N")."""
    return sum(int(k.split()[1]) for k in keywords if k.startswith("toxic "))


@dataclass
class Catalogue:
    """The cards and counter kinds an env's games have seen, interned, with their attributes as arrays.

    Codes never change once given, so arrays indexed by a code stay valid as the catalogue
    grows; the kernels read the arrays (``types[card[g, s]]``).
    """

    kinds: list[str] = field(default_factory=lambda: list(KIND_VOCABULARY))
    cards: list[Card] = field(default_factory=list)
    ids: list[str] = field(default_factory=list)  # object ids that are not "o<n>", by -(uid + 1)
    _card_code: dict[Card, int] = field(default_factory=dict)
    _kind_code: dict[str, int] = field(default_factory=dict)
    _id_code: dict[str, int] = field(default_factory=dict)

    def __post_init__(self) -> None:
        self._kind_code = {k: i for i, k in enumerate(self.kinds)}
        self.types = np.zeros(0, dtype=np.int64)
        self.power = np.zeros(0, dtype=np.int64)
        self.toughness = np.zeros(0, dtype=np.int64)
        self.chapters = np.zeros(0, dtype=np.int64)
        self.indestructible = np.zeros(0, dtype=np.bool_)
        self.infect = np.zeros(0, dtype=np.bool_)
        self.toxic = np.zeros(0, dtype=np.int64)
        self.legendary = np.zeros(0, dtype=np.bool_)
        self.effect = np.zeros(0, dtype=np.int64)
        self.source = np.zeros(0, dtype=np.int64)
        self.value = np.zeros(0, dtype=np.float64)

    def kind(self, name: str) -> int:
        """The column of a counter kind (a new column for a kind not seen yet)."""
        code = self._kind_code.get(name)
        if code is None:
            code = self._kind_code[name] = len(self.kinds)
            self.kinds.append(name)
        return code

    def card(self, card: Card) -> int:
        """The code of ``card`` (interned: equal cards share one)."""
        code = self._card_code.get(card)
        if code is not None:
            return code
        for t in card.thresholds:
            self.kind(t.kind)
        for k, _ in card.counter_values:
            self.kind(k)
        code = self._card_code[card] = len(self.cards)
        self.cards.append(card)
        bits = 0
        for name in card.types:
            bits |= int(CARD_TYPE_NAMES[name])
        row = {
            "types": bits,
            "power": card.power or 0,
            "toughness": card.toughness or 0,
            "chapters": card.chapters or 0,
            "indestructible": "indestructible" in card.keywords,
            "infect": "infect" in card.keywords,
            "toxic": _toxic(card.keywords),
            "legendary": card.name in LEGENDARY,
            "effect": EFFECT_NAMES.index(card.name) if card.name in EFFECT_CARDS else -1,
            "source": SOURCE_NAMES.index(card.name) if card.name in PERMANENT_SOURCES else -1,
            "value": np.nan if card.value is None else card.value,
        }
        for name, value in row.items():
            array = getattr(self, name)
            setattr(self, name, np.append(array, np.array([value], dtype=array.dtype)))
        return code

    def uid(self, obj_id: str) -> int:
        """An object id as a number: ``n`` for ``"o<n>"``, else a negative code into :attr:`ids`."""
        if obj_id.startswith("o") and obj_id[1:].isdigit() and str(int(obj_id[1:])) == obj_id[1:]:
            return int(obj_id[1:])
        code = self._id_code.get(obj_id)
        if code is None:
            code = self._id_code[obj_id] = len(self.ids)
            self.ids.append(obj_id)
        return -(code + 1)

    def object_id(self, uid: int) -> str:
        return f"o{uid}" if uid >= 0 else self.ids[-uid - 1]


#: Replacement effects one game can have in play at once.
MAX_EFFECTS = 64

#: Columns of :attr:`GameArrays.obj` (per slot).
O_CARD, O_UID, O_CTRL, O_PROT, O_DAMAGE, O_PHASED = range(6)
#: Columns of :attr:`GameArrays.seat` (per seat).
S_IN, S_LIFE, S_TEAM, S_LOST, S_DECK = range(5)
#: Columns of :attr:`GameArrays.game` (per game): the game, the queue, the decision being made.
(G_NPERM, G_NEFF, G_PROLIF, G_PROLIFS, G_NEXT_SEAT, G_TURNS, G_NEXT_UID, G_OVER, G_TRUNC, G_QHEAD, G_QLEN,
 G_PENDING, G_PSEAT, G_PSRC, G_PTARGET, G_PSAC, G_PROUNDS, G_PROUND, G_STEPS, G_AGENT, G_NPICK, G_ERROR,
 G_DECISIONS, G_NSEATS, G_RESULT) = range(25)  # fmt: skip
N_GAME_FIELDS = 25
#: Columns of a queued opportunity: seat, source code, target uid, sacrifice uid (-1: none), fizzled.
Q_SEAT, Q_SRC, Q_TARGET, Q_SAC, Q_FIZZLED = range(5)
#: Opportunities one game can have queued at once (a turn queues a few).
MAX_QUEUE = 64
#: Proliferates one decision can have (Contagion Engine under Tekuthal is 4; a given board up to 8).
MAX_ROUNDS = 8
#: Rows of :attr:`GameArrays.scratch` (int64) per game: the working lists of the compiled game's spine
#: (:mod:`env.kernels.game`), kept between steps so that a step allocates nothing.  A function's own lists are
#: rows ``X_FRAME + 0 ..`` (at most :data:`N_FRAME`): the functions that use the frame never run inside one another,
#: but ``cast`` runs inside two of them (its list is :data:`X_LEGAL`) and ``turn`` keeps its triggers
#: (:data:`X_TRIG_SEAT`, :data:`X_TRIG_SRC`) around ``turn_events``.
N_FRAME = 8
X_FRAME, X_LEGAL, X_TRIG_SEAT, X_TRIG_SRC = 0, N_FRAME, N_FRAME + 1, N_FRAME + 2
N_X = N_FRAME + 3
#: Rows of :attr:`GameArrays.marks` (bool) per game, as :data:`N_X`'s.
(B_DIES, B_GONE, B_LOSERS,  # settle_game
 B_LOST_GONE,  # lose
 B_REMOVED,  # remove_uid, turn_events
 B_PLAYER_IN,  # begin
 B_SECOND,  # take_action
 ) = range(7)  # fmt: skip
N_B = 7


def scratch_width(slots: int) -> int:
    """The length of a scratch row: a slot each, a spell candidate each (the opening), and a turn's extra
    triggers (its permanent entering and its removal)."""
    return slots + len(SPELLS) + 8


class GameArrays:
    """The state of ``n`` games of one variant in fixed-slot arrays (see the module docstring).

    Per-slot, per-seat and per-game integers are packed in one array each (``obj``, ``seat``,
    ``game``, columns named by the ``O_``, ``S_`` and ``G_`` constants) so that a kernel takes a
    few arrays; the named attributes (``card``, ``life``, ``n_perm`` ...) are views into them.
    """

    def __init__(self, n: int, variant: Variant, seats: int, slots: int, catalogue: Catalogue | None = None) -> None:
        self.n, self.variant, self.seats, self.slots = n, variant, seats, slots
        self.catalogue = catalogue or Catalogue()
        k = len(self.catalogue.kinds)
        self.counts = np.zeros((n, slots, k), dtype=np.int64)
        self.gain = np.zeros((n, slots, k), dtype=np.int64)
        self.obj = np.zeros((n, slots, 6), dtype=np.int64)
        self.obj[:, :, O_CARD] = -1
        self.obj[:, :, O_CTRL] = -1
        self.obj[:, :, O_PROT] = -1
        self.seat = np.zeros((n, seats, 5), dtype=np.int64)
        self.game = np.zeros((n, N_GAME_FIELDS), dtype=np.int64)
        self.game[:, G_PROLIFS] = 1
        self.effects = np.zeros((n, MAX_EFFECTS, 3), dtype=np.int64)
        self.queue = np.zeros((n, MAX_QUEUE, 5), dtype=np.int64)
        self.chosen = np.zeros((n, MAX_ROUNDS, slots), dtype=np.int8)
        self.recipients = np.full((n, MAX_ROUNDS, 2), -1, dtype=np.int64)
        self.picked = np.zeros((n, slots), dtype=np.int8)
        self.order = np.zeros((n, slots), dtype=np.int64)
        self.rng = np.zeros(n, dtype=np.uint64)
        #: The spine's working rows (:data:`N_X`, :data:`N_B`) and the counts before a resolution, per game.
        self.scratch = np.zeros((n, N_X, scratch_width(slots)), dtype=np.int64)
        self.marks = np.zeros((n, N_B, scratch_width(slots)), dtype=np.bool_)
        self.start = np.zeros((n, slots, k), dtype=np.int64)
        #: Per game: the seats' player ids and the team names (Python: they change only at a reset).
        self.seat_ids: list[tuple[str, ...]] = [()] * n
        self.team_names: list[tuple[str, ...]] = [()] * n

    # Views into the packed arrays, by name.
    card = property(lambda self: self.obj[:, :, O_CARD])
    uid = property(lambda self: self.obj[:, :, O_UID])
    controller = property(lambda self: self.obj[:, :, O_CTRL])
    protector = property(lambda self: self.obj[:, :, O_PROT])
    damage = property(lambda self: self.obj[:, :, O_DAMAGE])
    phased = property(lambda self: self.obj[:, :, O_PHASED])
    player_in = property(lambda self: self.seat[:, :, S_IN])
    life = property(lambda self: self.seat[:, :, S_LIFE])
    team = property(lambda self: self.seat[:, :, S_TEAM])
    n_perm = property(lambda self: self.game[:, G_NPERM])
    n_effects = property(lambda self: self.game[:, G_NEFF])
    proliferator = property(lambda self: self.game[:, G_PROLIF])
    proliferates = property(lambda self: self.game[:, G_PROLIFS])

    @property
    def nbytes(self) -> int:
        """Bytes held by the arrays (the resident cost of the games' state)."""
        return sum(v.nbytes for v in vars(self).values() if isinstance(v, np.ndarray))

    def _widen(self) -> None:
        """Add counter columns for kinds the catalogue gained (rare: a given board with a new kind)."""
        k = len(self.catalogue.kinds)
        if k > self.counts.shape[2]:
            for name in ("counts", "gain", "start"):
                old = getattr(self, name)
                wider = np.zeros((self.n, self.slots, k), dtype=np.int64)
                wider[:, :, : old.shape[2]] = old
                setattr(self, name, wider)

    # ------------------------------------------------------------------ Board <-> arrays
    def load(self, g: int, board: Board) -> None:
        """Put ``board`` into game ``g``: its players on seats 0.., its permanents in board order.

        ValueError if it has more players than seats or more permanents than slots are left.
        """
        players, permanents = board.players, board.permanents
        if len(players) > self.seats:
            raise ValueError(f"the board has {len(players)} players; at most {self.seats} here")
        if self.seats + len(permanents) > self.slots:
            raise ValueError(
                f"the board has {len(permanents)} permanents and {self.seats} seats, more than the {self.slots} "
                "slots; pass a larger slots= (objects are never truncated)"
            )
        if len(board.effects) > MAX_EFFECTS:
            raise ValueError(f"the board has {len(board.effects)} effects; at most {MAX_EFFECTS} here")
        cat = self.catalogue
        columns = [cat.kind(kind) for kind in board.kinds]
        codes = [cat.card(Card.of(p)) for p in permanents]
        self._widen()
        seat_of = {p.id: i for i, p in enumerate(players)}
        self.counts[g] = 0
        self.obj[g] = 0
        self.obj[g, :, O_CARD] = -1
        self.obj[g, :, O_CTRL] = -1
        self.obj[g, :, O_PROT] = -1
        self.seat[g] = 0
        self.seat[g, :, S_TEAM] = np.arange(self.seats)
        self.game[g] = 0
        self.queue[g] = 0
        first, n_perm = board.n_players, len(permanents)
        rows = np.concatenate([np.arange(first), self.seats + np.arange(n_perm)]).astype(np.int64)
        self.counts[g][np.ix_(rows, np.array(columns, dtype=np.int64))] = board.counts
        self.player_in[g, :first] = True
        self.life[g, :first] = board.life
        self.team[g, :first] = board.team
        self.controller[g, :first] = np.arange(first)
        perm_slots = self.seats + np.arange(n_perm)
        self.card[g, perm_slots] = codes
        self.uid[g, perm_slots] = [cat.uid(p.id) for p in permanents]
        self.controller[g, perm_slots] = board.controller[first:]
        self.protector[g, perm_slots] = board.protector[first:]
        self.damage[g, perm_slots] = board.damage[first:]
        self.phased[g, perm_slots] = board.phased_out[first:]
        self.n_perm[g] = n_perm
        self.game[g, G_NEXT_UID] = max([0, *(u + 1 for u in self.uid[g, perm_slots].tolist())])
        self.n_effects[g] = len(board.effects)
        self.effects[g] = 0
        for e, effect in enumerate(board.effects):
            self.effects[g, e] = (EFFECT_NAMES.index(effect.card), seat_of[effect.controller], effect.level)
        self.proliferator[g] = board.proliferator
        self.proliferates[g] = board.proliferates
        self.game[g, G_NSEATS] = first
        self.seat_ids[g] = tuple(p.id for p in players)
        self.team_names[g] = board.team_names

    def board(self, g: int) -> Board:
        """Game ``g`` as a :class:`solver.Board` (players in seat order, permanents in slot order)."""
        cat = self.catalogue
        kinds = cat.kinds
        ids, teams = self.seat_ids[g], self.team_names[g]
        counts = self.counts[g]
        in_game = self.player_in[g].tolist()
        players = [
            Player(ids[s], teams[int(self.team[g, s])], int(self.life[g, s]), _held(kinds, counts[s]))
            for s in range(self.seats)
            if in_game[s]
        ]
        permanents = []
        for s in range(self.seats, self.seats + int(self.n_perm[g])):
            card = cat.cards[int(self.card[g, s])]
            protector = int(self.protector[g, s])
            permanents.append(
                Permanent(
                    id=cat.object_id(int(self.uid[g, s])),
                    controller=ids[int(self.controller[g, s])],
                    types=card.types,
                    name=card.name,
                    power=card.power,
                    toughness=card.toughness,
                    damage=int(self.damage[g, s]),
                    counters=_held(kinds, counts[s]),
                    keywords=card.keywords,
                    subtypes=card.subtypes,
                    chapters=card.chapters,
                    protector=ids[protector] if protector >= 0 else None,
                    phased_out=bool(self.phased[g, s]),
                    value=card.value,
                    thresholds=card.thresholds,
                    counter_values=dict(card.counter_values),
                )
            )
        effects = [
            Effect(EFFECT_NAMES[int(c)], ids[int(seat)], int(level))
            for c, seat, level in self.effects[g, : int(self.n_effects[g])].tolist()
        ]
        return Board.build(
            variant=self.variant,
            proliferator=ids[int(self.proliferator[g])],
            players=players,
            permanents=permanents,
            effects=effects,
            proliferates=int(self.proliferates[g]),
        )


def _held(kinds: Sequence[str], row: I64) -> Mapping[str, int]:
    return {kinds[k]: int(v) for k, v in enumerate(row.tolist()) if v}
