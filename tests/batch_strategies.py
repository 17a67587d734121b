"""Seeded random boards for the batched-core tests, drawn with numpy's Generator (fast, in bulk).

Hypothesis shrinks well but draws slowly; the differential tests of :mod:`solver.batch`
need ten thousand boards in a few seconds, over every feature that couples objects or
changes what one proliferate adds: all three variants, 1-4 proliferates (and Tekuthal
doubling them), replacement effects, thresholds (numeric, win and lose), Sagas, battles,
2HG shared poison near the team's threshold (so poison recipients matter), players at 0
life, phased-out and indestructible permanents, shields, keyword counters and per-object
overrides of values.  Boards are JSON dicts, loaded by the caller through the loader.
"""

from __future__ import annotations

from typing import Any

import numpy as np

__all__ = ["random_board", "random_boards"]

_CARDS = (
    "Doubling Season",
    "Vorinclex, Monstrous Raider",
    "Innkeeper's Talent",
    "Winding Constrictor",
    "Pir, Imaginative Rascal",
    "Hardened Scales",
    "Ozolith, the Shattered Spire",
    "Corpsejack Menace",
    "Branching Evolution",
    "Primal Vigor",
    "Vizier of Remedies",
    "Melira, Sylvok Outcast",
    "Solemnity",
    "Tekuthal, Inquiry Dominus",
)
_KEYWORDS = ("flying", "deathtouch", "first strike", "exalted", "lifelink")


def random_boards(seed: int, n: int, max_permanents: int = 8) -> list[dict[str, Any]]:
    """``n`` boards drawn from one seeded generator (the same seed gives the same boards)."""
    rng = np.random.default_rng(seed)
    return [random_board(rng, max_permanents) for _ in range(n)]


def random_board(rng: np.random.Generator, max_permanents: int = 8) -> dict[str, Any]:
    """One board as a JSON dict."""
    variant = ("duel", "free_for_all", "two_headed_giant")[int(rng.integers(3))]
    players = _players(rng, variant)
    ids = [p["id"] for p in players]
    permanents = [_permanent(rng, f"p{i}", ids) for i in range(int(rng.integers(0, max_permanents + 1)))]
    effects = []
    for _ in range(int(rng.choice(4, p=(0.45, 0.3, 0.15, 0.1)))):
        card = _CARDS[int(rng.integers(len(_CARDS)))]
        effect: dict[str, Any] = {"card": card, "controller": ids[int(rng.integers(len(ids)))]}
        if card == "Innkeeper's Talent":
            effect["level"] = int(rng.integers(1, 4))
        effects.append(effect)
    tekuthal = any(e["card"].startswith("Tekuthal") for e in effects)
    return {
        "variant": variant,
        "proliferator": ids[int(rng.integers(len(ids)))],
        "proliferates": int(rng.integers(1, 3 if tekuthal else 5)),
        "players": players,
        "permanents": permanents,
        "effects": effects,
    }


def _players(rng: np.random.Generator, variant: str) -> list[dict[str, Any]]:
    if variant == "duel":
        roster = [("alice", "alice"), ("bob", "bob")]
    elif variant == "free_for_all":
        roster = [(name, name) for name in ("alice", "bob", "carol", "dave")[: int(rng.integers(3, 5))]]
    else:
        roster = [("alice", "A"), ("ally", "A"), ("bob", "B"), ("carol", "B")]
    team_poison = {team: int(rng.choice([0, 0, int(rng.integers(1, 15))])) for _, team in roster}
    out = []
    for pid, team in roster:
        counters: dict[str, int] = {}
        if variant == "two_headed_giant":
            if team_poison[team] and rng.random() < 0.8:
                counters["poison"] = team_poison[team]  # 810.10: the team's count, on a head
        elif rng.random() < 0.45:
            counters["poison"] = int(rng.integers(1, 10))
        for kind in ("energy", "experience", "rad"):
            if rng.random() < 0.2:
                counters[kind] = int(rng.integers(1, 5))
        player: dict[str, Any] = {"id": pid, "team": team, "counters": counters}
        if rng.random() < 0.03:
            player["life"] = 0
        out.append(player)
    return out


def _permanent(rng: np.random.Generator, oid: str, ids: list[str]) -> dict[str, Any]:
    controller = ids[int(rng.integers(len(ids)))]
    roll = rng.random()
    perm: dict[str, Any] = {"id": oid, "controller": controller}
    counters: dict[str, int] = {}
    if roll < 0.45:
        toughness = int(rng.integers(1, 6))
        perm |= {"types": ["creature"], "power": int(rng.integers(0, 6)), "toughness": toughness}
        which = rng.random()
        if which < 0.4:
            counters["+1/+1"] = int(rng.integers(1, 4))
        elif which < 0.7:
            counters["-1/-1"] = int(rng.integers(1, toughness + 1))
        if rng.random() < 0.2:
            perm["damage"] = int(rng.integers(0, toughness + 2))
        if rng.random() < 0.1:
            counters["shield"] = 1
        if rng.random() < 0.1:
            counters[_KEYWORDS[int(rng.integers(len(_KEYWORDS)))]] = 1
        if rng.random() < 0.05:
            perm["keywords"] = ["indestructible"]
    elif roll < 0.58:
        perm["types"] = ["planeswalker"]
        counters["loyalty"] = int(rng.integers(1, 7))
        if rng.random() < 0.4:
            at = counters["loyalty"] + int(rng.integers(1, 3))
            perm["thresholds"] = [{"kind": "loyalty", "at": at, "effect": float(rng.integers(2, 9)), "label": "ult"}]
    elif roll < 0.68:
        chapters = int(rng.choice([3, 4]))
        perm |= {"types": ["enchantment"], "subtypes": ["Saga"], "chapters": chapters}
        counters["lore"] = int(rng.integers(1, chapters))
    elif roll < 0.76:
        rivals = [p for p in ids if p != controller]
        perm |= {"types": ["battle"], "subtypes": ["Siege"], "protector": rivals[int(rng.integers(len(rivals)))]}
        counters["defense"] = int(rng.integers(1, 4))
    elif roll < 0.86:
        kind, at = ("growth", 20) if rng.random() < 0.5 else ("incarnation", 9)
        effect = "win" if kind == "growth" else "lose"
        perm["types"] = ["enchantment"]
        counters[kind] = at - int(rng.integers(1, 4))
        perm["thresholds"] = [{"kind": kind, "at": at, "effect": effect, "label": kind}]
    else:
        perm["types"] = ["artifact"]
        counters["charge"] = int(rng.integers(1, 5))
        if rng.random() < 0.3:
            perm["counter_values"] = {"charge": float(rng.integers(-2, 3))}
    if rng.random() < 0.05:
        perm["phased_out"] = True
    if rng.random() < 0.1:
        perm["value"] = float(rng.integers(0, 6))
    perm["counters"] = counters
    return perm
