"""The three outputs of ``proliferate analyze``: a terminal table, one JSON document, an HTML page.

Each output is a sink fed one :class:`~solver.analysis.analyze.DecisionResult` at a time
and finished with the aggregates, so none of them holds the whole input: the terminal and
JSON sinks write each decision as it arrives, and the HTML sink keeps one game at a time
(to write its step-through page, :mod:`.gamepage`) and spools finished games' tables to
disk.  The page repeats the formulas behind every number (:data:`~solver.analysis.grading.FORMULAS`)
because an accuracy nobody can check is not worth showing.
"""

from __future__ import annotations

import contextlib
import html
import json
import os
import re
import shutil
import stat
import tempfile
from collections.abc import Sequence
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any, Protocol, TextIO

from .. import interrupts
from ..files import new_file_mode
from ..terminal import cut_message, terminal_text
from .analyze import DecisionResult, Summary, Tally, game_key
from .gamepage import GRADE_COLOURS, REPORT_MARK, game_page
from .grading import FORMULAS, Grade, Thresholds, format_accuracy
from .records import LineProblem

__all__ = [
    "GRADE_COLOURS",
    "MAX_PAGES",
    "HtmlReport",
    "JsonReport",
    "ProblemLog",
    "ReportDirError",
    "Sink",
    "TextReport",
    "choice_text",
]

#: Step-through pages are written for this many games; later games get their tables only.
MAX_PAGES = 200
#: Problems listed in the JSON and HTML outputs (all are counted, and all go to stderr).
MAX_LISTED_PROBLEMS = 1000


@dataclass
class ProblemLog:
    """Skipped input: every problem counted, the first :data:`MAX_LISTED_PROBLEMS` kept for the reports."""

    count: int = 0
    listed: list[str] = field(default_factory=list)

    def add(self, problem: LineProblem | str) -> None:
        self.count += 1
        if len(self.listed) < MAX_LISTED_PROBLEMS:
            self.listed.append(cut_message(str(problem)))


class Sink(Protocol):
    def decision(self, result: DecisionResult) -> None: ...

    def finish(self, summary: Summary, problems: ProblemLog) -> None: ...


def num(value: float) -> str:
    """Points as written by a person: ``3``, ``2.5``, ``1004``."""
    text = f"{value:.3f}".rstrip("0").rstrip(".")
    return "0" if text == "-0" else text


def choice_text(choice: dict[str, Any]) -> str:
    """A choice in a few words: ``bob, bears``; ``bob ×2``; ``r1: bob | r2: nothing``; ``nothing``."""
    rounds = choice["rounds"]

    def one(rnd: dict[str, Any]) -> str:
        text = ", ".join(rnd["chosen"]) or "nothing"
        recipients = rnd["poison_recipients"]
        if recipients:
            text += " (poison to " + ", ".join(f"{t}: {h}" for t, h in recipients.items()) + ")"
        return text

    if all(r == rounds[0] for r in rounds):
        return one(rounds[0]) + (f" ×{len(rounds)}" if len(rounds) > 1 and rounds[0]["chosen"] else "")
    return " | ".join(f"r{i + 1}: {one(r)}" for i, r in enumerate(rounds))


def _grade_text(grade: Grade) -> str:
    return f"{grade.glyph} {grade.value}".strip()


def _mean(value: float | None) -> str:
    return "—" if value is None else num(round(value, 3))


# ---------------------------------------------------------------------------- terminal
def elide(text: str, width: int) -> str:
    """``text`` in at most ``width`` characters, its middle elided: ids differ in their tails (``match:1``)."""
    if len(text) <= width:
        return text
    keep = width - 1
    head = keep // 3
    return text[:head] + "…" + text[len(text) - (keep - head) :]


class ElidedColumn:
    """Values of one table column, elided to ``width`` but never so that two different values look alike.

    A value whose elided form is already taken by another value is shown whole (the row is
    then wider); a value is shown the same way every time.
    """

    def __init__(self, width: int) -> None:
        self.width = width
        self._shown: dict[str, str] = {}
        self._owner: dict[str, str] = {}

    def __call__(self, text: str) -> str:
        shown = self._shown.get(text)
        if shown is None:
            shown = elide(text, self.width)
            if self._owner.setdefault(shown, text) != text:
                shown = text
            self._shown[text] = shown
        return shown


