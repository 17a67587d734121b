"""The game model's cards and settings as data tables the compiled step reads (issue 28).

Everything here is derived from the Python registries, which stay the one source of truth:
the decks and their printed cards (:data:`env.scenarios.CARDS`), the permanents and spells
that proliferate and how (:data:`env.opportunities.PERMANENT_SOURCES`, :data:`env.opportunities.SPELLS`),
the replacement effects (:data:`solver.cards.CARDS`, through :mod:`env.kernels.gains`), the
variant's rules (:data:`solver.kernels.layout.VARIANTS`) and the objective's weights
(:class:`solver.Policy`, read once in integer milli-points as the compiled core reads them).
"""

from __future__ import annotations

from dataclasses import dataclass

import numpy as np
import numpy.typing as npt

from solver.core import SPECIAL, VARIANTS, CardType, Permanent, Policy, Variant, default_spec, pt_table

from ..config import EnvConfig
from ..events import _COMBAT, _DIES, _ENTERS
from ..opportunities import _ACTIVATED, _END_STEP, _LANDFALL, GIVEN, PERMANENT_SOURCES, SPELLS, Source
from ..scenarios import _POISONERS, ARCHETYPES, CARDS, CardSpec
from .gains import scope_table, wanted_kinds
from .state import Card, Catalogue

__all__ = ["OPPONENTS", "SOURCES", "Tables", "build_tables", "spec_card"]

I64 = npt.NDArray[np.int64]

#: Every source of a decision by code: the permanents, then the spells, then a given board's own.
SOURCES: tuple[Source, ...] = (*PERMANENT_SOURCES.values(), *SPELLS, GIVEN)
#: Seat policies by code, the names of :data:`env.policies.BOARD_POLICIES` (a callable is "python": the step hands
#: those decisions to Python).
OPPONENTS = ("noop", "random", "rule", "oracle", "everything", "python")

# Columns of Tables.src.
(SRC_PATTERN, SRC_PROLIFS, SRC_PRELUDE, SRC_TARGET, SRC_SAC, SRC_NEEDS, SRC_VRASKA, SRC_COMBAT, SRC_ENTERS,
 SRC_DIES, SRC_ACTIVATED, SRC_OPENING) = range(12)  # fmt: skip
PATTERNS = ("trigger", "activated", "loyalty", "spell", "given")
PRELUDE_NONE, PRELUDE_DESTROY = -1, -2
TARGET_NONE, TARGET_OPPONENT, TARGET_OWN = 0, 1, 2
# Columns of Tables.card.
(C_TYPES, C_POWER, C_TOUGHNESS, C_CHAPTERS, C_INDESTRUCTIBLE, C_INFECT, C_TOXIC, C_LEGENDARY, C_EFFECT, C_SOURCE,
 C_NAME, C_WORTH, C_TYPE_CODE) = range(13)  # fmt: skip
# Entries of Tables.ints.
(I_SEATS_ARE_TEAMS, I_SHARED, I_POISON_THRESHOLD, I_EXTRA_HEAD, I_START_LIFE, I_GOES_ON, I_CAPACITY, I_MAX_TURNS,
 I_EVENTS, I_LANDFALL, I_END_STEP, I_VRASKA, I_SPELL0, I_N_SPELLS, I_GIVEN, I_SAGA_CHAPTER, I_POISON_W, I_OPPONENT,
 I_BANDIT, I_SEQUENTIAL, I_C_MAX, I_HORIZON, I_DEFENSE, I_LOYALTY, I_LORE, I_PLUS, I_MINUS, I_POISON,
 I_VARIANT, I_ENERGY, I_EXPERIENCE, I_START_PERMANENTS) = range(32)  # fmt: skip
# Entries of Tables.floats.
(F_ATTACK, F_WITHER, F_GROW, F_ENTER, F_REMOVAL, F_LOYALTY, F_SIEGE, F_ACTIVATE, F_SPELL, F_FIZZLE,
 F_PENALTY) = range(11)  # fmt: skip
MAX_OPPONENTS = 8


def spec_card(spec: CardSpec) -> Card:
    """The catalogue card of a deck's printed card (what :func:`env.scenarios.make_permanent` makes of it)."""
    return Card.of(
        Permanent(
            id="o0",
            controller="p0",
            types=spec.types,
            name=spec.name,
            power=spec.power,
            toughness=spec.toughness,
            keywords=spec.keywords,
            subtypes=spec.subtypes,
            chapters=spec.chapters,
        )
    )


