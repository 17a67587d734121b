"""Hypothesis strategies for boards, shared by every property test.

Boards are generated as JSON dicts (the public input format) and loaded through
:func:`solver.load_board`, so every property test also exercises the loader.  They are
small by default because the optimal-choice oracles the properties compare against are
exponential in the number of choosable objects, and realistic (counter kinds, card types
and thresholds as they occur in play) so that failures read like game states.
"""

from __future__ import annotations

from collections.abc import Collection
from typing import Any

from hypothesis import strategies as st

from solver.board import Board, Variant
from solver.boardjson import load_board
from solver.cards import CARDS
from solver.effects import SUPPORTED_CARDS
from solver.kinds import canonical_kind

__all__ = ["board_dicts", "boards"]

ALL_VARIANTS: tuple[str, ...] = tuple(v.value for v in Variant)
PLAYER_NAMES = ("alice", "bob", "carol", "dave")
MAX_COUNT = 12

#: Other spellings the loader accepts (122.1: a kind is its name), to exercise normalisation.
_ALIASES: dict[str, tuple[str, ...]] = {
    "+1/+1": ("P1P1", "p1p1", "+1/+1 counters"),
    "-1/-1": ("M1M1", "-1/-1 counter"),
    "first strike": ("FIRST_STRIKE",),
    "poison": ("Poison",),
}

_PLAYER_KINDS = ("energy", "experience", "rad")
_CREATURE_KINDS = ("+1/+1", "-1/-1", "shield", "stun", "flying", "first strike", "deathtouch", "+1/+0")
_COUNTS = st.integers(0, MAX_COUNT)


def _spelling(draw: st.DrawFn, kind: str) -> str:
    return draw(st.sampled_from((kind, *_ALIASES.get(kind, ()))))


def _counters(
    draw: st.DrawFn, kinds: Collection[str], max_kinds: int, counts: st.SearchStrategy[int]
) -> dict[str, int]:
    chosen = draw(st.lists(st.sampled_from(tuple(kinds)), unique=True, max_size=max_kinds))
    return {_spelling(draw, kind): draw(counts) for kind in chosen}


def _player_counters(draw: st.DrawFn, max_kinds: int) -> dict[str, int]:
    """Personal counters (107.14, 728); poison is added by the caller, which knows the variant."""
    return _counters(draw, _PLAYER_KINDS, max(max_kinds - 1, 0), _COUNTS)


