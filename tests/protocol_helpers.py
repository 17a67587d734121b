"""Boards shared by the protocol tests."""

from __future__ import annotations

from typing import Any


def slow_board(n: int = 40) -> dict[str, Any]:
    """A duel with ``n`` creatures and two proliferates: big enough to take a while, or to be held by a test."""
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
