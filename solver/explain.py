"""Explanations: for each eligible object, what choosing it is worth and why, in plain words.

Built from the objective's per-unit tables, so an explanation costs one pass over the
eligible objects and never re-solves: an object's *marginal* is the value of the decision
with it chosen (in the rounds the decision chooses it, or every round if it is left out)
minus the value without it, everything else held fixed.
"""

from __future__ import annotations

from collections.abc import Callable

import numpy as np

from . import effects
from .board import Board, BoolArray, IntArray, Variant
from .decision import ExplanationRow
from .objective import MILLI, Objective, TeamOption, TeamUnit, UnitKind, UnitRef
from .rules import Settled, team_poison

__all__ = ["explain"]


def explain(objective: Objective, chosen: BoolArray, recipients: IntArray) -> tuple[ExplanationRow, ...]:
    board = objective.board
    units = objective.units
    material, events = objective.row_tables
    times = chosen.sum(axis=0)
    rows: dict[int, ExplanationRow] = {}

    single_times = times[units.single_rows]
    current = units.base_events | int(
        np.bitwise_or.reduce(units.single_events[np.arange(len(single_times)), single_times], initial=np.int64(0))
    )
    team_choice: list[TeamOption] = []
    for team in units.teams:
        key = tuple(int(times[h]) for h in team.heads)
        poison = _poison_given(board, team.team, recipients)
        option = next(o for o in team.options if o.times == key and o.poison == poison)
        team_choice.append(option)
        current |= option.events
    others = _others(objective, single_times, team_choice)
    facts = _Facts(objective)

    for u, row in enumerate(units.single_rows):
        t = int(single_times[u])
        with_c = t if t else board.rounds
        rest = others(UnitRef(UnitKind.SINGLE, u))
        nothing = int(material[0, row])
        v_with = _worth(objective, int(material[with_c, row]), nothing, rest | int(events[with_c, row]))
        v_without = _worth(objective, nothing, nothing, rest | int(events[0, row]))
        reasons = facts.reasons(int(row), with_c)
        reasons += _game_reasons(objective, rest | int(events[0, row]), rest | int(events[with_c, row]))
        rows[int(row)] = ExplanationRow(board.ids[row], t, (v_with - v_without) / MILLI, tuple(reasons))

    for i, (team, option) in enumerate(zip(units.teams, team_choice, strict=True)):
        rest = others(UnitRef(UnitKind.TEAM, i))
        for pos, head in enumerate(team.heads):
            if board.counts[head].any():
                rows[head] = _head_row(objective, facts, team, option, pos, rest)
    return tuple(rows[r] for r in sorted(rows))


def _worth(objective: Objective, material: int, nothing: int, events: int) -> int:
    """A unit's share of a resolution's value: its material (``nothing`` if the game ends, :meth:`Objective.total`)."""
    return (nothing if objective.game_over(events) else material) + objective.game_milli(events)


def _head_row(
    objective: Objective, facts: _Facts, team: TeamUnit, option: TeamOption, pos: int, rest: int
) -> ExplanationRow:
    """A 2HG head: its own counters as for any object, plus the team's shared poison it receives.

    Its marginal compares with the best option that flips this head alone, so a head whose
    teammate could take the poison just as well is worth 0 alone; the reasons then still say
    what the team's poison does, against choosing no head of the team at all.
    """
    board = objective.board
    head = team.heads[pos]

    nothing = next(o.material for o in team.options if o.picks == 0)

    def worth(o: TeamOption) -> int:
        return _worth(objective, o.material, nothing, rest | o.events)

    chosen_now = option.times[pos] > 0
    flip = [o for o in team.options if (o.times[pos] > 0) != chosen_now]
    alt = max(flip, key=worth) if flip else option
    marginal = (worth(option) - worth(alt)) * (1 if chosen_now else -1)
    with_opt = option if chosen_now else alt
    reasons = facts.reasons(head, with_opt.times[pos])
    gives_poison = any(recipient == head for _, recipient in with_opt.pattern)
    if gives_poison:
        nobody = next(o for o in team.options if not any(o.times))
        p0 = int(team_poison(board, board.counts)[team.team])
        name = board.team_names[team.team]
        reasons.append(
            f"team {name} poison {p0} -> {p0 + with_opt.poison} through this head "
            "(shared, 810.10; one per team per proliferate, 701.34b)"
        )
        reasons += _game_reasons(objective, rest | nobody.events, rest | with_opt.events)
        if marginal == 0 and worth(with_opt) != worth(nobody):
            reasons.append("a teammate could receive the team's poison instead")
    elif reasons and objective.game_over(rest | option.events) and objective.game_over(rest | alt.events):
        reasons.append(GAME_OVER_REASON)  # its own counters, as for any object (:func:`_game_reasons`)
    return ExplanationRow(board.ids[head], option.times[pos], marginal / MILLI, tuple(reasons))


def _poison_given(board: Board, team: int, recipients: IntArray) -> int:
    col = board.kind_column("poison")
    return sum(int(effects.gain(board)[h, col]) for h in recipients[:, team] if h >= 0)