class TextReport:
    """A fixed-width table, one row per decision as it is analysed, then the summaries.

    Rows stream, so their game and player columns have a fixed width and long ids are elided in
    the middle (:class:`ElidedColumn`: still told apart); the summaries, printed at the end,
    are as wide as their longest id.
    """

    ROW = "{:>6}  {:<16} {:>4}  {:<10} {:<13} {:>9} {:>5}  {}"
    SUMMARY = "{:<{w}} {:<{p}} {:>9} {:>8} {:>5} {:>5} {:>5} {:>5} {:>5} {:>12} {:>11}"

    def __init__(self, out: TextIO, thresholds: Thresholds) -> None:
        self.out = out
        self.thresholds = thresholds
        self.rows = 0
        self.games = ElidedColumn(16)
        self.players = ElidedColumn(10)

    def line(self, text: str) -> None:
        """One line for a person to read: control and bidi characters of ids and comments escaped."""
        self.out.write(terminal_text(text, lines=False) + "\n")

    def decision(self, result: DecisionResult) -> None:
        if not self.rows:
            self.line(self.ROW.format("#", "game", "turn", "player", "grade", "regret", "ΔWin%", "comment"))
        self.rows += 1
        self.line(
            self.ROW.format(
                result.index + 1,
                self.games(terminal_text(str(result.game), lines=False)),  # escaped first: the width holds
                result.turn,
                self.players(terminal_text(str(result.decider), lines=False)),
                _grade_text(result.grade),
                num(result.regret),
                f"{max(0.0, result.win_chances_best - result.win_chances_chosen):.1f}",
                result.comment,
            )
        )

    def finish(self, summary: Summary, problems: ProblemLog) -> None:
        out = self.out
        if not self.rows:  # empty tables and their legend would only hide the one line that matters
            self.line("No decisions to analyse.")
            self._skipped(summary, problems)
            return
        header = ("decisions", "accuracy", "best", "good", "?!", "?", "??", "total regret", "mean regret")
        labels = [str(label) for label in summary.game_labels.values()]
        pids = [str(pid) for pid in summary.players] + [str(p) for g in summary.games.values() for p in g.players]
        w = max([16, *map(len, labels)])
        p = max([10, *map(len, pids)])
        out.write("\n")
        self.line("Players")
        pw = max(16, p)
        self.line(self.SUMMARY.format("player", "", *header, w=pw, p=10))
        for pid, tally in summary.players.items():
            self.line(self.SUMMARY.format(str(pid), "", *_tally_cells(tally), w=pw, p=10))
        out.write("\n")
        self.line("Games")
        self.line(self.SUMMARY.format("game", "player", *header, w=w, p=p))
        for key, game in summary.games.items():
            label = str(summary.game_labels[key])
            for pid, tally in game.players.items():
                self.line(self.SUMMARY.format(label, str(pid), *_tally_cells(tally), w=w, p=p))
        t = self.thresholds
        out.write("\n")
        self.line(
            f"Grades by the drop in winning chances (ΔWin%): ?! inaccuracy >= {t.inaccuracy:g}, ? mistake >= "
            f"{t.mistake:g}, ?? blunder >= {t.blunder:g} or a missed win / self-inflicted loss; a regret under 1 "
            "point is at most ?!."
        )
        self.line(f"Accuracy: {FORMULAS['decision_accuracy']}; per player: {FORMULAS['player_accuracy']}.")
        self._skipped(summary, problems)

    def _skipped(self, summary: Summary, problems: ProblemLog) -> None:
        if problems.count:
            self.line(
                f"Skipped {summary.skipped_lines} of {summary.lines} line(s) for {problems.count} input problem(s); "
                "see the messages above."
            )


def _tally_cells(tally: Tally) -> list[str]:
    c = tally.counts
    return [
        str(tally.decisions),
        format_accuracy(tally.accuracy),
        *(str(c[g.value]) for g in Grade),
        num(round(tally.total_regret, 3)),
        _mean(tally.mean_regret),
    ]


