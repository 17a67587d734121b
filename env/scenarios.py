"""Seeded boards from deck archetypes: what a proliferate decision looks like in real games.

Each seat plays one archetype (infect/poison, superfriends planeswalkers, +1/+1 counters,
-1/-1 counters, sagas and battles, or a mix) and starts with a handful of that deck's
permanents, counters already on them as a few turns of play would leave them.  Cards are
real cards with their printed stats; those whose replacement effect the solver models
(Hardened Scales, Winding Constrictor, Vorinclex, Tekuthal, ...) also put their
:class:`solver.Effect` on the board, and those that proliferate become opportunities
(:mod:`env.opportunities`).  All randomness comes from the generator passed in.
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass

import numpy as np

from solver.core import SUPPORTED_CARDS, Board, Effect, Permanent, Player, Variant

__all__ = [
    "ARCHETYPES",
    "BASE_KINDS",
    "CARDS",
    "LEGENDARY",
    "CardSpec",
    "Scenario",
    "check_archetypes",
    "make_permanent",
    "rebuild",
    "sample_scenario",
    "seats_for",
    "start_life",
    "with_columns",
]

#: Kinds every generated board carries as columns (zero where absent), so that counters of
#: these kinds can be added between decisions without rebuilding the board.
BASE_KINDS: tuple[str, ...] = ("poison", "+1/+1", "-1/-1", "loyalty", "lore", "defense")


@dataclass(frozen=True)
class CardSpec:
    """A printed card and the counters it typically carries: kind -> (fewest, most)."""

    name: str
    types: tuple[str, ...]
    power: int | None = None
    toughness: int | None = None
    keywords: tuple[str, ...] = ()
    counters: tuple[tuple[str, int, int], ...] = ()
    chapters: int | None = None
    subtypes: tuple[str, ...] = ()


def _creature(name: str, p: int, t: int, *keywords: str, counters: tuple[tuple[str, int, int], ...] = ()) -> CardSpec:
    return CardSpec(name, ("creature",), p, t, tuple(keywords), counters)


def _walker(name: str, low: int, high: int) -> CardSpec:
    return CardSpec(name, ("planeswalker",), counters=(("loyalty", low, high),))


_P1 = "+1/+1"
_M1 = "-1/-1"

CARDS: dict[str, tuple[CardSpec, ...]] = {
    "infect": (
        _creature("Glistener Elf", 1, 1, "infect"),
        _creature("Blighted Agent", 1, 1, "infect"),
        _creature("Plague Stinger", 1, 1, "flying", "infect", counters=((_P1, 0, 2),)),
        _creature("Phyrexian Crusader", 2, 2, "first strike", "infect"),
        _creature("Bloated Contaminator", 4, 4, "trample", "toxic 1"),
        _creature("Viral Drake", 1, 4, "flying", "infect"),
        _creature("Thrummingbird", 1, 1, "flying"),
        CardSpec("Contagion Clasp", ("artifact",)),
        CardSpec("Throne of Geth", ("artifact",)),
        CardSpec("Ichor Wellspring", ("artifact",)),
    ),
    "superfriends": (
        _walker("Nissa, Who Shakes the World", 3, 7),
        _walker("Teferi, Hero of Dominaria", 3, 6),
        _walker("Jace, the Mind Sculptor", 2, 5),
        _walker("Vraska, Betrayal's Sting", 3, 6),
        _walker("Tamiyo, Field Researcher", 2, 5),
        _creature("Atraxa, Praetors' Voice", 4, 4, "flying", "vigilance", "deathtouch", "lifelink"),
        CardSpec("Karn's Bastion", ("land",)),
        CardSpec("Doubling Season", ("enchantment",)),
        _creature("Guildpact Informant", 1, 1, "flying"),
    ),
    "plus_counters": (
        CardSpec("Hardened Scales", ("enchantment",)),
        _creature("Winding Constrictor", 2, 3),
        CardSpec("Walking Ballista", ("artifact", "creature"), 0, 0, counters=((_P1, 1, 4),)),
        _creature("Luminarch Aspirant", 1, 1, counters=((_P1, 0, 3),)),
        _creature("Champion of Lambholt", 1, 1, counters=((_P1, 0, 4),)),
        _creature("Evolution Sage", 3, 2),
        _creature("Bloom Hulk", 4, 4, counters=((_P1, 0, 2),)),
        _creature("Pollenbright Druid", 1, 1, counters=((_P1, 0, 1),)),
        _creature("Grateful Apparition", 1, 1, "flying"),
    ),
    "minus_counters": (
        CardSpec("Contagion Engine", ("artifact",)),
        _creature("Vizier of Remedies", 2, 1),
        _creature("Yawgmoth, Thran Physician", 2, 4, "protection from humans"),
        _creature("Carnifex Demon", 6, 6, "flying", counters=((_M1, 0, 2),)),
        _creature("Melira, Sylvok Outcast", 2, 2),
        _creature("Plaguemaw Beast", 4, 3),
        _creature("Core Prowler", 2, 2, "infect"),
        _creature("Tekuthal, Inquiry Dominus", 3, 5, "flying"),
    ),
    "sagas_battles": (
        CardSpec("History of Benalia", ("enchantment",), chapters=3, subtypes=("saga",), counters=(("lore", 1, 2),)),
        CardSpec("The Eldest Reborn", ("enchantment",), chapters=3, subtypes=("saga",), counters=(("lore", 1, 2),)),
        CardSpec("Urza's Saga", ("enchantment", "land"), chapters=3, subtypes=("saga",), counters=(("lore", 1, 2),)),
        CardSpec("The Akroan War", ("enchantment",), chapters=3, subtypes=("saga",), counters=(("lore", 1, 2),)),
        CardSpec("Invasion of Zendikar", ("battle",), subtypes=("siege",), counters=(("defense", 1, 3),)),
        CardSpec("Invasion of Ergamon", ("battle",), subtypes=("siege",), counters=(("defense", 2, 5),)),
        _creature("Huatli's Raptor", 2, 3, "vigilance"),
        _creature("Martyr for the Cause", 2, 2),
    ),
}
#: The mixed deck: every other card of each named deck, plus Vorinclex.  It is built from the decks
#: listed above it by name, so the order of :data:`ARCHETYPES` does not matter.
CARDS["mixed"] = (
    *(spec for cards in tuple(CARDS.values()) for spec in cards[::2]),
    _creature("Vorinclex, Monstrous Raider", 6, 6, "trample", "haste"),
)

#: The deck archetypes a seat can play, in the order scenarios draw from.
ARCHETYPES: tuple[str, ...] = tuple(CARDS)


def check_archetypes(archetypes: Sequence[str] | None) -> tuple[str, ...] | None:
    """``archetypes`` as a tuple, or ValueError naming the known ones (None means all of them)."""
    if archetypes is None:
        return None
    if isinstance(archetypes, str):
        raise ValueError(f"archetypes must be a sequence of names such as ('infect',), not the string {archetypes!r}")
    chosen = tuple(archetypes)
    unknown = [a for a in chosen if a not in CARDS]
    if unknown or not chosen:
        what = f"unknown archetype {unknown[0]!r}" if unknown else "no archetype given"
        raise ValueError(f"archetypes: {what}; known: {', '.join(ARCHETYPES)}")
    return chosen


#: Legendary cards: a seat never plays a second copy of one it controls (the legend rule, 704.5j, would put
#: one into the graveyard at once).  This also keeps Tekuthal's doubling to one per player.
LEGENDARY: frozenset[str] = frozenset(
    {
        "Atraxa, Praetors' Voice",
        "Nissa, Who Shakes the World",
        "Teferi, Hero of Dominaria",
        "Jace, the Mind Sculptor",
        "Vraska, Betrayal's Sting",
        "Tamiyo, Field Researcher",
        "Yawgmoth, Thran Physician",
        "Melira, Sylvok Outcast",
        "Tekuthal, Inquiry Dominus",
        "Vorinclex, Monstrous Raider",
    }
)

#: Archetypes whose players start with some poison on their opponents.
_POISONERS = frozenset({"infect", "mixed"})


@dataclass(frozen=True)
class Scenario:
    """A generated game start: the board, the seats in turn order and each seat's archetype."""

    board: Board
    seats: tuple[str, ...]
    archetypes: dict[str, str]