def _others(objective: Objective, single_times: IntArray, team_choice: list[TeamOption]) -> Callable[[UnitRef], int]:
    """A function giving the seats lost by everything except one coupled unit."""
    units = objective.units
    ev = units.single_events
    coupled = np.flatnonzero((ev != ev[:, :1]).any(axis=1)) if ev.size else np.zeros(0, dtype=np.int64)
    parts: list[tuple[UnitRef, int]] = [
        (UnitRef(UnitKind.SINGLE, int(u)), int(ev[u, single_times[u]])) for u in coupled
    ] + [(UnitRef(UnitKind.TEAM, i), o.events) for i, o in enumerate(team_choice)]
    events_of = dict(parts)
    # How many units cause each event bit, so "all but one unit" is one pass over the bits.
    bits = max((e.bit_length() for e in events_of.values()), default=0)
    causes = [sum((e >> b) & 1 for e in events_of.values()) for b in range(bits)]
    everything = units.base_events
    for events in events_of.values():
        everything |= events

    def rest(key: UnitRef) -> int:
        own = events_of.get(key, 0)
        if not own:
            return everything
        mask = units.base_events
        for b in range(bits):
            if causes[b] - ((own >> b) & 1) > 0:
                mask |= 1 << b
        return mask

    return rest


class _Facts:
    """What choosing each object ``c`` times does, worked out for all objects at once per ``c``.

    Explanations read these per object as plain Python values, so the per-object part of
    an explanation is string formatting only.
    """

    def __init__(self, objective: Objective) -> None:
        self.objective = objective
        self.by_times: dict[int, tuple[dict[int, list[str]], list[list[str]]]] = {}

    def reasons(self, row: int, times: int) -> list[str]:
        if times not in self.by_times:
            self.by_times[times] = self._tabulate(times)
        counters, flags = self.by_times[times]
        return counters.get(row, []) + flags[row]

    def _tabulate(self, times: int) -> tuple[dict[int, list[str]], list[list[str]]]:
        objective, board = self.objective, self.objective.board
        before: Settled = objective.settled_chosen(0)
        after: Settled = objective.settled_chosen(times)
        whose = ["your" if ally else "opponent's" for ally in board.is_ally.tolist()]
        added = objective.counters_chosen(times) - board.counts  # the team's 2HG poison is explained apart
        rows, cols = np.nonzero(added)
        old = board.counts[rows, cols]
        new = old + added[rows, cols]
        presence = objective.presence_only[cols]
        delta = np.where(presence, np.minimum(new, 1) - np.minimum(old, 1), new - old)
        worth = np.where(board.is_ally[rows], 1.0, -1.0) * objective.weights[rows, cols] * delta
        counters: dict[int, list[str]] = {}
        for r, k, o, n, w in zip(rows.tolist(), cols.tolist(), old.tolist(), new.tolist(), worth.tolist(), strict=True):
            note = f" ({w:+g})" if w else ""
            counters.setdefault(r, []).append(f"{whose[r]} {board.kinds[k]} {o} -> {n}{note}")
        flags: list[list[str]] = [[] for _ in range(board.n_objects)]
        for r in np.flatnonzero(after.annihilated > before.annihilated).tolist():
            flags[r].append("+1/+1 and -1/-1 counters annihilate (704.5q)")
        for r in np.flatnonzero(after.dies & ~before.dies).tolist():
            flags[r].append(f"{whose[r]} permanent dies (704.5f/704.5g): -{objective.worth[r]:g} and its counters")
        for r in np.flatnonzero(after.chapters_after > before.chapters_after).tolist():
            first, last = int(before.chapters_after[r]) + 1, int(after.chapters_after[r])
            flags[r].append(f"Saga chapter {first if first == last else f'{first}-{last}'} triggers (714.2b)")
        for r in np.flatnonzero(after.sacrificed & ~before.sacrificed).tolist():
            flags[r].append("the Saga will be sacrificed after its final chapter (714.4)")
        for j in np.flatnonzero(after.thr_reached & ~before.thr_reached).tolist():
            kind = board.kinds[board.thr_kind[j]]
            label = board.thr_label[j] or kind
            flags[int(board.thr_object[j])].append(f"{label}: {board.thr_at[j]} {kind} reached ({board.thr_effect[j]})")
        return counters, flags


#: Why an object's counters are worth nothing: the resolution ends the game whatever it does.
GAME_OVER_REASON = "the game is over either way: counters added to it are worth nothing (104.2a, 104.3)"


def _game_reasons(objective: Objective, without: int, with_: int) -> list[str]:
    if without == with_:
        return [GAME_OVER_REASON] if objective.game_over(with_) else []
    board = objective.board
    seat_names = board.team_names if board.variant is Variant.TWO_HEADED_GIANT else board.ids[: board.n_players]
    newly = objective.lost_seats(with_) & ~objective.lost_seats(without)
    lost = [seat_names[s] for s in range(len(seat_names)) if (newly >> s) & 1]
    result = objective.game_result(with_)
    words = {
        "win": "wins the game",
        "loss": "loses the game",
        "draw": "draws the game",
        "eliminations": "eliminates",
    }
    return [f"{', '.join(lost)} lose(s): {words.get(result, 'changes the game result')}"] if lost else []
