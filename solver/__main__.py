"""``python -m solver`` runs the ``proliferate`` command line."""

from __future__ import annotations

from .cli import main

raise SystemExit(main())
