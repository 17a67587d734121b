"""Derived boards: the cheap ``with_*`` copies must equal a board built from scratch, caches included."""

from __future__ import annotations

import numpy as np

from solver import Board, Effect, Permanent, Player
from solver.board import LAZY_FIELDS
from solver.effects import gain

PLAYERS = [Player("alice", "alice", 20, {"energy": 1}), Player("bob", "bob", 20, {"poison": 3})]
PERMANENTS = [
    Permanent("bear", "alice", ("creature",), "Grizzly Bears", 2, 2, counters={"+1/+1": 1}),
    Permanent("ooze", "bob", ("creature",), "Ooze", 1, 1, counters={"-1/-1": 1}),
]
VORINCLEX = (Effect("Vorinclex, Monstrous Raider", "alice"),)


def build(proliferator: str = "alice", life: int = 20, effects: tuple[Effect, ...] = VORINCLEX) -> Board:
    players = [Player(p.id, p.team, life, p.counters) for p in PLAYERS]
    return Board.build(
        variant="duel", proliferator=proliferator, players=players, permanents=PERMANENTS, effects=effects
    )


def test_with_proliferator_recomputes_what_one_proliferate_adds() -> None:
    """Vorinclex doubles its controller's counters and halves an opponent's (614.1a; docs/board-format.md#effect)."""
    board = build()
    assert gain(board)[1].tolist()[board.kind_column("poison")] == 2  # warm the cache
    other = board.with_proliferator(1)
    fresh = build("bob")
    assert other == fresh
    assert np.array_equal(gain(other), gain(fresh))
    assert np.array_equal(other.is_ally, fresh.is_ally)
    assert gain(other)[1, board.kind_column("poison")] == 0


def test_with_life_and_with_effects_and_with_counts_match_a_rebuild() -> None:
    board = build()
    _ = gain(board), board.is_ally, board.sba_masks, board.index
    assert board.with_life(np.array([7, 7])) == build(life=7)
    no_effects = board.with_effects(())
    assert no_effects == build(effects=())
    assert np.array_equal(gain(no_effects), gain(build(effects=())))
    counts = board.counts.copy()
    counts[2, board.kind_column("-1/-1")] = 1  # a new kind on the bear: what proliferate adds changes
    grown = board.with_counts(counts)
    assert gain(grown)[2, board.kind_column("-1/-1")] == 2
    assert grown.counters("bear") == {"+1/+1": 1, "-1/-1": 1}


def test_a_board_s_per_object_arrays_made_on_first_use_are_its_own_after_every_derivation() -> None:
    """The table rows and text arrays a board makes on first use (LAZY_FIELDS) follow each derived board's objects.

    ``without`` drops rows (122.2: a permanent that died), ``with_permanent`` appends one, ``with_counts`` keeps
    the objects; each must read as a board built from scratch, whether or not its parent made them first.
    """
    shade = Permanent("shade", "bob", ("enchantment", "creature"), "Shade", 3, 4, 1, {"+1/+1": 2}, ("indestructible",))

    def arrays(board: Board) -> dict[str, list[object]]:
        return {name: getattr(board, name).tolist() for name in LAZY_FIELDS}

    for warm in (False, True):
        board = build()
        if warm:
            arrays(board)
        grown = board.with_permanent(shade)
        assert arrays(grown) == arrays(Board.build(variant="duel", proliferator="alice", players=PLAYERS,
                                                   permanents=[*PERMANENTS, shade], effects=VORINCLEX))  # fmt: skip
        fewer = grown.without(np.array([False, False, True, False, False]))
        rebuilt = Board.build(
            variant="duel", proliferator="alice", players=PLAYERS, permanents=[PERMANENTS[1], shade], effects=VORINCLEX
        )
        assert arrays(fewer) == arrays(rebuilt)
        assert arrays(fewer.with_counts(fewer.counts)) == arrays(rebuilt)
        assert fewer.layout.packed.tolist() == rebuilt.layout.packed.tolist()
        assert all(not getattr(fewer, name).flags.writeable for name in LAZY_FIELDS)