def seats_for(variant: Variant) -> tuple[tuple[str, str], ...]:
    """(player id, team) per seat in turn order; in 2HG team A's heads share a turn, then team B's (810.2)."""
    if variant is Variant.DUEL:
        return (("p0", "A"), ("p1", "B"))
    if variant is Variant.TWO_HEADED_GIANT:
        return (("p0", "A"), ("p1", "A"), ("p2", "B"), ("p3", "B"))
    return (("p0", "A"), ("p1", "B"), ("p2", "C"), ("p3", "D"))


def start_life(variant: Variant) -> int:
    """20 each (103.4), 30 per 2HG team (810.4)."""
    return 30 if variant is Variant.TWO_HEADED_GIANT else 20


def make_permanent(
    spec: CardSpec, obj_id: str, controller: str, protector: str | None, rng: np.random.Generator
) -> Permanent:
    """One permanent of ``spec`` with its typical counters drawn from ``rng``."""
    counters = {kind: int(rng.integers(low, high + 1)) for kind, low, high in spec.counters}
    return Permanent(
        id=obj_id,
        controller=controller,
        types=spec.types,
        name=spec.name,
        power=spec.power,
        toughness=spec.toughness,
        keywords=spec.keywords,
        subtypes=spec.subtypes,
        chapters=spec.chapters,
        protector=protector if "battle" in spec.types else None,
        counters={k: v for k, v in counters.items() if v > 0},
    )


