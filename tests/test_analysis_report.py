"""Terminal, JSON and HTML outputs (solver.analysis.report)."""

from __future__ import annotations

import io
import json
import re
import xml.etree.ElementTree as ET
from html.parser import HTMLParser
from pathlib import Path

import pytest
from analysis_helpers import NATIVE

from solver.analysis import report
from solver.analysis.analyze import DecisionResult, Summary, analyze_items
from solver.analysis.gamepage import value_graph
from solver.analysis.grading import Thresholds, decision_accuracy
from solver.analysis.records import LineProblem
from solver.analysis.report import ElidedColumn, HtmlReport, JsonReport, ProblemLog, Sink, TextReport, elide

_VOID = {"meta", "img", "br", "hr", "link", "input"}


class _WellFormed(HTMLParser):
    """Fails on a closing tag that does not match the open one; collects link targets and text."""

    def __init__(self) -> None:
        super().__init__()
        self.stack: list[str] = []
        self.links: list[str] = []
        self.text: list[str] = []

    def handle_starttag(self, tag: str, attrs: list[tuple[str, str | None]]) -> None:
        if tag == "a":
            self.links.append(dict(attrs)["href"] or "")
        if tag not in _VOID:
            self.stack.append(tag)

    def handle_startendtag(self, tag: str, attrs: list[tuple[str, str | None]]) -> None:
        """``<rect .../>`` and friends in inline SVG open and close at once."""

    def handle_endtag(self, tag: str) -> None:
        assert self.stack and self.stack[-1] == tag, f"</{tag}> closes <{self.stack[-1] if self.stack else None}>"
        self.stack.pop()

    def handle_data(self, data: str) -> None:
        self.text.append(data)


def _items() -> list[tuple[str, int, str]]:
    return [
        (str(NATIVE), lineno, line)
        for lineno, line in enumerate(NATIVE.read_text().splitlines(), start=1)
        if line.strip()
    ]


def _feed(sinks: list[Sink]) -> tuple[Summary, ProblemLog]:
    summary, problems = Summary(), ProblemLog()
    for result in analyze_items(_items()):
        if isinstance(result, LineProblem):
            problems.add(result)
            continue
        summary.add(result)
        for sink in sinks:
            sink.decision(result)
    for sink in sinks:
        sink.finish(summary, problems)
    return summary, problems


def _parse(path: Path) -> _WellFormed:
    parser = _WellFormed()
    parser.feed(path.read_text(encoding="utf-8"))
    parser.close()
    assert parser.stack == []
    return parser


def test_the_html_report_is_well_formed_with_tables_formulas_and_a_page_per_game(tmp_path: Path) -> None:
    _feed([HtmlReport(tmp_path, Thresholds(), [str(NATIVE)])])
    page = _parse(tmp_path / "index.html")
    # Each game's name in the Games table (one row per player) and its section both link to its page.
    assert page.links == ["game-001.html"] * 2 + ["game-002.html"] * 2 + ["game-001.html", "game-002.html"]
    text = " ".join(page.text)
    assert "Blunder: missed lethal — also proliferate bob (poison 9 -> 10)" in text
    assert "103.1668" in text and "plain mean" in text  # the accuracy formula is on the page
    assert "k = 0.059" in text  # and the Win% curve with its fitted constant
    assert "not valid JSON" in text  # skipped input is listed
    assert not list(tmp_path.glob(".*part"))
    assert not list(tmp_path.glob("*.png"))  # no matplotlib, no images: everything is inline SVG


def test_a_game_page_steps_through_its_decisions_with_a_diagram_each(tmp_path: Path) -> None:
    _feed([HtmlReport(tmp_path, Thresholds(), [str(NATIVE)])])
    text = (tmp_path / "game-001.html").read_text(encoding="utf-8")
    page = _parse(tmp_path / "game-001.html")
    assert "http://" not in text.replace("http://www.w3.org/2000/svg", "") and "https://" not in text  # no CDN
    assert page.links == ["index.html", "#d1", "#d2"]
    section = r'<section class="decision" id="decision-(\d+)" data-index="\d+" data-grade="(\w+)"( hidden)?>'
    sections = re.findall(section, text)
    assert sections == [("1", "blunder", ""), ("2", "best", " hidden")]
    diagrams = re.findall(r'<div class="diagram">(<svg .*?</svg>)</div>', text, flags=re.S)
    assert len(diagrams) == 2
    first = ET.fromstring(diagrams[0])
    marked = {
        g.get("data-id"): set((g.get("class") or "").split())
        for g in first.iter("{http://www.w3.org/2000/svg}g")
        if "object" in (g.get("class") or "")
    }
    assert "best" in marked["bob"] and "chosen" not in marked["bob"]  # the missed lethal is drawn
    graph = re.search(r'<svg [^>]*class="value-graph".*?</svg>', text, flags=re.S)
    assert graph is not None
    root = ET.fromstring(graph.group(0))
    columns = [r for r in root.iter("{http://www.w3.org/2000/svg}rect") if r.get("class") == "col"]
    assert [c.get("data-goto") for c in columns] == ["0", "1"]
    grades = [c.get("data-grade") for c in root.iter("{http://www.w3.org/2000/svg}circle") if c.get("data-grade")]
    assert grades == ["blunder", "best"]
    assert "ArrowLeft" in text and "ArrowRight" in text


