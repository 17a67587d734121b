"""One page per game: step through its decisions like a Lichess game review.

The page is a single self-contained HTML file -- inline CSS, inline SVG, a few lines of
JavaScript, no CDN, no fetch -- so it opens from a ``file://`` URL offline and can be mailed
as is.  On the left a graph over the game (value taken against value available per
decision, on a signed log scale so a game result does not flatten the material slips; the
grade of each decision marked, a click jumps to it) and the list of decisions; on the
right the current decision: its grade and comment, the board drawn by :mod:`solver.svg`
with the choice made and the best choice marked, and the numbers behind the grade.  The
left and right arrow keys step through the decisions (Home and End jump to the ends), and
the address keeps ``#dN`` so a decision can be linked (the sections are ``decision-N``, so
the browser does not scroll the header away when it opens such a link).
"""

from __future__ import annotations

import html
import math
from collections.abc import Mapping, Sequence
from typing import Any

from ..boardjson import load_board
from ..formats import BoardStruct
from ..rules import Choice, Round
from ..svg import BEST_COLOUR, CHOSEN_COLOUR, choice_svg
from .analyze import DecisionResult
from .grading import Grade, format_accuracy

__all__ = ["GRADE_COLOURS", "REPORT_MARK", "choice_from_json", "game_page", "value_graph"]

GRADE_COLOURS: dict[Grade, str] = {
    Grade.BEST: "#2e7d32",
    Grade.GOOD: "#8bc34a",
    Grade.INACCURACY: "#f9a825",
    Grade.MISTAKE: "#ef6c00",
    Grade.BLUNDER: "#c62828",
}

STYLE = """
body{font-family:system-ui,-apple-system,Segoe UI,Roboto,sans-serif;margin:0;color:#222;background:#fff}
header{padding:10px 20px;border-bottom:1px solid #ddd;display:flex;gap:20px;align-items:baseline}
header h1{font-size:20px;margin:0}
.layout{display:flex;gap:24px;padding:16px 20px;align-items:flex-start;flex-wrap:wrap}
.side{flex:0 0 560px;max-width:560px}
main{flex:1 1 600px;min-width:0}
ol.moves{list-style:none;padding:0;margin:10px 0;font-size:14px}
ol.moves li a{display:block;padding:3px 8px;border-radius:4px;color:#222;text-decoration:none}
ol.moves li a.current{background:#fff3c4}
ol.moves li a:hover{background:#f0f0f0}
.controls{display:flex;gap:10px;align-items:center;margin-bottom:8px}
.controls button{font-size:18px;padding:2px 14px;cursor:pointer}
.decision h2{font-size:18px;margin:4px 0}
.comment{font-size:15px;margin:6px 0 10px}
table.facts{border-collapse:collapse;font-size:13px;margin:8px 0}
table.facts th,table.facts td{border:1px solid #ddd;padding:3px 8px;text-align:left;vertical-align:top}
table.facts th{background:#f6f6f6;font-weight:600}
.diagram svg{max-width:100%;height:auto}
.graph .col{fill:transparent;cursor:pointer}
.graph .col:hover{fill:#f3f3f3}
.graph .col.current{fill:#fff3c4}
.glyph{font-weight:bold}
.g-best{color:#2e7d32}.g-good{color:#558b2f}.g-inaccuracy{color:#b28704}.g-mistake{color:#ef6c00}
.g-blunder{color:#c62828}
.meta{color:#666;font-size:12px}
kbd{border:1px solid #bbb;border-radius:3px;padding:0 4px;font-size:12px;background:#f7f7f7}
"""

