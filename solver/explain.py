"""Explanations: for each eligible object, what choosing it is worth and why, in plain words.

Built from the objective's per-unit tables, so an explanation costs one pass over the
eligible objects and never re-solves: an object's *marginal* is the value of the decision
with it chosen (in the rounds the decision chooses it, or every round if it is left out)
minus the value without it, everything else held fixed.
"""

from __future__ import annotations

from collections.abc import Callable

import numpy as np

from .board import Board, BoolArray, IntArray, Variant
from .decision import ExplanationRow
from .objective import MILLI, Objective, TeamOption, TeamUnit
from .rules import Settled, lost_seats, team_poison

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

    for u, row in enumerate(units.single_rows):
        t = int(single_times[u])
        with_c = t if t else board.rounds
        rest = others(("single", u))
        v_with = int(material[with_c, row]) + objective.game_milli(rest | int(events[with_c, row]))
        v_without = int(material[0, row]) + objective.game_milli(rest | int(events[0, row]))
        reasons = _row_reasons(objective, int(row), with_c)
        reasons += _game_reasons(objective, rest | int(events[0, row]), rest | int(events[with_c, row]))
        rows[int(row)] = ExplanationRow(board.ids[row], t, (v_with - v_without) / MILLI, tuple(reasons))

    for i, (team, option) in enumerate(zip(units.teams, team_choice, strict=True)):
        rest = others(("team", i))
        for pos, head in enumerate(team.heads):
            if board.counts[head].any():
                rows[head] = _head_row(objective, team, option, pos, rest)
    return tuple(rows[r] for r in sorted(rows))


def _head_row(objective: Objective, team: TeamUnit, option: TeamOption, pos: int, rest: int) -> ExplanationRow:
    """A 2HG head: its own counters as for any object, plus the team's shared poison it receives.

    Its marginal compares with the best option that flips this head alone, so a head whose
    teammate could take the poison just as well is worth 0 alone; the reasons then still say
    what the team's poison does, against choosing no head of the team at all.
    """
    board = objective.board
    head = team.heads[pos]

    def worth(o: TeamOption) -> int:
        return o.material + objective.game_milli(rest | o.events)

    chosen_now = option.times[pos] > 0
    flip = [o for o in team.options if (o.times[pos] > 0) != chosen_now]
    alt = max(flip, key=worth) if flip else option
    marginal = (worth(option) - worth(alt)) * (1 if chosen_now else -1)
    with_opt = option if chosen_now else alt
    reasons = _row_reasons(objective, head, with_opt.times[pos])
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
    return ExplanationRow(board.ids[head], option.times[pos], marginal / MILLI, tuple(reasons))


def _poison_given(board: Board, team: int, recipients: IntArray) -> int:
    col = board.kind_column("poison")
    return sum(int(board.gain[h, col]) for h in recipients[:, team] if h >= 0)


def _others(
    objective: Objective, single_times: IntArray, team_choice: list[TeamOption]
) -> Callable[[tuple[str, int]], int]:
    """A function giving the seats lost by everything except one coupled unit."""
    units = objective.units
    ev = units.single_events
    coupled = np.flatnonzero((ev != ev[:, :1]).any(axis=1)) if ev.size else np.zeros(0, dtype=np.int64)
    parts: list[tuple[tuple[str, int], int]] = [(("single", int(u)), int(ev[u, single_times[u]])) for u in coupled] + [
        (("team", i), o.events) for i, o in enumerate(team_choice)
    ]
    total_by_key = dict(parts)

    def rest(key: tuple[str, int]) -> int:
        mask = units.base_events
        for other, events in total_by_key.items():
            if other != key:
                mask |= events
        return mask

    return rest


def _row_reasons(objective: Objective, row: int, times: int) -> list[str]:
    """What happens to one object chosen in ``times`` rounds, compared with not chosen."""
    board = objective.board
    before: Settled = objective.settled_by_rounds[0]
    after: Settled = objective.settled_by_rounds[times]
    whose = "your" if board.is_ally[row] else "opponent's"
    out: list[str] = []
    col_poison = board.kind_column("poison")
    weights = objective.weights[row]
    side = 1.0 if board.is_ally[row] else -1.0
    for k in np.flatnonzero(board.gain[row] * times):
        if board.variant is Variant.TWO_HEADED_GIANT and k == col_poison and row < board.n_players:
            continue
        old, new = int(board.counts[row, k]), int(board.counts[row, k] + times * board.gain[row, k])
        worth = side * weights[k] * (min(new, 1) - min(old, 1) if objective.presence_only[k] else new - old)
        note = f" ({worth:+g})" if worth else ""
        out.append(f"{whose} {board.kinds[k]} {old} -> {new}{note}")
    if after.annihilated[row] > before.annihilated[row]:
        out.append("+1/+1 and -1/-1 counters annihilate (704.5q)")
    if after.dies[row] and not before.dies[row]:
        out.append(f"{whose} permanent dies (704.5f/704.5g): -{objective.worth[row]:g} and its counters")
    if after.shield_used[row] and not before.shield_used[row]:
        out.append("a shield counter is removed instead of destruction (122.1c)")
    if after.chapters_after[row] > before.chapters_after[row]:
        first, last = int(before.chapters_after[row]) + 1, int(after.chapters_after[row])
        span = str(first) if first == last else f"{first}-{last}"
        out.append(f"Saga chapter {span} triggers (714.2b)")
    if after.sacrificed[row] and not before.sacrificed[row]:
        out.append("the Saga will be sacrificed after its final chapter (714.4)")
    for j in np.flatnonzero(board.thr_object == row):
        if after.thr_reached[j] and not before.thr_reached[j]:
            label = board.thr_label[j] or board.kinds[board.thr_kind[j]]
            out.append(f"{label}: {board.thr_at[j]} {board.kinds[board.thr_kind[j]]} reached ({board.thr_effect[j]})")
    return out


def _game_reasons(objective: Objective, without: int, with_: int) -> list[str]:
    if without == with_:
        return []
    board = objective.board
    seat_names = board.team_names if board.variant is Variant.TWO_HEADED_GIANT else board.ids[: board.n_players]
    newly = lost_seats(board, with_) & ~lost_seats(board, without)
    lost = [seat_names[s] for s in range(len(seat_names)) if (newly >> s) & 1]
    result = objective.game_result(with_)
    words = {
        "win": "wins the game",
        "loss": "loses the game",
        "draw": "draws the game",
        "eliminations": "eliminates",
    }
    return [f"{', '.join(lost)} lose(s): {words.get(result, 'changes the game result')}"] if lost else []
