"""``python -m solver.protocol``: the server alone, for callers that do not want the full CLI."""

from solver.protocol.cli import main

raise SystemExit(main())