def test_the_value_graph_keeps_a_game_result_and_a_point_on_one_scale() -> None:
    results = [r for r in analyze_items(_items()) if isinstance(r, DecisionResult)]
    svg = value_graph(results)
    root = ET.fromstring(svg)
    lines = {p.get("class"): p.get("points") for p in root.iter("{http://www.w3.org/2000/svg}polyline")}
    assert set(lines) == {"available", "taken"}
    assert all(len((points or "").split()) == len(results) for points in lines.values())


def test_pages_stop_after_the_limit_but_tables_go_on(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setattr(report, "MAX_PAGES", 1)
    _feed([HtmlReport(tmp_path, Thresholds(), [str(NATIVE)])])
    assert sorted(p.name for p in tmp_path.glob("game-*.html")) == ["game-001.html"]
    text = " ".join(_parse(tmp_path / "index.html").text)
    assert "first 1 games only" in text and "demo-2" in text


def test_the_json_output_is_one_document_with_decisions_and_aggregates() -> None:
    out = io.StringIO()
    _feed([JsonReport(out, Thresholds(), [str(NATIVE)])])
    doc = json.loads(out.getvalue())
    assert doc["format"] == "proliferate-analysis/1"
    assert [d["grade"] for d in doc["decisions"]] == ["blunder", "best", "blunder"]
    assert doc["decisions"][0]["glyph"] == "??"
    for d in doc["decisions"]:  # accuracy is Lichess's curve of the Win% drop, both in the document
        drop = max(0.0, d["win_chances_best"] - d["win_chances_chosen"])
        assert d["accuracy"] == pytest.approx(decision_accuracy(d["regret"], drop))
    assert doc["decisions"][0]["win_chances_best"] == 100.0  # a missed win: the best choice wins
    assert {p["player"]: p["accuracy"] for p in doc["players"]}["alice"] < 30.0
    demo2 = next(g for g in doc["games"] if g["game"] == "demo-2")
    accuracies = {p["player"]: p["accuracy"] for p in demo2["players"]}
    assert accuracies["alice"] is None and accuracies["bob"] < 30.0
    assert doc["skipped"]["count"] == 2
    assert "plain mean" in doc["formulas"]["player_accuracy"]


def test_the_terminal_table_has_a_row_per_decision_and_the_summaries() -> None:
    out = io.StringIO()
    summary, _ = _feed([TextReport(out, Thresholds())])
    text = out.getvalue()
    rows = [line for line in text.splitlines() if line.strip()[:1].isdigit()]
    assert len(rows) == summary.decisions == 3
    assert "Players" in text and "Games" in text
    assert "—" in text  # alice made no decision in demo-2: no accuracy


def test_terminal_tables_never_cut_ids_so_that_games_look_alike() -> None:
    """Issue 24: ``202d2b4e-725b-4d`` was shown for ``…:1``, ``…:2`` and ``…:3``: three games, one label."""
    match = "202d2b4e-725b-4dc9-b663-dbc51bb60ab4"
    items: list[tuple[str, int, str]] = []
    for source, line, text in _items():
        try:
            record = json.loads(text)
        except ValueError:
            continue
        if isinstance(record, dict) and "game" in record:
            items.append((source, line, json.dumps({**record, "game": f"{match}:{len(items) + 1}"})))
    out = io.StringIO()
    report = TextReport(out, Thresholds())
    summary, problems = Summary(), ProblemLog()
    for result in analyze_items(items):
        if isinstance(result, LineProblem):
            continue
        summary.add(result)
        report.decision(result)
    report.finish(summary, problems)
    text = out.getvalue()
    rows = [line.split() for line in text.splitlines() if line.split()[:1] and line.split()[0].isdigit()]
    shown = [row[1] for row in rows]
    assert len(rows) == 3 and len(set(shown)) == 3, shown  # told apart: the distinguishing tail is kept
    assert all("…" in s and len(s) == 16 for s in shown)
    games = text.split("\nGames\n")[1]
    assert len({label for label in summary.game_labels.values()}) == 3
    assert all(str(label) in games for label in summary.game_labels.values())  # as wide as their ids


def test_an_elided_id_never_takes_the_form_of_another() -> None:
    column = ElidedColumn(10)
    first = column("abcdefghij-1234567")
    assert len(first) == 10 and first.startswith("abc") and first.endswith("4567")
    clash = column("abcXXXXXXXX-1234567")  # elides to the same text: shown whole instead
    assert clash == "abcXXXXXXXX-1234567" and column("abcdefghij-1234567") == first
    assert elide("short", 10) == "short"


def test_results_are_plain_data() -> None:
    results = [
        r for r in analyze_items([("x", 1, NATIVE.read_text().splitlines()[0])]) if isinstance(r, DecisionResult)
    ]
    assert json.loads(json.dumps(results[0].to_json()))["comment"].startswith("Blunder")
