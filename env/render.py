"""Pictures of a decision: an ANSI table for people, a small RGB heat map for videos.

Both draw the slots of the current :class:`~env.spaces.View`; the picture needs nothing
but numpy, so ``render_mode="rgb_array"`` works wherever the env does (SB3's
``make_vec_env`` asks for it by default).
"""

from __future__ import annotations

import numpy as np
import numpy.typing as npt

from .opportunities import Opportunity
from .spaces import KIND_VOCABULARY, N_KINDS, RELATION_NAMES, TYPE_NAMES, View

__all__ = ["render_ansi", "render_rgb"]

_KIND_LABELS = (*KIND_VOCABULARY, "other")
_CELL = 6
_RELATION_RGB = np.array([[40, 40, 40], [60, 160, 60], [60, 120, 200], [200, 60, 60]], dtype=np.uint8)


def render_ansi(view: View, mask: npt.NDArray[np.int8], last: npt.NDArray[np.int8], opportunity: Opportunity) -> str:
    """A table: slot, id, relation, type, name, counters, eligible now, chosen at the last decision."""
    board = view.board
    source = opportunity.source
    lines = [
        f"{board.variant.value}: {board.proliferator_id} proliferates x{board.rounds} ({source.card}: {source.text})",
        f"{'slot':>4} {'id':<6} {'rel':<8} {'type':<12} {'name':<28} {'ok':<2} {'last':<4} counters",
    ]
    for slot, row in enumerate(view.row_of_slot):
        if row < 0:
            continue
        counters = ", ".join(f"{board.kinds[k]}={board.counts[row, k]}" for k in np.flatnonzero(board.counts[row]))
        name = str(board.names[row]) or ("life " + str(int(board.life[row])) if row < board.n_players else "")
        lines.append(
            f"{slot:>4} {board.ids[row]:<6} {RELATION_NAMES[view.relation[slot]]:<8} {TYPE_NAMES[view.kind[slot]]:<12} "
            f"{name[:28]:<28} {'*' if mask[slot] else '':<2} {'x' if last[slot] else '':<4} {counters}"
        )
    return "\n".join(lines) + "\n"


def render_rgb(view: View, mask: npt.NDArray[np.int8], last: npt.NDArray[np.int8]) -> npt.NDArray[np.uint8]:
    """One row per slot: relation colour, counters per kind as brightness, then eligible and last-chosen marks."""
    slots = len(view.row_of_slot)
    columns = 1 + N_KINDS + 2
    image = np.zeros((slots, columns, 3), dtype=np.uint8)
    image[:, 0] = _RELATION_RGB[view.relation]
    level = np.log1p(view.counters.astype(np.float64)) / np.log1p(255.0)
    image[:, 1 : 1 + N_KINDS] = (np.clip(level, 0.0, 1.0)[:, :, None] * np.array([255, 220, 120])).astype(np.uint8)
    image[:, 1 + N_KINDS, 1] = 255 * mask.astype(np.uint8)
    image[:, 2 + N_KINDS, 0] = 255 * last.astype(np.uint8)
    return np.repeat(np.repeat(image, _CELL, axis=0), _CELL, axis=1)
