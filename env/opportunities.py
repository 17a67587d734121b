"""Where proliferate decisions come from: real cards and how they proliferate (their Oracle text, 701.34).

A decision is never handed out for free.  It comes from a triggered ability (Atraxa at
the beginning of its controller's end step, Thrummingbird on combat damage, Martyr for
the Cause when it dies, Bloom Hulk when it enters), an activated ability whose cost is
paid (mana and tap, or sacrificing an artifact or creature), a planeswalker's loyalty
ability, or a spell.  "Put a counter on target X, then proliferate" spells (Grim
Affliction, Courage in Crisis) put their counter first, in the same resolution and with
no state-based actions in between (704.3), so the new counter is there to be
proliferated.  A spell whose only target is gone when it resolves does nothing at all,
so it does not proliferate either (608.2b).
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Any

import numpy as np

from solver.core import Board, CardType

from .boardops import add_counters, lose_life, remove_ids, retarget

__all__ = [
    "GIVEN",
    "PERMANENT_SOURCES",
    "SPELLS",
    "Opportunity",
    "Prepared",
    "Source",
    "opening",
    "prepare",
    "turn_opportunities",
]


@dataclass(frozen=True)
class Source:
    """How one card proliferates: ``pattern`` is trigger, activated, loyalty or spell."""

    card: str
    pattern: str
    text: str
    cost: str = ""
    proliferates: int = 1
    prelude: str | None = None
    target: str | None = None


@dataclass(frozen=True)
class Opportunity:
    """One proliferate about to happen: who, from what, and what happens first."""

    source: Source
    controller: str
    target: str | None = None
    sacrifice: str | None = None
    fizzled: bool = False

    def to_info(self) -> dict[str, Any]:
        return {
            "card": self.source.card,
            "pattern": self.source.pattern,
            "text": self.source.text,
            "cost": self.source.cost,
            "controller": self.controller,
            "proliferates": self.source.proliferates,
            "target": self.target,
            "sacrifice": self.sacrifice,
            "fizzled": self.fizzled,
        }


def _sources(*items: Source) -> dict[str, Source]:
    return {s.card: s for s in items}


#: Permanents that proliferate, by card name, with the part of their Oracle text that does it.
PERMANENT_SOURCES: dict[str, Source] = _sources(
    Source("Atraxa, Praetors' Voice", "trigger", "at the beginning of your end step, proliferate"),
    Source("Contagion Clasp", "activated", "{4}, {T}: proliferate", cost="{4}, {T}"),
    Source("Contagion Engine", "activated", "{4}, {T}: proliferate, then proliferate again", "{4}, {T}", 2),
    Source("Karn's Bastion", "activated", "{4}, {T}: proliferate", cost="{4}, {T}"),
    Source("Viral Drake", "activated", "{3}{U}: proliferate", cost="{3}{U}"),
    Source("Throne of Geth", "activated", "{T}, sacrifice an artifact: proliferate", "{T}, sacrifice an artifact"),
    Source("Plaguemaw Beast", "activated", "{T}, sacrifice a creature: proliferate", "{T}, sacrifice a creature"),
    Source("Yawgmoth, Thran Physician", "activated", "{B}{B}, discard a card: proliferate", "{B}{B}, discard a card"),
    Source("Vraska, Betrayal's Sting", "loyalty", "0: draw a card, lose 1 life, proliferate", "0 loyalty, 1 life"),
    Source("Evolution Sage", "trigger", "landfall: proliferate"),
    Source("Thrummingbird", "trigger", "combat damage to a player: proliferate"),
    Source("Bloated Contaminator", "trigger", "combat damage to a player: proliferate"),
    Source("Grateful Apparition", "trigger", "combat damage to a player or planeswalker: proliferate"),
    Source("Guildpact Informant", "trigger", "combat damage to a player or planeswalker: proliferate"),
    Source("Core Prowler", "trigger", "when it dies, proliferate"),
    Source("Martyr for the Cause", "trigger", "when it dies, proliferate"),
    Source("Bloom Hulk", "trigger", "when it enters, proliferate"),
    Source("Huatli's Raptor", "trigger", "when it enters, proliferate"),
)

#: Spells a seat may cast on its turn.  ``target`` says whose creature the prelude needs.
SPELLS: tuple[Source, ...] = (
    Source(
        "Grim Affliction",
        "spell",
        "put a -1/-1 counter on target creature, then proliferate",
        "{2}{B}",
        1,
        "-1/-1",
        "opponent",
    ),
    Source(
        "Courage in Crisis",
        "spell",
        "put a +1/+1 counter on target creature, then proliferate",
        "{2}{G}",
        1,
        "+1/+1",
        "own",
    ),
    Source(
        "Spread the Sickness", "spell", "destroy target creature, then proliferate", "{4}{B}", 1, "destroy", "opponent"
    ),
    Source("Steady Progress", "spell", "proliferate, draw a card", "{2}{U}"),
)

#: The source of a decision on a board passed to ``reset(options={"board": ...})``.
GIVEN = Source("the given board", "given", "the board's own proliferate")

_CREATURE = int(CardType.CREATURE)
_ACTIVATED = frozenset(s.card for s in PERMANENT_SOURCES.values() if s.pattern in ("activated", "loyalty"))
_LANDFALL = "Evolution Sage"
_END_STEP = "Atraxa, Praetors' Voice"


def turn_opportunities(
    board: Board, seat: str, rng: np.random.Generator, p_activate: float, p_spell: float, p_fizzle: float
) -> list[Opportunity]:
    """The proliferates ``seat`` chooses to make this turn, in the order they happen.

    Event triggers (combat damage, dying, entering) are queued by the game as they fire.
    Activated abilities are used when mana allows (``p_activate``), a spell is cast with
    probability ``p_spell``, and Atraxa triggers at the end step.
    """
    out: list[Opportunity] = []
    row = board.index[seat]
    controller, phased, all_names = board.controller.tolist(), board.phased_out.tolist(), board.names.tolist()
    # Plain lists: a seat has a handful of permanents, fewer than numpy calls would cost.
    mine = [i for i in range(board.n_players, board.n_objects) if controller[i] == row and not phased[i]]
    names = [all_names[i] for i in mine]
    if _LANDFALL in names and rng.random() < 0.6:
        out.append(Opportunity(PERMANENT_SOURCES[_LANDFALL], seat))
    for i, name in zip(mine, names, strict=True):
        if name not in _ACTIVATED or rng.random() >= p_activate:
            continue
        source = PERMANENT_SOURCES[name]
        sacrifice = None
        if "sacrifice an artifact" in source.cost or "sacrifice a creature" in source.cost:
            wanted = CardType.ARTIFACT if "artifact" in source.cost else CardType.CREATURE
            types = board.types.tolist()
            fodder = [j for j in mine if j != i and types[j] & int(wanted)]
            if not fodder:
                continue
            sacrifice = board.ids[fodder[int(rng.integers(len(fodder)))]]
        out.append(Opportunity(source, seat, sacrifice=sacrifice))
    if rng.random() < p_spell:
        spell = SPELLS[int(rng.integers(len(SPELLS)))]
        opportunity = _cast(board, seat, spell, rng, p_fizzle)
        if opportunity is not None:
            out.append(opportunity)
    if _END_STEP in names:
        out.append(Opportunity(PERMANENT_SOURCES[_END_STEP], seat))
    return out


def opening(board: Board, seat: str, rng: np.random.Generator) -> Opportunity:
    """A proliferate that surely happens, to start an episode on: a source ``seat`` controls or a spell."""
    row = board.index[seat]
    mine = [str(board.names[i]) for i in range(board.n_players, board.n_objects) if board.controller[i] == row]
    candidates = [
        Opportunity(PERMANENT_SOURCES[name], seat)
        for name in dict.fromkeys(mine)
        if (name in _ACTIVATED or name in (_END_STEP, _LANDFALL)) and "sacrifice" not in PERMANENT_SOURCES[name].cost
    ]
    for spell in SPELLS:
        cast = _cast(board, seat, spell, rng, 0.0)
        if cast is not None:
            candidates.append(cast)
    return candidates[int(rng.integers(len(candidates)))]


def _cast(board: Board, seat: str, spell: Source, rng: np.random.Generator, p_fizzle: float) -> Opportunity | None:
    """A cast spell with its target chosen, or None when it has no legal target (it cannot be cast)."""
    if spell.target is None:
        return Opportunity(spell, seat)
    row = board.index[seat]
    types, phased = board.types.tolist(), board.phased_out.tolist()
    team, controller = board.team.tolist(), board.controller.tolist()
    own = spell.target == "own"
    legal = [
        i
        for i in range(board.n_players, board.n_objects)
        if types[i] & _CREATURE and not phased[i] and (team[controller[i]] == team[row]) is own
    ]
    if not legal:
        return None
    target = board.ids[legal[int(rng.integers(len(legal)))]]
    return Opportunity(spell, seat, target=target, fizzled=bool(rng.random() < p_fizzle))


@dataclass(frozen=True)
class Prepared:
    """The board after an opportunity's costs and first part; ``happens`` is False if nothing proliferates."""

    board: Board
    happens: bool
    reason: str = ""


