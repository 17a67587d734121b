"""Seeded generator of large, realistic boards, as board JSON dicts (format 1).

Benchmarks start from the JSON dict rather than a built :class:`solver.Board` so that the
time to load a board is part of what is measured, as it is for every real caller.  The mix
of objects and counters follows what a long game of Commander or a Standard mid-game looks
like: mostly creatures (+1/+1 or -1/-1 counters, some damage, the odd shield, stun or keyword
counter), planeswalkers with loyalty, Sagas about to finish, battles, charge artifacts,
storage lands, and poison on players.  With ``extras`` the board also has thresholds
(numeric ultimates, and a few cards that win or lose the game on a count) and replacement
effects in play, the features that make the decision couple objects.

Everything is drawn from one ``random.Random`` seeded by the spec, so a spec names a board.
"""

from __future__ import annotations

import random
from dataclasses import dataclass
from typing import Any

__all__ = ["VARIANTS", "BoardSpec", "generate", "players_of", "slow_board"]

VARIANTS: tuple[str, ...] = ("duel", "free_for_all", "two_headed_giant")

_CREATURES = ("Grizzly Bears", "Llanowar Elves", "Glistener Elf", "Centaur Courser", "Serra Angel", "Hydra")
_KEYWORD_COUNTERS = ("flying", "deathtouch", "lifelink", "menace", "trample", "hexproof", "first strike")
_PLANESWALKERS = ("Tamiyo, Field Researcher", "Liliana of the Veil", "Nissa, Who Shakes the World")
_ARTIFACTS = ("Everflowing Chalice", "Astral Cornucopia", "Coalition Relic", "Mind Stone")
_EFFECTS_OTHER = ("Hardened Scales", "Winding Constrictor", "Vizier of Remedies", "Vorinclex, Monstrous Raider")
#: (name, types, kind, at, effect, current low, current high): cards that end the game on a count.
_TERMINAL = (
    ("Simic Ascendancy", ("enchantment",), "growth", 20, "win", 17, 19),
    ("Helix Pinnacle", ("enchantment",), "tower", 100, "win", 97, 99),
    ("Nine Lives", ("enchantment",), "incarnation", 9, "lose", 6, 8),
    ("Azor's Elocutors", ("creature",), "filibuster", 5, "win", 3, 4),
)
#: Cumulative shares of permanent categories (creatures dominate real boards).
_MIX = (
    (0.48, "creature"),
    (0.66, "land"),
    (0.78, "artifact"),
    (0.85, "planeswalker"),
    (0.89, "saga"),
    (0.92, "battle"),
    (0.95, "quest"),
    (1.00, "equipment"),
)


@dataclass(frozen=True)
class BoardSpec:
    """One benchmark board: ``size`` objects in all (players included)."""

    size: int
    variant: str = "duel"
    proliferates: int = 1
    extras: bool = False
    seed: int = 0

    @property
    def label(self) -> str:
        extras = "+thr/fx" if self.extras else "plain"
        return f"{self.size} {self.variant} x{self.proliferates} {extras}"


def players_of(variant: str) -> list[tuple[str, str]]:
    """(id, team) of each player; the proliferator is the first."""
    if variant == "duel":
        return [("alice", "alice"), ("bob", "bob")]
    if variant == "free_for_all":
        return [("alice", "alice"), ("bob", "bob"), ("carol", "carol"), ("dave", "dave")]
    if variant == "two_headed_giant":
        return [("alice", "A"), ("ally", "A"), ("bob", "B"), ("carol", "B")]
    raise ValueError(f"unknown variant {variant!r}; expected one of {', '.join(VARIANTS)}")


def generate(spec: BoardSpec) -> dict[str, Any]:
    """The board of ``spec`` as a JSON-ready dict."""
    rng = random.Random(f"{spec.seed}/{spec.variant}/{spec.size}/{spec.proliferates}/{spec.extras}")
    roster = players_of(spec.variant)
    if spec.size <= len(roster):
        raise ValueError(f"size must exceed the {len(roster)} players of {spec.variant}")
    ids = [pid for pid, _ in roster]
    team_of = dict(roster)
    players = _players(rng, spec.variant, roster)
    permanents = [_permanent(rng, f"o{i}", ids, team_of, spec.extras) for i in range(spec.size - len(roster))]
    effects: list[dict[str, Any]] = []
    if spec.extras:
        _add_terminal_thresholds(rng, permanents, ids, spec.size)
        effects = _effects(rng, ids)
    return {
        "format": 1,
        "variant": spec.variant,
        "proliferator": ids[0],
        "proliferates": spec.proliferates,
        "players": players,
        "permanents": permanents,
        "effects": effects,
    }


def _players(rng: random.Random, variant: str, roster: list[tuple[str, str]]) -> list[dict[str, Any]]:
    """Poison on opponents (sometimes near lethal) and now and then on the proliferator; energy and experience."""
    team_poison: dict[str, int] = {}
    out = []
    for i, (pid, team) in enumerate(roster):
        counters: dict[str, int] = {}
        if variant == "two_headed_giant":
            if team not in team_poison:  # 810.10: one shared count, stated on every head
                mine = team == roster[0][1]
                team_poison[team] = rng.randint(1, 14) if rng.random() < (0.15 if mine else 0.45) else 0
            poison = team_poison[team]
        else:
            poison = rng.randint(1, 9) if rng.random() < (0.15 if i == 0 else 0.45) else 0
        if poison:
            counters["poison"] = poison
        if rng.random() < 0.3:
            counters["energy"] = rng.randint(1, 6)
        if rng.random() < 0.1:
            counters["experience"] = rng.randint(1, 3)
        player: dict[str, Any] = {"id": pid, "counters": counters}
        if variant != "duel":
            player["team"] = team
        out.append(player)
    return out