SCRIPT = """
(function () {
  "use strict";
  var decisions = Array.prototype.slice.call(document.querySelectorAll("section.decision"));
  var position = document.getElementById("position");
  var current = -1;
  function show(i) {
    if (i < 0 || i >= decisions.length || i === current) { return; }
    current = i;
    decisions.forEach(function (d, j) { d.hidden = j !== i; });
    Array.prototype.forEach.call(document.querySelectorAll("[data-goto]"), function (el) {
      el.classList.toggle("current", Number(el.getAttribute("data-goto")) === i);
    });
    position.textContent = (i + 1) + " / " + decisions.length;
    document.body.setAttribute("data-current", String(i));
    try { history.replaceState(null, "", "#d" + (i + 1)); } catch (e) { /* some file:// set-ups refuse */ }
  }
  document.addEventListener("keydown", function (e) {
    if (e.altKey || e.ctrlKey || e.metaKey) { return; }
    var to = {ArrowLeft: current - 1, ArrowRight: current + 1, Home: 0, End: decisions.length - 1}[e.key];
    if (to !== undefined) { e.preventDefault(); show(to); }
  });
  Array.prototype.forEach.call(document.querySelectorAll("[data-goto]"), function (el) {
    el.addEventListener("click", function (e) { e.preventDefault(); show(Number(el.getAttribute("data-goto"))); });
  });
  document.getElementById("prev").addEventListener("click", function () { show(current - 1); });
  document.getElementById("next").addEventListener("click", function () { show(current + 1); });
  var match = /^#d(\\d+)$/.exec(location.hash);
  show(match ? Math.min(decisions.length, Math.max(1, Number(match[1]))) - 1 : 0);
}());
"""


def choice_from_json(data: Mapping[str, Any]) -> Choice:
    """The :class:`Choice` of a ``{chosen, poison_recipients, rounds}`` object (as in the analysis JSON)."""
    return Choice(tuple(Round(tuple(r["chosen"]), dict(r["poison_recipients"])) for r in data["rounds"]))


#: In the head of every page ``--report`` writes: how a later run knows a page is its own to replace or remove.
REPORT_MARK = '<meta name="generator" content="proliferate analyze --report">'


def game_page(decisions: Sequence[DecisionResult], *, index_href: str = "index.html") -> str:
    """The whole HTML page of one game's decisions, in the order given."""
    game = html.escape(str(decisions[0].game))
    out = [
        f'<!DOCTYPE html>\n<html lang="en">\n<head>\n<meta charset="utf-8">\n{REPORT_MARK}\n',
        f"<title>Game {game} — proliferate review</title>\n<style>{STYLE}</style>\n</head>\n<body>\n",
        f'<header><h1>Game {game}</h1><a href="{html.escape(index_href)}">all games and players</a>'
        '<span class="meta"><kbd>←</kbd> <kbd>→</kbd> step through the decisions; click the graph or the list to '
        "jump</span></header>\n",
        '<div class="layout">\n<div class="side">\n',
        f'<figure class="graph" style="margin:0">{value_graph(decisions)}</figure>\n<ol class="moves">\n',
    ]
    for i, d in enumerate(decisions):
        glyph = f' <span class="glyph g-{d.grade.value}">{html.escape(d.grade.glyph)}</span>' if d.grade.glyph else ""
        out.append(
            f'<li><a href="#d{i + 1}" data-goto="{i}">{i + 1}. turn {d.turn} · {html.escape(d.decider)}{glyph} '
            f'<span class="g-{d.grade.value}">{d.grade.label}</span></a></li>\n'
        )
    out.append("</ol>\n</div>\n<main>\n")
    out.append(
        '<div class="controls"><button id="prev" type="button" aria-label="previous decision">←</button>'
        f'<span id="position">1 / {len(decisions)}</span>'
        '<button id="next" type="button" aria-label="next decision">→</button></div>\n'
    )
    for i, d in enumerate(decisions):
        out.append(_decision(i, d))
    out.append(f"</main>\n</div>\n<script>{SCRIPT}</script>\n</body>\n</html>\n")
    return "".join(out)


