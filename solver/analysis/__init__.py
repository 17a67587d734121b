"""Post-game analysis: game records, the Arena log importer, regret, grades, accuracy and reports.

Many inputs (files, directories, globs; records or Arena logs) are read by :mod:`.inputs`;
chunks are judged inline, in a process pool, or on Ray (:mod:`.distributed`, the optional
``ray`` extra) with the same results.

Nothing here is imported by :mod:`solver` itself, so ``import solver`` stays light; the
``proliferate analyze`` and ``proliferate import-arena`` subcommands come from
:mod:`solver.analysis.cli`.  The record format is documented in ``docs/analysis.md`` and
``solver/schema/game-record-v1.schema.json``.
"""
