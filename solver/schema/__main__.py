"""``python -m solver.schema``: regenerate the JSON Schema files from the Structs of solver.formats."""

from __future__ import annotations

from solver.schema import write

if __name__ == "__main__":
    for path in write():
        print(f"wrote {path}")