@dataclass
class Tables:
    """The arrays the compiled step reads (see the module docstring); ``as_tuple`` is their argument order."""

    src: I64
    card: I64
    card_cv: I64
    card_cvm: npt.NDArray[np.bool_]
    kind_w: I64
    presence: I64
    tough_delta: I64
    power_delta: I64
    wanted: npt.NDArray[np.bool_]
    special: I64
    ints: I64
    floats: npt.NDArray[np.float64]
    deck_off: I64
    deck_card: I64
    deck_cnt: I64
    scopes: I64
    n_scopes: I64
    factor: I64
    thr_off: I64
    thr: I64
    scores: npt.NDArray[np.float64]
    elimination: npt.NDArray[np.float64]
    gap: npt.NDArray[np.float64]
    team_threshold: I64
    poisoner: I64

    def as_tuple(self) -> tuple[np.ndarray, ...]:
        return tuple(getattr(self, name) for name in self.__dataclass_fields__)


def _milli(x: float) -> int:
    return int(np.rint(x * 1000.0))


def _type_code(card: Card, bits: int) -> int:
    """The observation's type code (:data:`env.spaces.TYPE_NAMES`) of a card, as ``View`` derives it."""
    from ..spaces import _TYPE_CODES, TYPE_NAMES

    return TYPE_NAMES.index("saga") if (card.chapters or 0) > 0 else int(_TYPE_CODES[bits])


