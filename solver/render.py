"""Plain-text rendering of boards and decisions for a terminal.

The CLI is the first thing a new user sees, so the answer comes first (what to choose,
round by round, and who gets each 2HG team's poison), then what it is worth and whether
that is proven, then what happens on the board, then *why*: one row per eligible object.
Plain text with space-aligned columns keeps it readable in any terminal, log or bug
report, and free of colour libraries.
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from typing import TYPE_CHECKING

if TYPE_CHECKING:  # decision.py renders itself through this module
    from .board import Board
    from .decision import Alternative, Decision
    from .rules import Choice, Round

__all__ = ["points", "render_board", "render_decision", "render_score"]

_RESULT_WORDS = {
    "win": "win (every opponent loses)",
    "draw": "draw (everyone left loses at once)",
    "loss": "loss (you lose)",
    "eliminations": "eliminations (some opponents lose, the game goes on)",
    "none": "none (nobody loses)",
}


def points(value: float) -> str:
    """A value in points with its sign and at most three decimals (values are whole milli-points)."""
    text = f"{value:+.3f}".rstrip("0").rstrip(".")
    return "0" if text in ("+0", "-0") else text


def render_decision(decision: Decision) -> str:
    """The whole answer: choice, value and status, outcome, explanation, and alternatives if asked for."""
    sections = [_answer(decision), _outcome(decision), _explanation(decision)]
    if len(decision.alternatives) > 1:
        sections.append(_alternatives(decision.alternatives))
    return "\n\n".join(sections) + "\n"


def render_board(board: Board) -> str:
    """The objects that matter to a proliferate decision: who controls what, with which counters."""
    times = {1: "once", 2: "twice"}.get(board.rounds, f"{board.rounds} times")
    head = f"Board ({board.variant.value}; {board.proliferator_id} proliferates {times}):"
    rows = []
    for player in board.players:
        team = f"team {player.team}" if player.team != player.id else ""
        rows.append([player.id, "player", team, _counters(player.counters)])
    for perm in board.permanents:
        what = perm.name or ", ".join(perm.types) or "permanent"
        pt = f" {perm.power}/{perm.toughness}" if perm.power is not None and perm.toughness is not None else ""
        rows.append([perm.id, what + pt, perm.controller, _counters(perm.counters)])
    effects = [f"{e.card} ({e.controller})" for e in board.effects]
    table = _table(["id", "what", "controller", "counters"], rows)
    return head + "\n" + table + (f"\n  effects: {', '.join(effects)}" if effects else "")


def render_score(choice: Choice, value: float, best: float, regret: float) -> str:
    """A given choice's value against the best (``proliferate score``): choice, value, best, regret."""
    if len(choice.rounds) == 1:
        lines = [f"Choice: {_round(choice.rounds[0])}"]
    else:
        lines = [f"Choice, {len(choice.rounds)} proliferates:"]
        lines += [f"  round {r}: {_round(rnd)}" for r, rnd in enumerate(choice.rounds, start=1)]
    lines += [
        f"Value:  {points(value)} points",
        f"Best:   {points(best)} points",
        f"Regret: {points(regret).lstrip('+')} points" + (" (this choice is optimal)" if regret == 0 else ""),
    ]
    return "\n".join(lines) + "\n"


# ---------------------------------------------------------------------------- sections
def _answer(decision: Decision) -> str:
    rounds = decision.rounds
    if len(rounds) == 1:
        lines = [f"Proliferate: {_round(rounds[0])}"]
    else:
        lines = [f"Proliferate {len(rounds)} times (no state-based actions in between, 704.3):"]
        lines += [f"  round {r}: {_round(rnd)}" for r, rnd in enumerate(rounds, start=1)]
    status = decision.status
    proof = "proven optimal" if status == "OPTIMAL" else f"not proven optimal, bound {points(decision.bound)}"
    lines.append(
        f"Value: {points(decision.value)} points ({status}: {proof}; "
        f"method {decision.method}, {decision.elapsed * 1000:.1f} ms)"
    )
    lines.append(f"Game result: {_RESULT_WORDS.get(decision.game_result, decision.game_result)}")
    return "\n".join(lines)