# ---------------------------------------------------------------------------- JSON
class JsonReport:
    """One JSON document, written as it goes (decisions one per line) so it never sits in memory."""

    FORMAT = "proliferate-analysis/1"

    def __init__(self, out: TextIO, thresholds: Thresholds, inputs: Sequence[str]) -> None:
        self.out = out
        head = {"format": self.FORMAT, "inputs": list(inputs), "thresholds": thresholds.to_json(), "formulas": FORMULAS}
        out.write(json.dumps(head, ensure_ascii=False)[:-1] + ', "decisions": [')
        self.first = True

    def decision(self, result: DecisionResult) -> None:
        self.out.write("\n" if self.first else ",\n")
        self.first = False
        self.out.write(json.dumps(result.to_json(), ensure_ascii=False))

    def finish(self, summary: Summary, problems: ProblemLog) -> None:
        tail = {
            "players": summary.players_json(),
            "games": summary.games_json(),
            "counts": summary.counts_json(),
            "skipped": {"count": problems.count, "lines": summary.skipped_lines, "problems": problems.listed},
        }
        self.out.write("\n], " + json.dumps(tail, ensure_ascii=False)[1:] + "\n")


# ---------------------------------------------------------------------------- HTML
_STYLE = """
body{font-family:system-ui,-apple-system,Segoe UI,Roboto,sans-serif;margin:2em;color:#222;max-width:1600px}
table{border-collapse:collapse;font-size:13px;margin:0.5em 0}
th,td{border:1px solid #ccc;padding:3px 6px;text-align:left;vertical-align:top}
th{background:#f2f2f2}
td.n{text-align:right;font-variant-numeric:tabular-nums}
a.step{font-size:14px;font-weight:normal;margin-left:1em}
.g-best{color:#2e7d32}.g-good{color:#558b2f}.g-inaccuracy{color:#b28704}.g-mistake{color:#ef6c00}
.g-blunder{color:#c62828;font-weight:bold}
.meta{color:#555}
dt{font-weight:bold;margin-top:0.5em}
"""


class ReportDirError(ValueError):
    """A report directory that holds files ``--report`` would have to overwrite but did not write."""


#: The names of the pages ``--report`` writes; a file of another name in the directory is never touched.
_PAGE_NAME = re.compile(r"(index|game-\d{3,})\.html")
#: Prefix of the private directory a report is built in before its pages are moved into place.
STAGING_PREFIX = ".proliferate-report-"


def own_page(path: Path) -> bool:
    """Whether ``path`` is a page a report wrote: a regular file (not a link) whose head holds :data:`REPORT_MARK`."""
    try:
        fd = os.open(path, os.O_RDONLY | getattr(os, "O_NOFOLLOW", 0) | getattr(os, "O_NONBLOCK", 0))
    except OSError:
        return False
    with os.fdopen(fd, "rb") as handle:
        if not stat.S_ISREG(os.fstat(handle.fileno()).st_mode):
            return False
        return REPORT_MARK.encode() in handle.read(4096)