def _permanent(rng: random.Random, oid: str, ids: list[str], team_of: dict[str, str], extras: bool) -> dict[str, Any]:
    controller = rng.choice(ids)
    roll = rng.random()
    category = next(name for share, name in _MIX if roll < share)
    if category == "creature":
        return _creature(rng, oid, controller)
    perm: dict[str, Any] = {"id": oid, "controller": controller}
    counters: dict[str, int] = {}
    if category == "land":
        perm |= {"name": "Storage land", "types": ["land"]}
        if rng.random() < 0.2:
            counters["storage"] = rng.randint(1, 3)
    elif category == "artifact":
        perm |= {"name": rng.choice(_ARTIFACTS), "types": ["artifact"]}
        if rng.random() < 0.85:
            counters["charge"] = rng.randint(1, 4)
            if extras and rng.random() < 0.3:
                at = counters["charge"] + rng.randint(1, 3)
                perm["thresholds"] = [{"kind": "charge", "at": at, "effect": rng.randint(1, 8), "label": "station"}]
    elif category == "planeswalker":
        perm |= {"name": rng.choice(_PLANESWALKERS), "types": ["planeswalker"]}
        counters["loyalty"] = rng.randint(1, 7)
        if extras and rng.random() < 0.2:
            at = counters["loyalty"] + rng.randint(1, 2)
            perm["thresholds"] = [{"kind": "loyalty", "at": at, "effect": rng.randint(3, 10), "label": "ultimate"}]
    elif category == "saga":
        chapters = rng.choice((3, 3, 4))
        perm |= {"name": "Saga", "types": ["enchantment"], "subtypes": ["Saga"], "chapters": chapters}
        counters["lore"] = rng.randint(1, chapters - 1)
    elif category == "battle":
        rivals = [p for p in ids if team_of[p] != team_of[controller]]
        perm |= {"name": "Siege", "types": ["battle"], "subtypes": ["Siege"], "protector": rng.choice(rivals)}
        counters["defense"] = rng.randint(1, 5)
    elif category == "quest":
        perm |= {"name": "Luminarch Ascension", "types": ["enchantment"]}
        if rng.random() < 0.7:
            counters["quest"] = rng.randint(1, 3)
    else:
        perm |= {"name": "Equipment", "types": ["artifact"], "subtypes": ["Equipment"]}
    perm["counters"] = counters
    return perm


def _creature(rng: random.Random, oid: str, controller: str) -> dict[str, Any]:
    """A creature whose counters and damage leave it alive now; some die to one more -1/-1 counter."""
    power, toughness = rng.randint(1, 6), rng.randint(1, 6)
    counters: dict[str, int] = {}
    roll = rng.random()
    if roll < 0.45:
        counters["+1/+1"] = rng.randint(1, 4)
    elif roll < 0.63 and toughness > 1:
        counters["-1/-1"] = rng.randint(1, min(2, toughness - 1))
    alive = toughness + counters.get("+1/+1", 0) - counters.get("-1/-1", 0)
    perm: dict[str, Any] = {
        "id": oid,
        "name": rng.choice(_CREATURES),
        "controller": controller,
        "types": ["creature"],
        "power": power,
        "toughness": toughness,
    }
    if rng.random() < 0.2:
        perm["damage"] = rng.randint(0, alive - 1)
    if rng.random() < 0.05:
        counters["shield"] = 1
    if rng.random() < 0.06:
        counters["stun"] = rng.randint(1, 3)
    if rng.random() < 0.08:
        counters[rng.choice(_KEYWORD_COUNTERS)] = 1
    if rng.random() < 0.03:
        perm["keywords"] = ["indestructible"]
    perm["counters"] = counters
    return perm


def _add_terminal_thresholds(rng: random.Random, permanents: list[dict[str, Any]], ids: list[str], size: int) -> None:
    """Replace a few permanents (one per 5,000 objects, at least one) by cards that win or lose on a count."""
    for _ in range(max(1, size // 5000)):
        slot = rng.randrange(len(permanents))
        name, types, kind, at, effect, low, high = rng.choice(_TERMINAL)
        perm: dict[str, Any] = {
            "id": permanents[slot]["id"],
            "name": name,
            "controller": rng.choice(ids),
            "types": list(types),
            "counters": {kind: rng.randint(low, high)},
            "thresholds": [{"kind": kind, "at": at, "effect": effect, "label": name}],
        }
        if "creature" in types:
            perm |= {"power": 3, "toughness": 5}
        permanents[slot] = perm


def _effects(rng: random.Random, ids: list[str]) -> list[dict[str, Any]]:
    """Doubling Season for the proliferator half the time, plus one or two other replacement effects."""
    out = []
    if rng.random() < 0.5:
        out.append({"card": "Doubling Season", "controller": ids[0]})
    for card in rng.sample(_EFFECTS_OTHER, rng.randint(1, 2)):
        out.append({"card": card, "controller": rng.choice(ids)})
    return out


def slow_board(n: int = 40) -> dict[str, Any]:
    """A duel with ``n`` creatures and two proliferates: a top-k solve on it keeps CP-SAT busy."""
    return {
        "format": 1,
        "variant": "duel",
        "proliferator": "alice",
        "proliferates": 2,
        "players": [{"id": "alice", "counters": {"poison": 1}}, {"id": "bob", "counters": {"poison": 3}}],
        "permanents": [
            {
                "id": f"c{i}",
                "controller": "alice" if i % 2 else "bob",
                "types": ["creature"],
                "power": 2,
                "toughness": 2 + i % 3,
                "counters": {"+1/+1": 1 + i % 3} if i % 3 else {"-1/-1": 1},
            }
            for i in range(n)
        ],
    }
