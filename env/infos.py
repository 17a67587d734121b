"""Per-game info dicts batched as Gymnasium's vector envs batch them (``VectorEnv._add_info``), key for key.

Used by the native vector envs (:mod:`env.vector`) and by their batching by key
(:class:`env.lockstep_v1.Columns`), which makes the same arrays without a dict per game.
"""

from __future__ import annotations

from collections.abc import Sequence
from typing import Any

import numpy as np
import numpy.typing as npt

__all__ = ["add_info", "batch_infos", "info_array"]

Info = dict[str, Any]


def batch_infos(infos: Sequence[Info]) -> dict[str, Any]:
    """Per-sub-env infos batched as :meth:`gymnasium.vector.VectorEnv._add_info` batches them (:func:`add_info`)."""
    out: dict[str, Any] = {}
    for i, info in enumerate(infos):
        add_info(out, info, i, len(infos))
    return out


def add_info(batched: dict[str, Any], info: Info, i: int, n: int) -> dict[str, Any]:
    """Add sub-env ``i``'s ``info`` to ``batched``: Gymnasium's ``VectorEnv._add_info``, key for key.

    The same arrays (typed by the first value a key gets), the same ``_key`` masks and the
    same key order; only the mask of a key is made once, where Gymnasium makes a new zero
    array on every call (most of its cost with 256 sub-envs).  ``tests/test_env_vector.py``
    checks it against Gymnasium's.
    """
    for key, value in info.items():
        array: Any
        if key == "final_obs":
            array = batched.get("final_obs")
            if array is None:
                array = np.full(n, fill_value=None, dtype=object)
            array[i] = value
        elif isinstance(value, dict):
            array = add_info(batched.get(key, {}), value, i, n)
        else:
            array = batched.get(key)  # the values batched are arrays, never None
            if array is None:
                array = info_array(value, n)
            array[i] = value
        mask_key = f"_{key}"
        mask = batched.get(mask_key)
        if mask is None:
            mask = np.zeros(n, dtype=np.bool_)
        mask[i] = True
        batched[key], batched[mask_key] = array, mask
    return batched


def info_array(value: Any, n: int) -> npt.NDArray[Any]:
    """The array Gymnasium batches a key's values in, by the first value: typed numbers, stacked arrays, objects."""
    if type(value) in (int, float, bool) or issubclass(type(value), np.number):
        return np.zeros(n, dtype=type(value))
    if isinstance(value, np.ndarray):
        return np.zeros((n, *value.shape), dtype=value.dtype)
    return np.full(n, fill_value=None, dtype=object)
