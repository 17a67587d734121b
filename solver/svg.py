"""The one drawing of a board: a pure function from a position to an SVG string.

Modelled on python-chess's ``chess.svg``: no browser, no font files, no state -- the same
board and marks always give the same text, which a report inlines, ``proliferate solve
--svg`` writes to a file and tests read back with :mod:`xml.etree`.  Each controller gets
a band: the player first (life, counters), then their permanents as card-shaped boxes
(name, type line, power/toughness with counters, counters).  The choice that was made is
outlined solid blue, the best choice dashed green (the analogue of a best-move arrow),
and each counter a choice would add is a "+1" badge in the same colour beside the count.

Every drawn object is a ``<g class="object ..." data-id="...">`` with ``chosen`` and
``best`` among its classes when marked, and each counter a ``<text class="counter"
data-kind data-count>``, so the picture can be checked as data.
"""

from __future__ import annotations

from collections.abc import Iterable, Mapping
from dataclasses import dataclass
from html import escape

from .board import Board, CardType, Variant
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
    )
    names = names or {}
    type_lines = type_lines or {}
    rows_of = _rows_by_controller(board)
    columns = max(3, min(_PER_ROW, 1 + max((len(r) for r in rows_of.values()), default=0)))
    width = 2 * _MARGIN + columns * _CARD_W + (columns - 1) * _GAP
    parts: list[str] = []
    y = _MARGIN
    times = f" ×{board.rounds}" if board.rounds > 1 else ""
    head = title or f"{board.variant.value.replace('_', ' ')} · {board.proliferator_id} proliferates{times}"
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


def _rows_by_controller(board: Board) -> dict[int, list[int]]:
    out: dict[int, list[int]] = {}
    for row in range(board.n_players, board.n_objects):
        out.setdefault(int(board.controller[row]), []).append(row)
    return out


def _legend(right: int, y: int, marks: _Marks) -> str:
    items = []
    if marks.chosen is not None:
        items.append(("chosen", CHOSEN_COLOUR, ""))
    if marks.best is not None:
        items.append(("best", BEST_COLOUR, ' stroke-dasharray="6 3"'))
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
    cy = y + 68
    for n, k in enumerate(kinds):
        if n == _MAX_COUNTER_LINES - 1 and len(kinds) > _MAX_COUNTER_LINES:
            out.append(_text("more", x + 8, cy, f"+ {len(kinds) - n} more kinds", size=10, fill="#555"))
            break
        out.append(_counter_line(board, row, k, x, cy, marks))
        cy += _LINE + 2
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


def _counter_line(board: Board, row: int, k: int, x: int, y: int, marks: _Marks) -> str:
    kind = board.kinds[k]
    count = int(board.counts[row, k])
    obj_id = board.ids[row]
    shared = kind == "poison" and row < board.n_players and board.variant is Variant.TWO_HEADED_GIANT
    label = _clip(f"{'team ' if shared else ''}{kind} {count}", 14)  # 2HG poison is the team's (810.10)
    out = [
        f'<text class="counter" data-kind="{escape(kind, quote=True)}" data-count="{count}" x="{x + 8}" y="{y}" '
        f'font-size="12">{escape(label)}</text>'
    ]
    bx = x + _CARD_W - 8
    badges = [("best", BEST_COLOUR, marks.best_added.get(obj_id, {}).get(kind, 0))]
    badges.append(("chosen", CHOSEN_COLOUR, marks.chosen_added.get(obj_id, {}).get(kind, 0)))
    for cls, colour, n in badges:
        if not n:
            continue
        text = f"+{n}"
        w = 8 + 7 * len(text)
        bx -= w
        out.append(
            f'<g class="badge {cls}" data-kind="{escape(kind, quote=True)}" data-added="{n}">'
            f'<rect x="{bx}" y="{y - 11}" width="{w}" height="14" rx="7" fill="{colour}"/>'
            f'<text x="{bx + w / 2:g}" y="{y}" font-size="11" font-weight="bold" fill="#fff" '
            f'text-anchor="middle">{text}</text></g>'
        )
        bx -= 3
    return "".join(out)


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