class HtmlReport:
    """``DIR/index.html`` with the tables, and ``DIR/game-NNN.html`` to step through each game's decisions.

    A report directory holds exactly the current report.  The pages are built in a private
    directory inside ``DIR`` (created by ``mkdtemp``: mode 0o700, a new name, so nothing can be
    planted in it) and moved into place only when the report is finished, ``index.html`` last;
    then the pages of an earlier report that this one did not write again are removed.  A page
    is the report's own when it carries :data:`REPORT_MARK`; a file of a page's name without it
    (or a link) stops the run before anything is written (:class:`ReportDirError`), and other
    files are left alone and listed in :attr:`notes`.  An interrupted or failed run removes its
    private directory and leaves ``DIR`` as it was (:meth:`close`).
    """

    def __init__(self, directory: str | os.PathLike[str], thresholds: Thresholds, inputs: Sequence[str]) -> None:
        self.dir = Path(directory)
        self.dir.mkdir(parents=True, exist_ok=True)
        self.foreign: list[str] = []
        self.stale: list[str] = []
        for entry in sorted(os.listdir(self.dir)):
            if entry.startswith(STAGING_PREFIX):
                continue
            if _PAGE_NAME.fullmatch(entry):
                if not own_page(self.dir / entry):
                    raise ReportDirError(
                        f"{entry} was not written by proliferate analyze --report: not overwriting it "
                        "(give a new or empty directory, or move the file)"
                    )
                self.stale.append(entry)
            else:
                self.foreign.append(entry)
        self.notes: list[str] = []
        self.thresholds = thresholds
        self.inputs = list(inputs)
        self.staging = Path(tempfile.mkdtemp(prefix=STAGING_PREFIX, dir=self.dir))
        self.finished = False
        self.spool_path = self.staging / "sections.html.part"
        self.spool = self.spool_path.open("w", encoding="utf-8")
        self.segment: list[DecisionResult] = []
        self.sections = 0
        self.pages = 0
        self.page_note = ""
        #: The first page written for each game (by game key), linked from the Games table.
        self.page_of: dict[str, str] = {}

    def decision(self, result: DecisionResult) -> None:
        if self.segment and game_key(self.segment[-1].game) != game_key(result.game):
            self.flush()
        self.segment.append(result)

    def flush(self) -> None:
        """Write the current game: its step-through page (for the first :data:`MAX_PAGES`) and its table."""
        if not self.segment:
            return
        self.sections += 1
        decisions, self.segment = self.segment, []
        link = ""
        if self.sections <= MAX_PAGES:
            name = f"game-{self.sections:03d}.html"
            (self.staging / name).write_text(game_page(decisions), encoding="utf-8")
            self.pages += 1
            self.page_of.setdefault(game_key(decisions[0].game), name)
            link = f' <a class="step" href="{name}">step through the decisions →</a>'
        elif not self.page_note:
            self.page_note = f"step-through pages are written for the first {MAX_PAGES} games only"
        out = self.spool
        game = html.escape(str(decisions[0].game))
        out.write(f'<section class="game"><h3>Game {game}{link}</h3>\n<table>\n')
        out.write(
            "<tr><th>#</th><th>turn</th><th>phase</th><th>player</th><th>grade</th><th>chosen</th><th>best</th>"
            "<th>value chosen</th><th>value best</th><th>regret</th><th>Win% best → chosen</th><th>accuracy</th>"
            "<th>comment</th><th>source</th></tr>\n"
        )
        for d in decisions:
            cells = [
                ("n", str(d.index + 1)),
                ("n", str(d.turn)),
                ("", d.phase or ""),
                ("", d.decider),
                (f"g-{d.grade.value}", _grade_text(d.grade)),
                ("", choice_text(d.chosen)),
                ("", choice_text(d.best)),
                ("n", num(d.value_chosen)),
                ("n", num(d.value_best)),
                ("n", num(d.regret)),
                ("n", f"{d.win_chances_best:.1f} → {d.win_chances_chosen:.1f}"),
                ("n", format_accuracy(d.accuracy)),
                ("", d.comment),
                ("", d.location),
            ]
            row = "".join(
                f'<td class="{c}">{html.escape(v)}</td>' if c else f"<td>{html.escape(v)}</td>" for c, v in cells
            )
            out.write(f"<tr>{row}</tr>\n")
        out.write("</table></section>\n")

    def finish(self, summary: Summary, problems: ProblemLog) -> None:
        self.flush()
        self.spool.close()
        index = self.staging / "index.html"
        with index.open("w", encoding="utf-8") as out:
            out.write(f'<!DOCTYPE html>\n<html lang="en">\n<head>\n<meta charset="utf-8">\n{REPORT_MARK}\n')
            out.write(f"<title>Proliferate analysis</title>\n<style>{_STYLE}</style>\n</head>\n<body>\n")
            out.write("<h1>Proliferate analysis</h1>\n")
            inputs = ", ".join(self.inputs)
            out.write(
                f'<p class="meta">{summary.decisions} decision(s) in {len(summary.games)} game(s) from '
                f"{html.escape(inputs)}; {summary.skipped_lines} of {summary.lines} line(s) skipped for "
                f"{problems.count} input problem(s).</p>\n"
            )
            if self.page_note:
                out.write(f'<p class="meta">Note: {html.escape(self.page_note)}.</p>\n')
            out.write("<h2>Players</h2>\n")
            self.summary_table(out, [("", pid, t, None) for pid, t in summary.players.items()], with_game=False)
            out.write("<h2>Games</h2>\n")
            rows = [
                (str(summary.game_labels[key]), pid, t, self.page_of.get(key))
                for key, game in summary.games.items()
                for pid, t in game.players.items()
            ]
            self.summary_table(out, rows, with_game=True)
            out.write("<h2>Decisions</h2>\n")
            with self.spool_path.open(encoding="utf-8") as spool:
                shutil.copyfileobj(spool, out)
            out.write("<h2>How the numbers are computed</h2>\n<dl>\n")
            for key, text in FORMULAS.items():
                out.write(f"<dt>{html.escape(key.replace('_', ' '))}</dt><dd>{html.escape(text)}</dd>\n")
            t = self.thresholds
            out.write(
                f"<dt>thresholds</dt><dd>drop in Win%: inaccuracy ?! ≥ {t.inaccuracy:g}, mistake ? ≥ {t.mistake:g}, "
                f"blunder ?? ≥ {t.blunder:g} (change them with --thresholds)</dd>\n</dl>\n"
            )
            if problems.count:
                out.write(f"<h2>Skipped input ({problems.count})</h2>\n<ul>\n")
                for text in problems.listed:
                    out.write(f"<li>{html.escape(text)}</li>\n")
                out.write("</ul>\n")
            out.write("</body>\n</html>\n")
        self.spool_path.unlink()
        self.publish()

    def publish(self) -> None:
        """Move the finished pages into ``DIR`` (index.html last), remove the earlier report's other pages."""
        interrupts.check()  # a stop signal a finaliser dropped: an interrupted run publishes nothing
        mode = new_file_mode()
        written = [*sorted(p for p in os.listdir(self.staging) if p != "index.html"), "index.html"]
        for name in written:
            os.chmod(self.staging / name, mode)
            os.replace(self.staging / name, self.dir / name)  # replaces a link at the name, never follows it
        self.finished = True
        removed = [name for name in self.stale if name not in written and own_page(self.dir / name)]
        for name in removed:
            with contextlib.suppress(FileNotFoundError):
                os.unlink(self.dir / name)
        self.close()
        if removed:
            self.notes.append(f"removed {len(removed)} page(s) of an earlier report: {_names(removed)}")
        if self.foreign:
            self.notes.append(
                f"left alone {len(self.foreign)} file(s) the report did not write: {_names(self.foreign)}"
            )

    def close(self) -> None:
        """Remove the private build directory (all of it when the report was not finished); idempotent."""
        with contextlib.suppress(OSError):
            self.spool.close()
        shutil.rmtree(self.staging, ignore_errors=True)

    @staticmethod
    def summary_table(out: TextIO, rows: list[tuple[str, str, Tally, str | None]], *, with_game: bool) -> None:
        """Per-player rows; with ``with_game``, a game column whose name links to the game's page when it has one."""
        head = ["game"] if with_game else []
        head += ["player", "decisions", "accuracy %", "best", "good", "?! inaccuracy", "? mistake", "?? blunder"]
        head += ["total regret", "mean regret"]
        out.write("<table>\n<tr>" + "".join(f"<th>{html.escape(h)}</th>" for h in head) + "</tr>\n")
        for game, pid, tally, page in rows:
            name = f'<a href="{html.escape(page)}">{html.escape(game)}</a>' if page else html.escape(game)
            cells = ([f"<td>{name}</td>"] if with_game else []) + [f"<td>{html.escape(pid)}</td>"]
            cells += [f'<td class="n">{html.escape(v)}</td>' for v in _tally_cells(tally)]
            out.write("<tr>" + "".join(cells) + "</tr>\n")
        out.write("</table>\n")


def _names(names: Sequence[str], shown: int = 5) -> str:
    more = len(names) - shown
    return ", ".join(names[:shown]) + (f" and {more} more" if more > 0 else "")