def _decision(i: int, d: DecisionResult) -> str:
    names, type_lines = _card_labels(d)
    hidden = " hidden" if i else ""
    phase = f" ({html.escape(d.phase)})" if d.phase else ""
    glyph = f" {html.escape(d.grade.glyph)}" if d.grade.glyph else ""
    rows = [
        ("chosen", _choice_words(d.chosen, names)),
        ("best", _choice_words(d.best, names)),
        (
            "value taken / available",
            f"{_num(d.value_chosen)} / {_num(d.value_best)} points (worst {_num(d.value_worst)})",
        ),
        ("regret", f"{_num(d.regret)} point" + ("" if d.regret == 1 else "s")),
        (
            "winning chances",
            f"{d.win_chances_best:.1f}% after the best choice, {d.win_chances_chosen:.1f}% after this one",
        ),
        ("game result", f"{d.result_chosen} (best: {d.result_best})"),
        ("accuracy", f"{format_accuracy(d.accuracy)}%"),
        ("source", d.location),
    ]
    facts = "".join(f"<tr><th>{html.escape(k)}</th><td>{html.escape(v)}</td></tr>" for k, v in rows)
    return (
        f'<section class="decision" id="decision-{i + 1}" data-index="{i}" data-grade="{d.grade.value}"{hidden}>\n'
        f"<h2>{i + 1}. Turn {d.turn}{phase} · {html.escape(d.decider)} · "
        f'<span class="g-{d.grade.value}">{d.grade.label}{glyph}</span></h2>\n'
        f'<p class="comment">{html.escape(d.comment)}</p>\n'
        f'<div class="diagram">{_diagram(d, names, type_lines)}</div>\n'
        f'<table class="facts">{facts}</table>\n</section>\n'
    )


def _diagram(d: DecisionResult, names: Mapping[str, str], type_lines: Mapping[str, str]) -> str:
    if d.board is None:
        return '<p class="meta">No board was kept with this decision.</p>'
    board = load_board(d.board)
    title = f"turn {d.turn} · {d.decider} proliferates" + (f" ×{board.rounds}" if board.rounds > 1 else "")
    return choice_svg(
        board, choice_from_json(d.chosen), choice_from_json(d.best), title=title, names=names, type_lines=type_lines
    )


def _card_labels(d: DecisionResult) -> tuple[dict[str, str], dict[str, str]]:
    """Names (from the board) and card-database type lines (from ``meta.cards``) by object id."""
    names: dict[str, str] = {}
    type_lines: dict[str, str] = {}
    if isinstance(d.board, BoardStruct):
        names.update((perm.id, perm.name) for perm in d.board.permanents if perm.name)
    elif d.board is not None:
        for perm in d.board.get("permanents", []):
            if isinstance(perm, Mapping) and perm.get("name"):
                names[str(perm["id"])] = str(perm["name"])
    cards = (d.meta or {}).get("cards")
    if isinstance(cards, Mapping):
        for obj_id, card in cards.items():
            if isinstance(card, Mapping) and isinstance(card.get("type_line"), str):
                type_lines[str(obj_id)] = card["type_line"]
    return names, type_lines


def _choice_words(choice: Mapping[str, Any], names: Mapping[str, str]) -> str:
    def one(rnd: Mapping[str, Any]) -> str:
        chosen = [f"{names[i]} ({i})" if i in names and names[i] != i else i for i in rnd["chosen"]]
        text = ", ".join(chosen) or "nothing"
        if rnd["poison_recipients"]:
            text += " (poison to " + ", ".join(f"{t}: {h}" for t, h in rnd["poison_recipients"].items()) + ")"
        return text

    rounds = choice["rounds"]
    if all(r == rounds[0] for r in rounds):
        return one(rounds[0]) + (f" ×{len(rounds)}" if len(rounds) > 1 and rounds[0]["chosen"] else "")
    return " | ".join(f"round {i + 1}: {one(r)}" for i, r in enumerate(rounds))


def _num(value: float) -> str:
    text = f"{value:.3f}".rstrip("0").rstrip(".")
    return "0" if text == "-0" else text


# ---------------------------------------------------------------------------- the graph
_W, _H = 560, 250
_LEFT, _RIGHT, _TOP, _BOTTOM = 46, 12, 26, 30


def _slog(value: float) -> float:
    """Signed log scale: 0 stays 0, 1 point and 1000 points both stay readable."""
    return math.copysign(math.log10(1.0 + abs(value)), value)