def _players(draw: st.DrawFn, variant: str, max_players: int, max_kinds: int) -> list[dict[str, Any]]:
    if variant == Variant.DUEL:
        n = 2
    elif variant == Variant.TWO_HEADED_GIANT:
        n = 4
    else:
        n = draw(st.integers(2, max(2, min(max_players, len(PLAYER_NAMES)))))
    players: list[dict[str, Any]] = []
    for i in range(n):
        player: dict[str, Any] = {"id": PLAYER_NAMES[i]}
        if variant == Variant.TWO_HEADED_GIANT:
            player["team"] = "AB"[i // 2]
        if draw(st.booleans()):
            player["life"] = draw(st.integers(1, 40))
        player["counters"] = _player_counters(draw, max_kinds)
        players.append(player)
    if max_kinds == 0:
        return players
    if variant == Variant.TWO_HEADED_GIANT:
        # The team's shared poison (810.10), written on both heads, on one, or on neither.
        for team in (players[:2], players[2:]):
            poison = draw(st.integers(0, 14))
            for head in draw(st.sampled_from(((0, 1), (0,), (1,), ()))):
                team[head]["counters"][_spelling(draw, "poison")] = poison
    else:
        for player in players:
            if draw(st.booleans()):
                player["counters"][_spelling(draw, "poison")] = draw(st.integers(0, 9))
    return players


def _creature(draw: st.DrawFn, max_kinds: int) -> dict[str, Any]:
    """A creature that survives state-based actions as it stands (704.5f-g), as boards in play do."""
    counters = _counters(draw, _CREATURE_KINDS, max_kinds, _COUNTS)
    canonical = {canonical_kind(k): n for k, n in counters.items()}
    net = canonical.get("+1/+1", 0) - canonical.get("-1/-1", 0)
    toughness = draw(st.integers(1, 6)) + max(0, -net)
    perm: dict[str, Any] = {
        "name": draw(st.sampled_from(("Grizzly Bears", "Centaur Courser", "Glistener Elf", "Thrun Rhino"))),
        "types": draw(st.sampled_from((["creature"], ["artifact", "creature"], ["Creature"]))),
        "power": draw(st.integers(0, 6)),
        "toughness": toughness,
        "counters": counters,
    }
    if draw(st.booleans()):
        perm["damage"] = draw(st.integers(0, toughness + net - 1))
    if draw(st.integers(0, 3)) == 0:
        perm["keywords"] = ["indestructible"]
    return perm


def _planeswalker(draw: st.DrawFn, max_kinds: int) -> dict[str, Any]:
    return {
        "name": draw(st.sampled_from(("Tamiyo, Field Researcher", "Liliana of the Veil", "Karn, Scion of Urza"))),
        "types": ["planeswalker"],
        "counters": {"loyalty": draw(st.integers(1, MAX_COUNT))} if max_kinds else {},
    }


def _saga(draw: st.DrawFn, max_kinds: int) -> dict[str, Any]:
    chapters = draw(st.integers(3, 4))
    return {
        "name": "The Eldest Reborn",
        "types": ["enchantment"],
        "subtypes": ["Saga"],
        "chapters": chapters,
        "counters": {"lore": draw(st.integers(1, chapters - 1))} if max_kinds else {},
    }


def _battle(draw: st.DrawFn, max_kinds: int) -> dict[str, Any]:
    return {
        "name": "Invasion of Tarkir",
        "types": ["battle"],
        "subtypes": ["Siege"],
        "counters": {"defense": draw(st.integers(1, 6))} if max_kinds else {},
    }


def _reactor(draw: st.DrawFn, max_kinds: int) -> dict[str, Any]:
    return {
        "name": "Darksteel Reactor",
        "types": ["artifact"],
        "keywords": ["indestructible"],
        "counters": {"charge": draw(st.integers(15, 19))} if max_kinds else {},
        "thresholds": [{"kind": "charge", "at": 20, "effect": "win", "label": "Darksteel Reactor"}],
    }


def _nine_lives(draw: st.DrawFn, max_kinds: int) -> dict[str, Any]:
    return {
        "name": "Nine Lives",
        "types": ["enchantment"],
        "counters": {"incarnation": draw(st.integers(5, 8))} if max_kinds else {},
        "thresholds": [{"kind": "incarnation", "at": 9, "effect": "lose", "label": "Nine Lives"}],
    }


def _quest(draw: st.DrawFn, max_kinds: int) -> dict[str, Any]:
    """A numeric threshold and a per-permanent worth override (Luminarch Ascension-like)."""
    perm: dict[str, Any] = {
        "name": "Luminarch Ascension",
        "types": ["enchantment"],
        "counters": {"quest": draw(st.integers(1, 3))} if max_kinds else {},
        "thresholds": [{"kind": "quest", "at": 4, "effect": draw(st.sampled_from((3, 5.5))), "label": "angels"}],
    }
    if draw(st.booleans()):
        perm["counter_values"] = {"quest": draw(st.sampled_from((0.5, 1.0, 2)))}
    if draw(st.booleans()):
        perm["value"] = draw(st.sampled_from((2, 4.5)))
    return perm


def _land(draw: st.DrawFn, max_kinds: int) -> dict[str, Any]:
    return {
        "name": "Mage-Ring Network",
        "types": ["land"],
        "counters": {"storage": draw(_COUNTS)} if max_kinds else {},
        "counter_values": {"storage": 0.25},
    }


_TEMPLATES = (_creature, _creature, _creature, _planeswalker, _saga, _battle, _reactor, _nine_lives, _quest, _land)


def _permanents(
    draw: st.DrawFn, players: list[dict[str, Any]], max_permanents: int, max_kinds: int
) -> list[dict[str, Any]]:
    ids = [p["id"] for p in players]
    team_of = {p["id"]: p.get("team", p["id"]) for p in players}
    out: list[dict[str, Any]] = []
    for i in range(draw(st.integers(0, max_permanents))):
        template = draw(st.sampled_from(_TEMPLATES))
        perm = {"id": f"perm{i}", "controller": draw(st.sampled_from(ids)), **template(draw, max_kinds)}
        if template is _battle:
            opponents = [p for p in ids if team_of[p] != team_of[perm["controller"]]]
            perm["protector"] = draw(st.sampled_from(opponents or ids))
        if draw(st.integers(0, 7)) == 0:
            perm["phased_out"] = True
        if draw(st.integers(0, 9)) == 0:
            perm["no_counters"] = True
        out.append(perm)
    return out


def _effects(draw: st.DrawFn, players: list[dict[str, Any]], permanents: list[dict[str, Any]]) -> list[dict[str, Any]]:
    out: list[dict[str, Any]] = []
    for card in draw(st.lists(st.sampled_from(SUPPORTED_CARDS), max_size=3)):
        effect: dict[str, Any] = {"card": card, "controller": draw(st.sampled_from([p["id"] for p in players]))}
        if card == "Innkeeper's Talent" and draw(st.booleans()):
            effect["level"] = draw(st.integers(1, 3))
        if CARDS[card].once_per_turn and draw(st.booleans()):
            effect["poisoned_this_turn"] = draw(st.integers(0, 1))
        own = [p["id"] for p in permanents if p["controller"] == effect["controller"]]
        if CARDS[card].needs_source or (bool(own) and draw(st.booleans())):
            if not own:
                continue  # its permanent would have to be on the board
            effect["source"] = draw(st.sampled_from(own))
        out.append(effect)
    return out


@st.composite
def board_dicts(
    draw: st.DrawFn,
    variants: Collection[str] = ALL_VARIANTS,
    max_players: int = 4,
    max_permanents: int = 8,
    max_kinds_per_object: int = 3,
    effects: bool = True,
    max_proliferates: int = 2,
) -> dict[str, Any]:
    """Valid board JSON dicts.  Two-Headed Giant boards always have two teams of two."""
    variant = draw(st.sampled_from(sorted(variants)))
    players = _players(draw, variant, max_players, max_kinds_per_object)
    board: dict[str, Any] = {
        "variant": variant,
        "proliferator": draw(st.sampled_from([p["id"] for p in players])),
        "players": players,
        "permanents": _permanents(draw, players, max_permanents, max_kinds_per_object),
    }
    if variant == Variant.TWO_HEADED_GIANT and max_kinds_per_object and draw(st.booleans()):
        # Poison per head, as Forge stores it (810.10): the team's total is the heads' sum.
        board["team_poison"] = "per_head"
        for team in (players[:2], players[2:]):
            for head in team:
                head["counters"] = {k: v for k, v in head["counters"].items() if k.lower() != "poison"}
            total = draw(st.integers(0, 14))
            first = draw(st.integers(0, total))
            for head, count in zip(team, (first, total - first), strict=True):
                if count:
                    head["counters"][_spelling(draw, "poison")] = count
    if draw(st.booleans()):
        board["format"] = 1
    if draw(st.booleans()):
        board["proliferates"] = draw(st.integers(1, max_proliferates))
    if effects:
        board["effects"] = _effects(draw, players, board["permanents"])
        once = [e for e in board["effects"] if CARDS[e["card"]].once_per_turn]
        twice = board.get("proliferates", 1) > 1 or any(
            CARDS[e["card"]].proliferate_factor > 1 and e["controller"] == board["proliferator"]
            for e in board["effects"]
        )
        for effect in once if twice else ():
            effect["poisoned_this_turn"] = 1  # else a second proliferate of its controller's poison is refused
    return board


def boards(
    variants: Collection[str] = ALL_VARIANTS,
    max_players: int = 4,
    max_permanents: int = 8,
    max_kinds_per_object: int = 3,
    effects: bool = True,
    max_proliferates: int = 2,
) -> st.SearchStrategy[Board]:
    """Boards loaded from :func:`board_dicts`, for tests that start from a :class:`Board`."""
    return board_dicts(
        variants=variants,
        max_players=max_players,
        max_permanents=max_permanents,
        max_kinds_per_object=max_kinds_per_object,
        effects=effects,
        max_proliferates=max_proliferates,
    ).map(load_board)