def _outcome(decision: Decision) -> str:
    outcome = decision.outcome
    rows: list[list[str]] = []
    if outcome.losers:
        rows.append(["loses", ", ".join(outcome.losers)])
    if outcome.dies:
        rows.append(["dies", ", ".join(outcome.dies)])
    if outcome.annihilated:
        pairs = (f"{obj} ({n} pair{'s' if n != 1 else ''})" for obj, n in outcome.annihilated.items())
        rows.append(["annihilated", ", ".join(pairs) + " (704.5q)"])
    if outcome.chapters:
        chapters = (f"{obj} {', '.join(map(str, ch))}" for obj, ch in outcome.chapters.items())
        rows.append(["chapters", "; ".join(chapters) + " (714.2b)"])
    if outcome.sacrificed:
        rows.append(["sacrificed", ", ".join(outcome.sacrificed) + " (714.4)"])
    for hit in outcome.thresholds:
        label = f"{hit.label}: " if hit.label else ""
        rows.append(["threshold", f"{label}{hit.object} has {hit.at}+ {hit.kind} ({hit.effect})"])
    if not rows:
        return "Outcome: nobody loses, nothing dies, no Saga chapter or threshold triggers."
    return "Outcome:\n" + _table(None, rows)


def _explanation(decision: Decision) -> str:
    rounds = len(decision.rounds)
    rows = []
    for row in decision.explanation:
        chosen = "no" if not row.chosen else "yes" if rounds == 1 else f"{row.chosen}/{rounds}"
        rows.append([row.id, chosen, points(row.marginal), "; ".join(row.reasons) or "-"])
    if not rows:
        return "Why: nothing on the board has a counter, so there is nothing to choose (701.34a)."
    head = "Why (marginal = points lost by dropping a chosen object, or gained by adding one left out):"
    return head + "\n" + _table(["id", "chosen", "marginal", "reasons"], rows, right={2})


def _alternatives(alternatives: Sequence[Alternative]) -> str:
    rows = [[str(a.rank), points(a.value), points(-a.regret), _choice(a.choice)] for a in alternatives]
    head = f"Best {len(alternatives)} distinct choices:"
    return head + "\n" + _table(["rank", "value", "vs best", "choice"], rows, right={0, 1, 2})


# ---------------------------------------------------------------------------- pieces
def _round(rnd: Round) -> str:
    ids = ", ".join(rnd.chosen) if rnd.chosen else "nothing (choosing no object is legal, 701.34a)"
    return ids + _recipients(rnd.poison_recipients)


def _recipients(recipients: Mapping[str, str]) -> str:
    if not recipients:
        return ""
    given = ", ".join(f"team {team} -> {head}" for team, head in recipients.items())
    return f"  [poison: {given}] (701.34b)"


def _choice(choice: Choice) -> str:
    if len(choice.rounds) == 1:
        return _round(choice.rounds[0])
    return " | ".join(f"round {r}: {_round(rnd)}" for r, rnd in enumerate(choice.rounds, start=1))


def _counters(counters: Mapping[str, int]) -> str:
    return ", ".join(f"{kind} {n}" for kind, n in counters.items() if n) or "-"


def _table(
    header: Sequence[str] | None, rows: Sequence[Sequence[str]], right: set[int] | frozenset[int] = frozenset()
) -> str:
    """Rows as space-aligned columns, indented two spaces; the last column is never padded."""
    lines = [list(header)] if header else []
    lines += [list(r) for r in rows]
    widths = [max(len(line[c]) for line in lines) for c in range(len(lines[0]))]
    out = []
    for line in lines:
        cells = [
            cell if c == len(line) - 1 and c not in right else (cell.rjust if c in right else cell.ljust)(widths[c])
            for c, cell in enumerate(line)
        ]
        out.append(("  " + "  ".join(cells)).rstrip())
    return "\n".join(out)