def value_graph(decisions: Sequence[DecisionResult]) -> str:
    """SVG: value available (best) and value taken per decision, the grade of each marked; columns are links."""
    n = len(decisions)
    values = [v for d in decisions for v in (d.value_best, d.value_chosen)]
    low, high = min(0.0, *map(_slog, values)), max(0.0, *map(_slog, values))
    if high - low < 1e-9:
        high = low + 1.0
    plot_w, plot_h = _W - _LEFT - _RIGHT, _H - _TOP - _BOTTOM
    step = plot_w / n

    def x(i: int) -> float:
        return _LEFT + step * (i + 0.5)

    def y(v: float) -> float:
        return _TOP + plot_h * (high - _slog(v)) / (high - low)

    out = [
        f'<svg xmlns="http://www.w3.org/2000/svg" class="value-graph" viewBox="0 0 {_W} {_H}" width="{_W}" '
        f'height="{_H}" font-family="system-ui, sans-serif" role="img" '
        'aria-label="Value taken and value available per decision">',
        f'<rect x="0" y="0" width="{_W}" height="{_H}" fill="#fff"/>',
    ]
    for i, d in enumerate(decisions):
        out.append(
            f'<rect class="col" data-goto="{i}" x="{_LEFT + step * i:.1f}" y="{_TOP}" width="{step:.1f}" '
            f'height="{plot_h}"><title>{i + 1}. turn {d.turn}, {html.escape(d.decider)}: '
            f"{html.escape(d.grade.label)}, took {_num(d.value_chosen)} of {_num(d.value_best)}</title></rect>"
        )
    for tick in _ticks(low, high):
        ty = y(tick)
        out.append(f'<line x1="{_LEFT}" x2="{_W - _RIGHT}" y1="{ty:.1f}" y2="{ty:.1f}" stroke="#e4e4e4"/>')
        out.append(
            f'<text x="{_LEFT - 4}" y="{ty + 4:.1f}" font-size="10" text-anchor="end" fill="#666">{_num(tick)}</text>'
        )
    zero = y(0.0)
    out.append(f'<line x1="{_LEFT}" x2="{_W - _RIGHT}" y1="{zero:.1f}" y2="{zero:.1f}" stroke="#999"/>')
    for cls, colour, attr, dash in (
        ("available", BEST_COLOUR, "value_best", ' stroke-dasharray="6 3"'),
        ("taken", CHOSEN_COLOUR, "value_chosen", ""),
    ):
        points = " ".join(f"{x(i):.1f},{y(getattr(d, attr)):.1f}" for i, d in enumerate(decisions))
        out.append(
            f'<polyline class="{cls}" points="{points}" fill="none" stroke="{colour}" stroke-width="2"{dash} '
            'pointer-events="none"/>'
        )
    for i, d in enumerate(decisions):
        colour = GRADE_COLOURS[d.grade]
        cx, cy = x(i), y(d.value_chosen)
        out.append(
            f'<circle cx="{cx:.1f}" cy="{y(d.value_best):.1f}" r="3" fill="{BEST_COLOUR}" pointer-events="none"/>'
        )
        out.append(
            f'<circle class="grade" data-grade="{d.grade.value}" cx="{cx:.1f}" cy="{cy:.1f}" r="6" fill="{colour}" '
            'stroke="#fff" stroke-width="1.5" pointer-events="none"/>'
        )
        if d.grade.glyph:
            out.append(
                f'<text x="{cx:.1f}" y="{cy - 9:.1f}" font-size="12" font-weight="bold" text-anchor="middle" '
                f'fill="{colour}" pointer-events="none">{html.escape(d.grade.glyph)}</text>'
            )
        if n <= 30 or i % math.ceil(n / 30) == 0:
            out.append(
                f'<text x="{cx:.1f}" y="{_H - _BOTTOM + 14}" font-size="10" text-anchor="middle" fill="#666" '
                f'pointer-events="none">{i + 1}</text>'
            )
    out.append(
        f'<text x="{_LEFT}" y="14" font-size="11" fill="#444">points (signed log scale) · '
        f'<tspan fill="{BEST_COLOUR}">- - value available (best)</tspan> · '
        f'<tspan fill="{CHOSEN_COLOUR}">— value taken</tspan> · dots: grade</text>'
    )
    out.append(
        f'<text x="{_LEFT + plot_w / 2:.1f}" y="{_H - 4}" font-size="10" text-anchor="middle" fill="#666">'
        "decision</text></svg>"
    )
    return "".join(out)


def _ticks(low: float, high: float) -> list[float]:
    """Gridlines at 0, ±1, ±10, ±100 ... inside the plotted range."""
    out = [0.0]
    for power in range(0, 7):
        for sign in (1.0, -1.0):
            value = sign * 10.0**power
            if low - 1e-9 <= _slog(value) <= high + 1e-9:
                out.append(value)
    return sorted(out)
