"""The formats are defined once, by the Structs of solver.formats: the schema files and the docs follow them.

The shipped JSON Schema files are ``python -m solver.schema``'s output, and each field table
of docs/board-format.md and docs/analysis.md names exactly the fields of its Struct, with
"required" exactly where the Struct has no default.
"""

from __future__ import annotations

import json
import re
from pathlib import Path

import pytest
from jsonschema import Draft202012Validator

from solver import formats
from solver.schema import FILES, HERE, generate, render

ROOT = Path(__file__).resolve().parent.parent


@pytest.mark.parametrize("name", sorted(FILES))
def test_shipped_schema_is_generated_from_the_structs(name: str) -> None:
    shipped = (HERE / name).read_text("utf-8")
    assert shipped == render(generate()[name]), f"{name} is stale: run python -m solver.schema"


@pytest.mark.parametrize("name", sorted(FILES))
def test_generated_schema_is_valid_draft_2020_12(name: str) -> None:
    Draft202012Validator.check_schema(json.loads((HERE / name).read_text("utf-8")))


def _table(doc: str, heading: str) -> dict[str, str]:
    """The first table under ``heading``: each field named in its first column -> its second column."""
    text = (ROOT / "docs" / doc).read_text("utf-8")
    section = text.split(f"\n{heading}\n", 1)[1]
    rows: dict[str, str] = {}
    started = False
    for line in section.splitlines():
        if line.startswith("|"):
            started = True
            cells = [c.strip() for c in line.strip("|").split("|")]
            for name in re.findall(r"`([a-z_]+)`", cells[0]):
                rows[name] = cells[1]
        elif started:
            break
    return rows


@pytest.mark.parametrize(
    ("heading", "struct"),
    [
        ("## Top level", formats.BoardStruct),
        ("## Player", formats.PlayerStruct),
        ("## Permanent", formats.PermanentStruct),
        ("### Threshold", formats.ThresholdStruct),
        ("## Effect", formats.EffectStruct),
    ],
)
def test_board_format_tables_name_the_structs_fields(heading: str, struct: type) -> None:
    table = _table("board-format.md", heading)
    assert set(table) == set(formats.field_names(struct))
    required = {name for name, cells in _defaults("board-format.md", heading).items() if cells.startswith("required")}
    assert required == formats.required_fields(struct)


def _defaults(doc: str, heading: str) -> dict[str, str]:
    """The board tables' Default column (the third)."""
    text = (ROOT / "docs" / doc).read_text("utf-8")
    section = text.split(f"\n{heading}\n", 1)[1]
    out: dict[str, str] = {}
    for line in section.splitlines():
        if line.startswith("| `"):
            cells = [c.strip() for c in line.strip("|").split("|")]
            for name in re.findall(r"`([a-z_]+)`", cells[0]):
                out[name] = cells[2]
        elif out:
            break
    return out


def test_record_table_names_the_structs_fields() -> None:
    table = _table("analysis.md", "## Game records (native format)")
    assert set(table) == set(formats.field_names(formats.RecordStruct))
    assert {name for name, req in table.items() if req == "yes"} == formats.required_fields(formats.RecordStruct)
