"""The one drawing of a board: a pure function from a position to an SVG string.

Modelled on python-chess's ``chess.svg``: no browser, no font files, no state -- the same
board and marks always give the same text, which a report inlines, ``proliferate solve
--svg`` writes to a file and tests read back with :mod:`xml.etree`.  Each controller gets
a band: the player first (life, counters), then their permanents as card-shaped boxes
(name, type line, power/toughness with counters, counters).  The choice that was made is
outlined solid blue, the best choice dashed green (the analogue of a best-move arrow),
and each counter a choice would add is a "+1" badge in the same colour beside the count.
A count that replacement effects change (614) is named by the cards behind it: the badge's
``data-effects`` and a "via Doubling Season" line under the counter; the board's effects
are listed in a band of their own at the bottom (card, controller, what it does).  A
Two-Headed Giant head's poison is the team's (810.10): the count stays short beside the
badges and a line under it names the team.  Labels are clipped so they never run under
the badges.

Every drawn object is a ``<g class="object ..." data-id="...">`` with ``chosen`` and
``best`` among its classes when marked, each counter a ``<text class="counter"
data-kind data-count>``, each badge a ``<g class="badge" data-kind data-added
[data-effects]>`` and each effect in play a ``<g class="effect" data-card
data-controller>``, so the picture can be checked as data.
"""

from __future__ import annotations

import textwrap
from collections.abc import Iterable, Mapping
from dataclasses import dataclass
from html import escape

from .board import Board, CardType, Variant
from .cards import CARDS, effect_scopes
from .inputs import BoardLike, ChoiceLike, as_board, as_choice
from .rules import Choice, apply_proliferate

__all__ = ["BEST_COLOUR", "CHOSEN_COLOUR", "board_svg", "choice_svg"]

CHOSEN_COLOUR = "#1565c0"
BEST_COLOUR = "#2e7d32"
_CARD_W = 136
_CARD_H = 156
_GAP = 10
_PER_ROW = 6
_MARGIN = 12
_BAND_HEAD = 24
_LEGEND = 26
_LINE = 15
_MAX_COUNTER_LINES = 5
_CHARS_NAME = 16
_CHARS_TYPE = 24
_NOTE = 12
#: Average advance of a character, in px per px of font size (for clipping labels to a width).
_CHAR_EM = 0.6
EFFECT_COLOUR = "#6a1b9a"

_TYPE_ORDER = (
    CardType.KINDRED,
    CardType.ARTIFACT,
    CardType.ENCHANTMENT,
    CardType.LAND,
    CardType.PLANESWALKER,
    CardType.BATTLE,
    CardType.CREATURE,
)


@dataclass(frozen=True)
class _Marks:
    chosen: frozenset[str] | None
    best: frozenset[str] | None
    chosen_added: Mapping[str, Mapping[str, int]]
    best_added: Mapping[str, Mapping[str, int]]
    #: The cards whose replacement effects apply to each (row, kind index) cell, in board order.
    effects: Mapping[tuple[int, int], tuple[str, ...]]


def choice_svg(
    board: BoardLike,
    chosen: ChoiceLike | None = None,
    best: ChoiceLike | None = None,
    *,
    title: str = "",
    names: Mapping[str, str] | None = None,
    type_lines: Mapping[str, str] | None = None,
) -> str:
    """:func:`board_svg` with the marks and "+1" badges worked out by the rules from whole choices.

    The board and the choices come in any form :func:`solver.inputs.as_board` and
    :func:`solver.inputs.as_choice` take.
    """
    board = as_board(board)
    chosen_ = None if chosen is None else as_choice(chosen, board)
    best_ = None if best is None else as_choice(best, board)
    chosen_out = apply_proliferate(board, chosen_) if chosen_ is not None else None
    best_out = apply_proliferate(board, best_) if best_ is not None else None
    return board_svg(
        board,
        chosen=None if chosen_ is None else _ids(chosen_),
        best=None if best_ is None else _ids(best_),
        chosen_added=chosen_out.added if chosen_out is not None else None,
        best_added=best_out.added if best_out is not None else None,
        title=title,
        names=names,
        type_lines=type_lines,
    )


