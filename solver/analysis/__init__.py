"""Post-game analysis: game records, the Arena log importer, regret, grades, accuracy and reports.

Nothing here is imported by :mod:`solver` itself, so ``import solver`` stays light; the
``proliferate analyze`` and ``proliferate import-arena`` subcommands come from
:mod:`solver.analysis.cli`.  The record format is documented in ``docs/analysis.md`` and
``solver/schema/game-record-v1.schema.json``.
"""