def sample_scenario(
    variant: Variant,
    rng: np.random.Generator,
    *,
    max_permanents: int,
    archetypes: Sequence[str] | None = None,
    actor: str = "p0",
) -> Scenario:
    """A seeded game start with at most ``max_permanents`` permanents, ``actor`` proliferating."""
    seat_teams = seats_for(variant)
    seats = tuple(seat for seat, _ in seat_teams)
    pool = check_archetypes(archetypes) or ARCHETYPES
    decks = {seat: str(pool[int(rng.integers(len(pool)))]) for seat in seats}
    if variant is Variant.TWO_HEADED_GIANT:  # teammates share a deck plan
        decks["p1"], decks["p3"] = decks["p0"], decks["p2"]
    per_seat = max(1, max_permanents // len(seats))
    permanents: list[Permanent] = []
    effects: list[Effect] = []
    for seat, team in seat_teams:
        cards = CARDS[decks[seat]]
        count = int(rng.integers(max(1, per_seat // 3), per_seat + 1))
        opponents = [s for s, t in seat_teams if t != team]
        legends: set[str] = set()
        for _ in range(count):
            spec = cards[int(rng.integers(len(cards)))]
            if spec.name in legends:
                continue
            if spec.name in LEGENDARY:
                legends.add(spec.name)
            protector = opponents[int(rng.integers(len(opponents)))]
            perm = make_permanent(spec, f"o{len(permanents)}", seat, protector, rng)
            permanents.append(perm)
            if spec.name in SUPPORTED_CARDS:
                effects.append(Effect(spec.name, seat))
    life = start_life(variant)
    players = []
    for seat, team in seat_teams:
        counters: dict[str, int] = {}
        poisoned_by = {decks[s] for s, t in seat_teams if t != team} & _POISONERS
        if poisoned_by:
            counters["poison"] = int(rng.integers(0, 7))
        if rng.random() < 0.3:
            counters["energy"] = int(rng.integers(1, 5))
        if rng.random() < 0.2:
            counters["experience"] = int(rng.integers(1, 4))
        players.append(Player(seat, team, life, {k: v for k, v in counters.items() if v > 0}))
    board = rebuild(variant, actor, 1, players, permanents, effects)
    return Scenario(board=board, seats=seats, archetypes=decks)


def rebuild(
    variant: Variant | str,
    proliferator: str,
    proliferates: int,
    players: Sequence[Player],
    permanents: Sequence[Permanent],
    effects: Sequence[Effect],
) -> Board:
    """A board with the :data:`BASE_KINDS` columns present (zero where absent)."""
    first = players[0]
    padded = {kind: 0 for kind in BASE_KINDS} | dict(first.counters)
    players = [Player(first.id, first.team, first.life, padded), *players[1:]]
    return Board.build(
        variant=variant,
        proliferator=proliferator,
        players=players,
        permanents=permanents,
        effects=effects,
        proliferates=proliferates,
    )


def with_columns(board: Board) -> Board:
    """``board`` with every :data:`BASE_KINDS` column (rebuilt once if one is missing)."""
    if all(kind in board.kinds for kind in BASE_KINDS):
        return board
    return rebuild(
        board.variant, board.proliferator_id, board.proliferates, board.players, board.permanents, board.effects
    )