def build_tables(
    config: EnvConfig, catalogue: Catalogue, *, opponent: int, bandit: bool, sequential: bool, penalty: float
) -> Tables:
    """Every table for ``config`` over ``catalogue`` (interning the decks' cards first)."""
    policy: Policy = config.policy
    decks = [[catalogue.card(spec_card(spec)) for spec in CARDS[a]] for a in ARCHETYPES]
    for spec_list in CARDS.values():
        for spec in spec_list:
            for kind, _, _ in spec.counters:
                catalogue.kind(kind)
    for kind in SPECIAL:
        catalogue.kind(kind)
    kinds = catalogue.kinds
    column = {k: i for i, k in enumerate(kinds)}
    names: dict[str, int] = {}
    n_cards, n_kinds = len(catalogue.cards), len(kinds)
    card = np.zeros((n_cards, 13), dtype=np.int64)
    card_cv = np.zeros((n_cards, n_kinds), dtype=np.int64)
    card_cvm = np.zeros((n_cards, n_kinds), dtype=np.bool_)
    thr_off = np.zeros(n_cards + 1, dtype=np.int64)
    thr_rows: list[tuple[int, int, int, int]] = []
    for c, entry in enumerate(catalogue.cards):
        bits = int(catalogue.types[c])
        creature = bits & int(CardType.CREATURE)
        value = catalogue.value[c]
        if not np.isnan(value):
            worth = float(value)
        elif creature:
            worth = policy.creature_base + ((entry.power or 0) + (entry.toughness or 0)) / 2
        elif (entry.chapters or 0) > 0:
            worth = policy.saga_value
        else:
            worth = 0.0
        card[c] = (
            bits, entry.power or 0, entry.toughness or 0, entry.chapters or 0, catalogue.indestructible[c],
            catalogue.infect[c], catalogue.toxic[c], catalogue.legendary[c], catalogue.effect[c], catalogue.source[c],
            names.setdefault(entry.name, len(names)), _milli(worth), _type_code(entry, bits),
        )  # fmt: skip
        for kind, v in entry.counter_values:
            card_cv[c, column[kind]] = _milli(v)
            card_cvm[c, column[kind]] = True
        for t in entry.thresholds:
            code = 1 if t.effect == "win" else 2 if t.effect == "lose" else 0
            amount = 0 if isinstance(t.effect, str) else _milli(float(t.effect))
            thr_rows.append((column[t.kind], t.at, code, amount))
        thr_off[c + 1] = len(thr_rows)
    src = np.zeros((len(SOURCES), 12), dtype=np.int64)
    for s, source in enumerate(SOURCES):
        prelude = PRELUDE_NONE
        if source.prelude == "destroy":
            prelude = PRELUDE_DESTROY
        elif source.prelude is not None:
            prelude = column[source.prelude]
        target = {None: TARGET_NONE, "opponent": TARGET_OPPONENT, "own": TARGET_OWN}[source.target]
        sac = 0
        if "sacrifice an artifact" in source.cost:
            sac = int(CardType.ARTIFACT)
        elif "sacrifice a creature" in source.cost:
            sac = int(CardType.CREATURE)
        needs = source.pattern in ("activated", "loyalty") or source.card in (_END_STEP, _LANDFALL)
        opening = s < len(PERMANENT_SOURCES) and needs and "sacrifice" not in source.cost
        src[s] = (
            PATTERNS.index(source.pattern), source.proliferates, prelude, target, sac, needs,
            source.card == "Vraska, Betrayal's Sting", source.card in _COMBAT, source.card in _ENTERS,
            source.card in _DIES, source.card in _ACTIVATED, opening,
        )  # fmt: skip
    deck_off = np.zeros(len(ARCHETYPES) + 1, dtype=np.int64)
    deck_card: list[int] = []
    deck_cnt: list[list[list[int]]] = []
    for a, archetype in enumerate(ARCHETYPES):
        deck_card.extend(decks[a])
        for spec in CARDS[archetype]:
            cnt = [[column[k], lo, hi] for k, lo, hi in spec.counters] + [[-1, 0, 0]] * (2 - len(spec.counters))
            deck_cnt.append(cnt)
        deck_off[a + 1] = len(deck_card)
    rules = VARIANTS[config.variant]
    table = scope_table(column)
    pt = pt_table(tuple(kinds))
    ints = np.zeros(32, dtype=np.int64)
    ints[I_SEATS_ARE_TEAMS] = rules.seats_are_teams
    ints[I_SHARED] = rules.shared_poison
    ints[I_POISON_THRESHOLD] = rules.poison_threshold
    ints[I_EXTRA_HEAD] = rules.extra_head_poison
    ints[I_START_LIFE] = rules.starting_life
    ints[I_GOES_ON] = config.variant is Variant.FREE_FOR_ALL  # a free-for-all goes on after a loss (800.4a)
    ints[I_CAPACITY] = config.game.capacity
    ints[I_MAX_TURNS] = config.game.max_turns
    ints[I_EVENTS] = config.game.events is not None
    ints[I_LANDFALL] = SOURCES.index(PERMANENT_SOURCES[_LANDFALL])
    ints[I_END_STEP] = SOURCES.index(PERMANENT_SOURCES[_END_STEP])
    ints[I_VRASKA] = SOURCES.index(PERMANENT_SOURCES["Vraska, Betrayal's Sting"])
    ints[I_SPELL0] = len(PERMANENT_SOURCES)
    ints[I_N_SPELLS] = len(SPELLS)
    ints[I_GIVEN] = len(SOURCES) - 1
    ints[I_SAGA_CHAPTER] = _milli(policy.saga_chapter)
    ints[I_POISON_W] = _milli(policy.weight("poison"))
    ints[I_OPPONENT] = opponent
    ints[I_BANDIT] = bandit
    ints[I_SEQUENTIAL] = sequential
    ints[I_C_MAX] = config.c_max
    ints[I_HORIZON] = config.horizon
    for name, at in (("defense", I_DEFENSE), ("loyalty", I_LOYALTY), ("lore", I_LORE), ("+1/+1", I_PLUS),
                     ("-1/-1", I_MINUS), ("poison", I_POISON)):  # fmt: skip
        ints[at] = column[name]
    from ..spaces import VARIANTS as VIEW_VARIANTS

    ints[I_VARIANT] = VIEW_VARIANTS.index(config.variant)
    ints[I_ENERGY] = catalogue.kind("energy")
    ints[I_EXPERIENCE] = catalogue.kind("experience")
    ints[I_START_PERMANENTS] = config.start_permanents
    ev = config.game.events
    floats = np.zeros(11, dtype=np.float64)
    if ev is not None:
        floats[:7] = (ev.attack, ev.wither, ev.grow, ev.enter, ev.removal, ev.loyalty, ev.siege)
    floats[7:10] = (config.game.p_activate, config.game.p_spell, config.game.p_fizzle)
    floats[F_PENALTY] = penalty
    team_threshold = np.array(
        [rules.poison_threshold + (rules.extra_head_poison if rules.shared_poison else 0) * max(k - 2, 0)
         for k in range(5)], dtype=np.int64,
    )  # fmt: skip
    return Tables(
        src=src,
        card=card,
        card_cv=card_cv,
        card_cvm=card_cvm,
        kind_w=np.array([_milli(policy.weight(k)) for k in kinds], dtype=np.int64),
        presence=np.array([default_spec(k).presence_only for k in kinds], dtype=np.int64),
        tough_delta=np.ascontiguousarray(pt[:, 1]),
        power_delta=np.ascontiguousarray(pt[:, 0]),
        wanted=wanted_kinds(kinds),
        special=np.array([column[k] for k in SPECIAL], dtype=np.int64),
        ints=ints,
        floats=floats,
        deck_off=deck_off,
        deck_card=np.array(deck_card, dtype=np.int64),
        deck_cnt=np.array(deck_cnt, dtype=np.int64).reshape(-1, 2, 3),
        scopes=table.scopes,
        n_scopes=table.n_scopes,
        factor=table.factor,
        thr_off=thr_off,
        thr=np.array(thr_rows, dtype=np.int64).reshape(-1, 4),
        scores=np.array([policy.win, policy.draw, policy.loss, policy.game_weight], dtype=np.float64),
        elimination=np.array([policy.elimination_score(k) for k in range(MAX_OPPONENTS)], dtype=np.float64),
        gap=np.array([policy.score_gap(k) if k else 1.0 for k in range(MAX_OPPONENTS)], dtype=np.float64),
        team_threshold=team_threshold,
        poisoner=np.array([a in _POISONERS for a in ARCHETYPES], dtype=np.int64),
    )