def board_svg(
    board: BoardLike,
    *,
    chosen: Iterable[str] | None = None,
    best: Iterable[str] | None = None,
    chosen_added: Mapping[str, Mapping[str, int]] | None = None,
    best_added: Mapping[str, Mapping[str, int]] | None = None,
    title: str = "",
    names: Mapping[str, str] | None = None,
    type_lines: Mapping[str, str] | None = None,
) -> str:
    """The board as SVG; ``chosen``/``best`` are ids to outline, ``*_added`` the counters (kind -> n) each adds.

    ``None`` leaves that mark out of the picture and its legend (``best`` alone draws a
    solver's answer; neither, a plain position).  ``names`` and ``type_lines`` override the
    board's own, by id (e.g. names from the Arena card database).  The board comes in any form
    :func:`solver.inputs.as_board` takes.
    """
    board = as_board(board)
    marks = _Marks(
        None if chosen is None else frozenset(chosen),
        None if best is None else frozenset(best),
        chosen_added or {},
        best_added or {},
        _effects_by_cell(board),
    )
    names = names or {}
    type_lines = type_lines or {}
    rows_of = _rows_by_controller(board)
    columns = max(3, min(_PER_ROW, 1 + max((len(r) for r in rows_of.values()), default=0)))
    times = f" ×{board.rounds}" if board.rounds > 1 else ""
    head = title or f"{board.variant.value.replace('_', ' ')} · {board.proliferator_id} proliferates{times}"
    # Wide enough for the title beside the legend, whatever the number of cards.
    while columns < _PER_ROW and _text_width(head, 14) + _legend_width(marks) + 16 > _width(columns) - 2 * _MARGIN:
        columns += 1
    width = _width(columns)
    parts: list[str] = []
    y = _MARGIN
    parts.append(
        f'<text class="title" x="{_MARGIN}" y="{y + 14}" font-size="14" font-weight="bold">{escape(head)}</text>'
    )
    parts.append(_legend(width - _MARGIN, y + 14, marks))
    y += _LEGEND
    for p in range(board.n_players):
        rows = [p, *rows_of.get(p, [])]
        pid = board.ids[p]
        team = board.team_names[int(board.team[p])]
        label = (
            pid + (f" · team {team}" if team != pid else "") + (" · proliferating" if p == board.proliferator else "")
        )
        parts.append(f'<g class="band" data-controller="{escape(pid)}">')
        parts.append(
            f'<text class="band-label" x="{_MARGIN}" y="{y + 16}" font-size="13" font-weight="bold">'
            f"{escape(label)}</text>"
        )
        y += _BAND_HEAD
        for n, row in enumerate(rows):
            col, line = n % columns, n // columns
            x0 = _MARGIN + col * (_CARD_W + _GAP)
            y0 = y + line * (_CARD_H + _GAP)
            parts.append(_object(board, row, x0, y0, marks, names, type_lines))
        y += ((len(rows) - 1) // columns + 1) * (_CARD_H + _GAP)
        parts.append("</g>")
    if board.effects:
        band, y = _effects_band(board, y, width)
        parts.append(band)
    height = y + _MARGIN - _GAP
    return (
        f'<svg xmlns="http://www.w3.org/2000/svg" class="board" viewBox="0 0 {width} {height}" '
        f'width="{width}" height="{height}" font-family="system-ui, -apple-system, Segoe UI, Roboto, sans-serif" '
        f'role="img" aria-label="{escape(head, quote=True)}">'
        f'<rect x="0" y="0" width="{width}" height="{height}" fill="#fafafa"/>' + "".join(parts) + "</svg>"
    )


# ---------------------------------------------------------------------------- pieces
def _ids(choice: Choice | None) -> frozenset[str]:
    if choice is None:
        return frozenset()
    return frozenset(obj for rnd in choice.rounds for obj in rnd.chosen)


def _width(columns: int) -> int:
    return 2 * _MARGIN + columns * _CARD_W + (columns - 1) * _GAP


def _text_width(text: str, size: int) -> float:
    return len(text) * size * _CHAR_EM


def _fit(text: str, px: float, size: int) -> str:
    """``text`` clipped to about ``px`` pixels at font ``size``."""
    return _clip(text, max(3, int(px / (size * _CHAR_EM))))


def _effects_by_cell(board: Board) -> dict[tuple[int, int], tuple[str, ...]]:
    """The cards whose replacement effects (614) apply to each (row, kind) cell holding counters."""
    out: dict[tuple[int, int], list[str]] = {}
    for effect, scope, controller in effect_scopes(board):
        rows = scope.objects(board, controller)
        kinds = [k for k, kind in enumerate(board.kinds) if scope.kinds(kind)]
        for row in rows.nonzero()[0].tolist():
            for k in kinds:
                cards = out.setdefault((row, k), [])
                if effect.card not in cards:
                    cards.append(effect.card)
    return {cell: tuple(cards) for cell, cards in out.items()}


def _effects_band(board: Board, y: int, width: int) -> tuple[str, int]:
    """The replacement effects in play, one line each: the card, its controller, what it does."""
    out = [
        '<g class="effects">',
        f'<text class="band-label" x="{_MARGIN}" y="{y + 16}" font-size="13" font-weight="bold">'
        "replacement effects in play</text>",
    ]
    y += _BAND_HEAD + _LINE - 4
    chars = max(20, int((width - 2 * _MARGIN - 16) / (12 * _CHAR_EM)))
    for effect in board.effects:
        card = CARDS[effect.card]
        level = "".join(f", {p.name} {getattr(effect, p.name)}" for p in card.parameters)
        level += f", on {effect.source}" if effect.source else ""
        out.append(
            f'<g class="effect" data-card="{escape(effect.card, quote=True)}" '
            f'data-controller="{escape(effect.controller, quote=True)}">'
            f'<rect x="{_MARGIN}" y="{y - 10}" width="10" height="10" rx="2" fill="{EFFECT_COLOUR}"/>'
            + _text("effect-card", _MARGIN + 16, y, f"{effect.card} ({effect.controller}{level})", size=12, bold=True)
        )
        for line in textwrap.wrap(card.summary, chars - 2):
            y += _LINE
            out.append(_text("effect-text", _MARGIN + 24, y, line, size=11, fill="#444"))
        out.append("</g>")
        y += _LINE + 5
    out.append("</g>")
    return "".join(out), y - _LINE + _GAP


def _rows_by_controller(board: Board) -> dict[int, list[int]]:
    out: dict[int, list[int]] = {}
    for row in range(board.n_players, board.n_objects):
        out.setdefault(int(board.controller[row]), []).append(row)
    return out


def _legend_items(marks: _Marks) -> list[tuple[str, str, str]]:
    items = []
    if marks.chosen is not None:
        items.append(("chosen", CHOSEN_COLOUR, ""))
    if marks.best is not None:
        items.append(("best", BEST_COLOUR, ' stroke-dasharray="6 3"'))
    return items


def _legend_width(marks: _Marks) -> int:
    return sum(8 + 7 * len(label) + 26 + 12 for label, _, _ in _legend_items(marks))


def _legend(right: int, y: int, marks: _Marks) -> str:
    items = _legend_items(marks)
    out = ['<g class="legend">']
    x = right
    for label, colour, dash in reversed(items):
        x -= 8 + 7 * len(label)
        out.append(f'<text x="{x}" y="{y}" font-size="12" fill="{colour}">{label}</text>')
        x -= 26
        out.append(
            f'<rect x="{x}" y="{y - 11}" width="20" height="12" rx="3" fill="none" stroke="{colour}" '
            f'stroke-width="3"{dash}/>'
        )
        x -= 12
    out.append("</g>")
    return "".join(out)


def _object(
    board: Board,
    row: int,
    x: int,
    y: int,
    marks: _Marks,
    names: Mapping[str, str],
    type_lines: Mapping[str, str],
) -> str:
    obj_id = board.ids[row]
    is_player = row < board.n_players
    chosen = marks.chosen is not None and obj_id in marks.chosen
    best = marks.best is not None and obj_id in marks.best
    classes = ["object", "player" if is_player else "permanent"]
    if chosen:
        classes.append("chosen")
    if best:
        classes.append("best")
    phased = not is_player and bool(board.phased_out[row])
    if phased:
        classes.append("phased-out")
    out = [f'<g class="{" ".join(classes)}" data-id="{escape(obj_id, quote=True)}">']
    fill = "#e8eef7" if is_player else ("#eeeeee" if phased else "#ffffff")
    out.append(
        f'<rect class="card" x="{x}" y="{y}" width="{_CARD_W}" height="{_CARD_H}" rx="{14 if is_player else 7}" '
        f'fill="{fill}" stroke="#777" stroke-width="1"/>'
    )
    if chosen:
        out.append(
            f'<rect class="mark-chosen" x="{x - 3}" y="{y - 3}" width="{_CARD_W + 6}" height="{_CARD_H + 6}" '
            f'rx="9" fill="none" stroke="{CHOSEN_COLOUR}" stroke-width="4"/>'
        )
    if best:
        out.append(
            f'<rect class="mark-best" x="{x + 3}" y="{y + 3}" width="{_CARD_W - 6}" height="{_CARD_H - 6}" '
            f'rx="5" fill="none" stroke="{BEST_COLOUR}" stroke-width="3" stroke-dasharray="7 4"/>'
        )
    name = names.get(obj_id) or ("" if is_player else str(board.names[row])) or obj_id
    out.append(_text("name", x + 8, y + 19, _clip(name, _CHARS_NAME), size=13, bold=True, full=name))
    sub = f"life {int(board.life[row])}" if is_player else type_lines.get(obj_id) or _type_line(board, row)
    out.append(_text("type-line", x + 8, y + 35, _clip(sub, _CHARS_TYPE), size=10, fill="#555", full=sub))
    if name != obj_id:
        out.append(_text("object-id", x + 8, y + 49, _clip(f"id {obj_id}", _CHARS_TYPE), size=9, fill="#888"))
    kinds = [k for k in range(len(board.kinds)) if board.counts[row, k] > 0]
    added_kinds = {*marks.chosen_added.get(obj_id, {}), *marks.best_added.get(obj_id, {})}
    kinds += [board.kinds.index(k) for k in added_kinds if board.counts[row, board.kinds.index(k)] == 0]
    # Counter lines first (at most _MAX_COUNTER_LINES, the last one "+ N more kinds" when they do not
    # fit), then the notes under them in the space left; a note left out is still on the badge's title.
    more = len(kinds) > _MAX_COUNTER_LINES
    shown = kinds[: _MAX_COUNTER_LINES - 1] if more else kinds
    spare = (_MAX_COUNTER_LINES - len(shown) - more) * (_LINE + 2)
    cy = y + 68
    for k in shown:
        out.append(_counter_line(board, row, k, x, cy, marks))
        for note_cls, note, full, fill in _notes(board, row, k, marks):
            if spare < _NOTE:
                break
            spare -= _NOTE
            cy += _NOTE
            out.append(_text(note_cls, x + 14, cy, _fit(note, _CARD_W - 22, 9), size=9, fill=fill, full=full))
        cy += _LINE + 2
    if more:
        out.append(_text("more", x + 8, cy, f"+ {len(kinds) - len(shown)} more kinds", size=10, fill="#555"))
    if not is_player:
        pt = _power_toughness(board, row)
        if pt:
            out.append(
                f'<text class="pt" x="{x + _CARD_W - 8}" y="{y + _CARD_H - 9}" font-size="14" font-weight="bold" '
                f'text-anchor="end">{escape(pt)}</text>'
            )
        if int(board.damage[row]):
            out.append(
                _text("damage", x + 8, y + _CARD_H - 9, f"damage {int(board.damage[row])}", size=10, fill="#b71c1c")
            )
    out.append("</g>")
    return "".join(out)


def _shared_poison(board: Board, row: int, kind: str) -> bool:
    """A 2HG head's poison counters are the team's (810.10)."""
    return kind == "poison" and row < board.n_players and board.variant is Variant.TWO_HEADED_GIANT


def _added(board: Board, row: int, k: int, marks: _Marks) -> list[tuple[str, str, int]]:
    """The badges of one counter line, right to left: (class, colour, counters added).

    A marked object whose counters of a kind it has replacement effects reduce to none (Vorinclex
    halving one counter) gets a "+0" badge, so that the card behind it can be shown.
    """
    obj_id, kind = board.ids[row], board.kinds[k]
    affected = bool(marks.effects.get((row, k))) and board.counts[row, k] > 0
    badges = []
    for cls, colour, ids, added in (
        ("best", BEST_COLOUR, marks.best, marks.best_added),
        ("chosen", CHOSEN_COLOUR, marks.chosen, marks.chosen_added),
    ):
        n = added.get(obj_id, {}).get(kind, 0)
        if n or (affected and ids is not None and obj_id in ids):
            badges.append((cls, colour, n))
    return badges


def _notes(board: Board, row: int, k: int, marks: _Marks) -> list[tuple[str, str, str, str]]:
    """Small lines under a counter: whose poison it is (2HG) and the cards behind its badges' counts."""
    kind = board.kinds[k]
    out = []
    if _shared_poison(board, row, kind):
        team = board.team_names[int(board.team[row])]
        out.append(
            ("team-poison", f"team {team}'s (810.10)", f"team {team}'s poison, shared by its heads (810.10)", "#555")
        )
    cards = marks.effects.get((row, k), ())
    if cards and _added(board, row, k, marks):
        for card in cards:  # "via Vorinclex": the name before its epithet fits the card
            note = "via " + card.split(", ")[0]
            out.append(("effect-note", note, f"via {card} (a replacement effect, 614)", EFFECT_COLOUR))
    return out


def _counter_line(board: Board, row: int, k: int, x: int, y: int, marks: _Marks) -> str:
    kind = board.kinds[k]
    count = int(board.counts[row, k])
    cards = marks.effects.get((row, k), ())
    bx = x + _CARD_W - 8
    badges = []
    for cls, colour, n in _added(board, row, k, marks):
        text = f"+{n}"
        w = 8 + 7 * len(text)
        bx -= w
        via = f' data-effects="{escape("; ".join(cards), quote=True)}"' if cards else ""
        tip = f"<title>{escape(f'{text}: ' + ', '.join(cards))}</title>" if cards else ""
        ring = f' stroke="{EFFECT_COLOUR}" stroke-width="2"' if cards else ""
        badges.append(
            f'<g class="badge {cls}" data-kind="{escape(kind, quote=True)}" data-added="{n}"{via}>{tip}'
            f'<rect x="{bx}" y="{y - 11}" width="{w}" height="14" rx="7" fill="{colour}"{ring}/>'
            f'<text x="{bx + w / 2:g}" y="{y}" font-size="11" font-weight="bold" fill="#fff" '
            f'text-anchor="middle">{text}</text></g>'
        )
        bx -= 3
    full = f"{kind} {count}"
    label = _fit(full, bx - (x + 8) - 2, 12)  # never under the badges
    tip = f"<title>{escape(full)}</title>" if label != full else ""
    counter = (
        f'<text class="counter" data-kind="{escape(kind, quote=True)}" data-count="{count}" x="{x + 8}" y="{y}" '
        f'font-size="12">{tip}{escape(label)}</text>'
    )
    return counter + "".join(badges)


def _type_line(board: Board, row: int) -> str:
    bits = int(board.types[row])
    types = [t.name.capitalize() for t in _TYPE_ORDER if t.name and bits & int(t)]
    subtypes = [str(s) for s in board.subtypes[row]]
    line = " ".join(types) or "Permanent"
    return line + (" — " + " ".join(subtypes) if subtypes else "")


def _power_toughness(board: Board, row: int) -> str:
    """Power/toughness with counters counted (613.4c), when the permanent has them."""
    power, toughness = int(board.power[row]), int(board.toughness[row])
    if not (int(board.types[row]) & int(CardType.CREATURE) or power or toughness):
        return ""  # the board stores "no power/toughness" as 0 on a noncreature
    counts = board.counts[row]
    power += int(counts @ board.power_per_counter)
    toughness += int(counts @ board.toughness_per_counter)
    return f"{power}/{toughness}"


def _clip(text: str, chars: int) -> str:
    return text if len(text) <= chars else text[: chars - 1] + "…"


def _text(
    cls: str,
    x: float,
    y: float,
    text: str,
    *,
    size: int,
    bold: bool = False,
    fill: str = "#222",
    full: str | None = None,
) -> str:
    weight = ' font-weight="bold"' if bold else ""
    tip = f"<title>{escape(full)}</title>" if full is not None and full != text else ""
    return (
        f'<text class="{cls}" x="{x:g}" y="{y:g}" font-size="{size}" fill="{fill}"{weight}>{tip}{escape(text)}</text>'
    )
