"""The JSON Schema files of the formats, generated from their Structs (:mod:`solver.formats`).

The shipped files ``board-v1.schema.json`` and ``game-record-v1.schema.json`` are this
module's output, written by ``python -m solver.schema``; a test fails when they differ.  The
generation is :func:`msgspec.json.schema` plus a small post-processing step: the root
definition is lifted to the top with ``$schema``, ``$id`` and a title, definitions lose the
``Struct`` suffix, descriptions are joined onto one line, and the record's board refers to
the board schema instead of repeating it.
"""

from __future__ import annotations

import json
import re
from pathlib import Path
from typing import Any

__all__ = ["BASE", "FILES", "generate", "render", "write"]

BASE = "https://github.com/proliferate/solver/schema/"
HERE = Path(__file__).resolve().parent
#: File name -> (root Struct name in solver.formats, title).
FILES: dict[str, tuple[str, str]] = {
    "board-v1.schema.json": ("BoardStruct", "Proliferate board, format version 1"),
    "game-record-v1.schema.json": (
        "RecordStruct",
        "Proliferate game record, version 1 (one line of a JSON Lines file)",
    ),
}
_SUFFIX = "Struct"


def _tidy(node: Any) -> Any:
    """Definition names without the suffix, descriptions on one line."""
    if isinstance(node, dict):
        out = {}
        for key, value in node.items():
            if key == "$ref" and isinstance(value, str) and value.startswith("#/$defs/"):
                value = value.removesuffix(_SUFFIX)
            elif key == "description" and isinstance(value, str):
                value = re.sub(r"\s+", " ", value).strip()
            out[key] = _tidy(value)
        return out
    if isinstance(node, list):
        return [_tidy(item) for item in node]
    return node


def generate() -> dict[str, dict[str, Any]]:
    """Every schema file's contents, by file name."""
    import msgspec

    from solver import formats

    board_defs: set[str] = set()
    out: dict[str, dict[str, Any]] = {}
    for name, (root_name, title) in FILES.items():
        raw = msgspec.json.schema(getattr(formats, root_name))
        defs: dict[str, Any] = raw["$defs"]
        root = defs.pop(root_name)
        root.pop("title", None)
        if root_name == "BoardStruct":
            board_defs = set(defs)
        else:  # the record's board is the board schema, by reference
            defs = {k: v for k, v in defs.items() if k not in board_defs}
        schema: dict[str, Any] = {
            "$schema": "https://json-schema.org/draft/2020-12/schema",
            "$id": BASE + name,
            "title": title,
        }
        schema |= root
        schema["$defs"] = {k.removesuffix(_SUFFIX): v for k, v in sorted(defs.items())}
        text = json.dumps(_tidy(schema)).replace('"#/$defs/Board"', '"board-v1.schema.json"')
        out[name] = json.loads(text)
    return out


def render(schema: dict[str, Any]) -> str:
    """A schema as its file's text."""
    return json.dumps(schema, indent=2, ensure_ascii=False) + "\n"


def write(directory: Path = HERE) -> list[Path]:
    """Write every schema file (``python -m solver.schema``); returns the paths written."""
    paths = []
    for name, schema in generate().items():
        path = directory / name
        path.write_text(render(schema), encoding="utf-8")
        paths.append(path)
    return paths
