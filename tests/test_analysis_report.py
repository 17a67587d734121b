"""Terminal, JSON and HTML outputs (solver.analysis.report)."""

from __future__ import annotations

import io
import json
import sys
from html.parser import HTMLParser
from pathlib import Path

import pytest
from analysis_helpers import NATIVE

from solver.analysis.analyze import DecisionResult, Summary, analyze_items
from solver.analysis.grading import Thresholds
from solver.analysis.records import LineProblem
from solver.analysis.report import HtmlReport, JsonReport, ProblemLog, Sink, TextReport

_VOID = {"meta", "img", "br", "hr", "link", "input"}


class _WellFormed(HTMLParser):
    """Fails on a closing tag that does not match the open one; collects image sources."""

    def __init__(self) -> None:
        super().__init__()
        self.stack: list[str] = []
        self.images: list[str] = []
        self.text: list[str] = []

    def handle_starttag(self, tag: str, attrs: list[tuple[str, str | None]]) -> None:
        if tag == "img":
            self.images.append(dict(attrs)["src"] or "")
        if tag not in _VOID:
            self.stack.append(tag)

    def handle_endtag(self, tag: str) -> None:
        assert self.stack and self.stack[-1] == tag, f"</{tag}> closes <{self.stack[-1] if self.stack else None}>"
        self.stack.pop()

    def handle_data(self, data: str) -> None:
        self.text.append(data)


def _feed(sinks: list[Sink]) -> tuple[Summary, ProblemLog]:
    items = []
    for lineno, line in enumerate(NATIVE.read_text().splitlines(), start=1):
        if line.strip():
            items.append((str(NATIVE), lineno, line))
    summary, problems = Summary(), ProblemLog()
    for result in analyze_items(items):
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


def test_the_html_report_is_well_formed_and_has_charts_tables_and_formulas(tmp_path: Path) -> None:
    _feed([HtmlReport(tmp_path, Thresholds(), [str(NATIVE)])])
    page = _parse(tmp_path / "index.html")
    assert page.images == ["game-001.png", "game-002.png"]
    for image in page.images:
        assert (tmp_path / image).read_bytes()[:8] == b"\x89PNG\r\n\x1a\n"
    text = " ".join(page.text)
    assert "Blunder: missed lethal — also proliferate bob (poison 9 -> 10)" in text
    assert "103.1668" in text and "plain mean" in text  # the accuracy formula is on the page
    assert "not valid JSON" in text  # skipped input is listed
    assert not list(tmp_path.glob(".*part"))


def test_without_matplotlib_the_html_still_has_the_tables(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    for name in [m for m in sys.modules if m == "matplotlib" or m.startswith("matplotlib.")] + ["matplotlib"]:
        monkeypatch.setitem(sys.modules, name, None)  # importing it now raises ImportError
    _feed([HtmlReport(tmp_path, Thresholds(), [str(NATIVE)])])
    page = _parse(tmp_path / "index.html")
    assert page.images == []
    assert not list(tmp_path.glob("*.png"))
    text = " ".join(page.text)
    assert "pip install proliferate[plot]" in text
    assert "self-inflicted loss" in text


def test_the_json_output_is_one_document_with_decisions_and_aggregates() -> None:
    out = io.StringIO()
    _feed([JsonReport(out, Thresholds(), [str(NATIVE)])])
    doc = json.loads(out.getvalue())
    assert doc["format"] == "proliferate-analysis/1"
    assert [d["grade"] for d in doc["decisions"]] == ["blunder", "best", "blunder"]
    assert doc["decisions"][0]["glyph"] == "??"
    assert {p["player"]: p["accuracy"] for p in doc["players"]}["alice"] == 0.0
    demo2 = next(g for g in doc["games"] if g["game"] == "demo-2")
    assert {p["player"]: p["accuracy"] for p in demo2["players"]} == {"alice": None, "bob": 0.0}
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


def test_results_are_plain_data() -> None:
    results = [
        r for r in analyze_items([("x", 1, NATIVE.read_text().splitlines()[0])]) if isinstance(r, DecisionResult)
    ]
    assert json.loads(json.dumps(results[0].to_json()))["comment"].startswith("Blunder")