def prepare(board: Board, opportunity: Opportunity) -> Prepared:
    """Pay the costs and resolve what comes before the proliferate.

    An ability whose permanent has left can no longer be activated, and Atraxa must still be
    there at the end step.  A fizzled spell's target left the battlefield in response (it is
    removed here) and the spell does nothing at all (608.2b): no counter, no proliferate.
    """
    source = opportunity.source
    needs_source = source.pattern in ("activated", "loyalty") or source.card in (_END_STEP, _LANDFALL)
    if needs_source and not _controls(board, opportunity.controller, source.card):
        return Prepared(board, False, f"{source.card} is no longer on the battlefield")
    if opportunity.sacrifice is not None:
        if opportunity.sacrifice not in board.index:
            return Prepared(board, False, "the permanent to sacrifice is gone, so the cost cannot be paid")
        board = remove_ids(board, [opportunity.sacrifice])
    if opportunity.target is not None:
        if opportunity.fizzled or opportunity.target not in board.index:
            board = remove_ids(board, [opportunity.target])
            return Prepared(board, False, "its only target left the battlefield: the spell does nothing (608.2b)")
        if source.prelude == "destroy":
            board = remove_ids(board, [opportunity.target])
        elif source.prelude is not None:
            counts = board.counts.copy()
            add_counters(board, counts, board.index[opportunity.target], source.prelude, 1)
            board = board.with_counts(counts)
    if source.card == "Vraska, Betrayal's Sting":
        board = lose_life(board, board.index[opportunity.controller], 1)
    board = retarget(board, board.index[opportunity.controller], source.proliferates)
    return Prepared(board, True)


def _controls(board: Board, seat: str, card: str) -> bool:
    row, first = board.index[seat], board.n_players
    return any(
        name == card and controller == row and not phased
        for name, controller, phased in zip(
            board.names[first:].tolist(),
            board.controller[first:].tolist(),
            board.phased_out[first:].tolist(),
            strict=True,
        )
    )
