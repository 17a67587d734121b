"""Checking actions before they touch a game: one rule for both action modes and for single and vector envs.

An action is checked whole, before any state changes (a rejected step does not count as a
step).  Anything that is not a point of the action space gets a ``ValueError`` that says what
is accepted: in subset mode bits that are each 0 or 1 (booleans, integers, or floats equal to
0 or 1), in sequential mode one integer index of the ``Discrete`` space.  Points of the space
that the mask forbids are a different matter: they are legal inputs, ignored and counted
(``info["illegal_bits"]``), because checkers and unmasked learners send them.
"""

from __future__ import annotations

from typing import Any

import numpy as np
import numpy.typing as npt

__all__ = ["check_actions"]


def _as_array(action: Any, what: str) -> npt.NDArray[Any]:
    try:
        return np.asarray(action)
    except (ValueError, TypeError, OverflowError) as exc:
        raise ValueError(f"{what}, not {action!r} ({exc})") from None


def check_actions(action: Any, mode: str, n_bits: int, batch: int | None) -> npt.NDArray[np.int64]:
    """The action(s) as int64: ``(k, n_bits)`` bits in subset mode, ``(k,)`` indices in sequential mode.

    ``batch`` is the number of sub-envs of a vector env (``k = batch``), or None for a single
    env (``k = 1``; a sequential index may then be a scalar or a one-element array).
    """
    if mode == "subset":
        shape = (n_bits,) if batch is None else (batch, n_bits)
        what = f"a subset action must be {n_bits} bits of shape {shape}, each 0 or 1"
        arr = _as_array(action, what)
        if arr.dtype.kind not in "biuf" or arr.shape != shape:
            raise ValueError(f"{what}, not {_describe(action, arr)}")
        if arr.dtype.kind == "f" and not np.isin(arr, (0.0, 1.0)).all():
            raise ValueError(f"{what}, not {_describe(action, arr)} (floats must equal 0 or 1)")
        if arr.dtype.kind in "iu" and ((arr < 0) | (arr > 1)).any():
            raise ValueError(f"{what}, not {_describe(action, arr)}")
        return arr.astype(np.int64).reshape(-1 if batch is None else batch, n_bits)
    shape_text = "one integer" if batch is None else f"{batch} integers of shape ({batch},)"
    what = f"a sequential action must be {shape_text} in [0, {n_bits - 1}] (index {n_bits - 1} is DONE)"
    arr = _as_array(action, what)
    size_ok = arr.size == 1 and arr.ndim <= 1 if batch is None else arr.shape == (batch,)
    if arr.dtype.kind not in "iu" or not size_ok:
        raise ValueError(f"{what}, not {_describe(action, arr)}")
    if ((arr < 0) | (arr >= n_bits)).any():
        raise ValueError(f"{what}, not {_describe(action, arr)}")
    return arr.astype(np.int64).reshape(-1)


def _describe(action: Any, arr: npt.NDArray[Any]) -> str:
    text = repr(action)
    if len(text) > 60:
        text = text[:57] + "..."
    return f"{text} (dtype {arr.dtype}, shape {arr.shape})"
