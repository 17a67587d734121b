"""The game review page in a real browser: headless Chromium, driven over the DevTools protocol.

Chromium's ``--remote-debugging-pipe`` speaks the DevTools protocol as NUL-terminated JSON
on file descriptors 3 (commands in) and 4 (replies and events out), so no websocket
library, npm or network is needed.  The page is opened from a ``file://`` URL, as a
player would open it.  Skipped only when no Chromium is installed (``make test`` installs
Debian's ``chromium`` package when it is missing).
"""

from __future__ import annotations

import contextlib
import json
import os
import select
import shutil
import subprocess
import time
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest
from analysis_helpers import NATIVE, run_cli

CHROMIUM = next(
    (shutil.which(name) for name in ("chromium", "chromium-browser", "google-chrome") if shutil.which(name)), None
)
pytestmark = pytest.mark.skipif(CHROMIUM is None, reason="chromium is not installed (make test installs it)")

FLAGS = (
    "--headless",
    "--no-sandbox",
    "--disable-gpu",
    "--disable-quic",
    "--no-first-run",
    "--disable-background-networking",
    "--disable-component-update",
    "--disable-sync",
    "--remote-debugging-pipe",
    "--window-size=1400,1000",
)
TIMEOUT = 30.0
#: The first reply also waits for the browser to start, which a loaded machine can stretch past TIMEOUT.
STARTUP_TIMEOUT = 120.0


def _onto_3_and_4(commands: int, replies: int) -> None:
    """In the child: the command pipe on fd 3, the reply pipe on fd 4 (via fresh fds, so neither clobbers the other)."""
    commands, replies = os.dup(commands), os.dup(replies)
    os.dup2(commands, 3)
    os.dup2(replies, 4)


class Browser:
    """A headless Chromium and one page, driven over the DevTools pipe; console errors are collected."""

    def __init__(self, profile: Path) -> None:
        assert CHROMIUM is not None
        to_browser_r, self._to_browser = os.pipe()
        self._from_browser, from_browser_w = os.pipe()
        # The browser reads commands on its fd 3 and writes replies on fd 4.
        self.process = subprocess.Popen(
            [CHROMIUM, *FLAGS, f"--user-data-dir={profile}", "about:blank"],
            stdin=subprocess.DEVNULL,
            stdout=subprocess.DEVNULL,
            stderr=subprocess.DEVNULL,
            pass_fds=(3, 4),
            preexec_fn=lambda: _onto_3_and_4(to_browser_r, from_browser_w),
        )
        os.close(to_browser_r)
        os.close(from_browser_w)
        self._buffer = b""
        self._next_id = 0
        self.events: list[dict[str, Any]] = []
        self.errors: list[str] = []
        target = self.call("Target.createTarget", url="about:blank")["targetId"]
        self.session = self.call("Target.attachToTarget", targetId=target, flatten=True)["sessionId"]
        for domain in ("Page", "Runtime", "Log"):
            self.call(f"{domain}.enable", session=True)

    # ------------------------------------------------------------------ protocol
    def _messages(self, deadline: float) -> Iterator[dict[str, Any]]:
        while time.monotonic() < deadline:
            while b"\0" in self._buffer:
                raw, self._buffer = self._buffer.split(b"\0", 1)
                message: dict[str, Any] = json.loads(raw)
                self._note(message)
                yield message
            ready, _, _ = select.select([self._from_browser], [], [], 0.2)
            if ready:
                chunk = os.read(self._from_browser, 1 << 16)
                if not chunk:
                    raise RuntimeError("chromium closed the DevTools pipe")
                self._buffer += chunk
        raise TimeoutError("no reply from chromium")

    def _note(self, message: dict[str, Any]) -> None:
        method, params = message.get("method"), message.get("params", {})
        if method == "Runtime.exceptionThrown":
            self.errors.append(json.dumps(params.get("exceptionDetails", {}))[:500])
        elif method == "Runtime.consoleAPICalled" and params.get("type") in ("error", "assert"):
            self.errors.append(json.dumps(params.get("args", []))[:500])
        elif method == "Log.entryAdded" and params.get("entry", {}).get("level") == "error":
            self.errors.append(params["entry"].get("text", ""))
        if method:
            self.events.append(message)

    def call(self, method: str, *, session: bool = False, **params: Any) -> dict[str, Any]:
        timeout = STARTUP_TIMEOUT if self._next_id == 0 else TIMEOUT
        self._next_id += 1
        message: dict[str, Any] = {"id": self._next_id, "method": method, "params": params}
        if session:
            message["sessionId"] = self.session
        os.write(self._to_browser, json.dumps(message).encode() + b"\0")
        for reply in self._messages(time.monotonic() + timeout):
            if reply.get("id") == self._next_id:
                if "error" in reply:
                    raise RuntimeError(f"{method}: {reply['error']}")
                result: dict[str, Any] = reply.get("result", {})
                return result
        raise AssertionError("unreachable")

    def wait_for(self, event: str) -> None:
        if any(e.get("method") == event for e in self.events):
            return
        for message in self._messages(time.monotonic() + TIMEOUT):
            if message.get("method") == event:
                return

    # ------------------------------------------------------------------ page helpers
    def open(self, url: str) -> None:
        self.events.clear()
        self.call("Page.navigate", session=True, url=url)
        self.wait_for("Page.loadEventFired")

    def js(self, expression: str) -> Any:
        reply = self.call("Runtime.evaluate", session=True, expression=expression, returnByValue=True)
        if "exceptionDetails" in reply:
            raise AssertionError(f"{expression}: {reply['exceptionDetails']}")
        return reply["result"].get("value")

    def key(self, key: str, code: int) -> None:
        for kind in ("keyDown", "keyUp"):
            self.call("Input.dispatchKeyEvent", session=True, type=kind, key=key, code=key, windowsVirtualKeyCode=code)

    def click(self, selector: str) -> None:
        box = self.js(
            f"(() => {{ const r = document.querySelector({json.dumps(selector)}).getBoundingClientRect();"
            " return [r.x + r.width / 2, r.y + r.height / 2]; })()"
        )
        for kind in ("mousePressed", "mouseReleased"):
            self.call(
                "Input.dispatchMouseEvent", session=True, type=kind, x=box[0], y=box[1], button="left", clickCount=1
            )

    def screenshot(self, path: Path) -> None:
        import base64

        path.write_bytes(base64.b64decode(self.call("Page.captureScreenshot", session=True, format="png")["data"]))

    def close(self) -> None:
        with contextlib.suppress(RuntimeError, TimeoutError, OSError):
            self.call("Browser.close")
        try:
            self.process.wait(timeout=10)
        except subprocess.TimeoutExpired:
            self.process.kill()
            self.process.wait()
        os.close(self._to_browser)
        os.close(self._from_browser)


@pytest.fixture(scope="module")
def report(tmp_path_factory: pytest.TempPathFactory) -> Path:
    out = tmp_path_factory.mktemp("report")
    done = run_cli("analyze", str(NATIVE), "--report", str(out), "--workers", "1")
    assert (out / "game-001.html").exists(), done.stderr
    return out


@pytest.fixture
def browser(tmp_path: Path) -> Iterator[Browser]:
    b = Browser(tmp_path / "profile")
    try:
        yield b
    finally:
        b.close()


CURRENT = "Number(document.body.getAttribute('data-current'))"
VISIBLE = "[...document.querySelectorAll('section.decision')].filter(s => !s.hidden).map(s => s.id)"


def test_the_game_page_loads_without_console_errors_and_draws_the_board(report: Path, browser: Browser) -> None:
    browser.open((report / "game-001.html").as_uri())
    assert browser.js(VISIBLE) == ["decision-1"]
    # The board of the shown decision is drawn: a laid-out SVG with one box per object.
    size = browser.js(
        "(() => { const s = document.querySelector('section.decision:not([hidden]) svg.board');"
        " const b = s.getBBox(); return [b.width, b.height, s.querySelectorAll('g.object').length]; })()"
    )
    assert size[0] > 300 and size[1] > 200 and size[2] >= 3
    assert browser.js("document.querySelectorAll('svg.value-graph circle.grade').length") == 2
    assert browser.js("document.querySelector('#position').textContent") == "1 / 2"
    assert browser.errors == []


def test_arrow_keys_and_graph_clicks_move_between_decisions(report: Path, browser: Browser, tmp_path: Path) -> None:
    browser.open((report / "game-001.html").as_uri())
    assert browser.js(CURRENT) == 0
    browser.key("ArrowRight", 39)
    assert browser.js(CURRENT) == 1 and browser.js(VISIBLE) == ["decision-2"]
    assert browser.js("location.hash") == "#d2"
    browser.key("ArrowRight", 39)  # the last decision: stays
    assert browser.js(CURRENT) == 1
    browser.key("ArrowLeft", 37)
    assert browser.js(VISIBLE) == ["decision-1"]
    browser.click("svg.value-graph rect.col[data-goto='1']")
    assert browser.js(VISIBLE) == ["decision-2"]
    assert browser.js("document.querySelector(\"rect.col[data-goto='1']\").classList.contains('current')")
    browser.click("ol.moves a[data-goto='0']")
    assert browser.js(VISIBLE) == ["decision-1"]
    shot = tmp_path / "page.png"
    browser.screenshot(shot)
    assert shot.read_bytes()[:8] == b"\x89PNG\r\n\x1a\n"
    assert browser.errors == []


def test_a_link_to_a_decision_opens_it(report: Path, browser: Browser) -> None:
    browser.open((report / "game-001.html").as_uri() + "#d2")
    assert browser.js(VISIBLE) == ["decision-2"]
    browser.open((report / "index.html").as_uri())
    assert browser.js("[...document.querySelectorAll('a.step')].map(a => a.getAttribute('href'))") == [
        "game-001.html",
        "game-002.html",
    ]
    assert browser.errors == []


#: Every pair of drawn texts and badges in one object whose boxes intersect (by more than a pixel), as laid out.
OVERLAPS = """(() => {
  const s = document.querySelector('section.decision:not([hidden]) svg.board');
  const out = [];
  for (const g of s.querySelectorAll('g.object')) {
    const items = [...g.querySelectorAll(':scope > text, :scope > g.badge')].map(e => [e, e.getBBox()]);
    for (let i = 0; i < items.length; i++) for (let j = i + 1; j < items.length; j++) {
      const [a, p] = items[i], [b, q] = items[j];
      const w = Math.min(p.x + p.width, q.x + q.width) - Math.max(p.x, q.x);
      const h = Math.min(p.y + p.height, q.y + q.height) - Math.max(p.y, q.y);
      if (w > 1 && h > 1) out.push([g.dataset.id, a.textContent, b.textContent]);
    }
  }
  return out;
})()"""
DRAWN = """(() => {
  const s = document.querySelector('section.decision:not([hidden]) svg.board');
  const all = sel => [...s.querySelectorAll(sel)];
  const id = e => e.closest('g.object').dataset.id;
  // the text shown, without its <title> tooltip
  const shown = t => [...t.childNodes].filter(n => n.nodeType === 3).map(n => n.data).join('');
  return {
    notes: all('text.effect-note, text.team-poison').map(t => [id(t), shown(t)]),
    effects: all('g.effect').map(e => [e.dataset.card, e.dataset.controller, e.getBBox().height > 20]),
    badges: all('g.badge[data-effects]').map(b => [id(b), b.dataset.added, b.dataset.effects]),
    counters: all('text.counter').map(t => [id(t), shown(t)]),
  };
})()"""


@pytest.fixture(scope="module")
def drawn_report(tmp_path_factory: pytest.TempPathFactory) -> Path:
    """One game: a 2HG decision with both poisoned heads chosen, then one under three replacement effects."""
    root = Path(__file__).resolve().parent.parent / "solver" / "examples"
    giant = json.loads((root / "two_headed_giant_lethal.json").read_text())
    classic = json.loads((root / "classic.json").read_text())
    classic["effects"] = [
        {"card": "Doubling Season", "controller": "alice"},
        {"card": "Hardened Scales", "controller": "alice"},
        {"card": "Vorinclex, Monstrous Raider", "controller": "bob"},
    ]
    recipients = {"B": "carol"}
    records = [
        {"game": "g", "turn": 3, "decider": "alice", "board": giant, "chosen": ["bob", "carol", "phage"]}
        | {"poison_recipients": recipients},
        {"game": "g", "turn": 5, "decider": "alice", "board": classic, "chosen": ["bears", "tamiyo", "bob"]},
    ]
    out = tmp_path_factory.mktemp("drawn")
    (out / "game.jsonl").write_text("".join(json.dumps(r) + "\n" for r in records))
    done = run_cli("analyze", str(out / "game.jsonl"), "--report", str(out / "report"), "--workers", "1")
    assert (out / "report" / "game-001.html").exists(), done.stderr
    return out / "report"


def test_a_two_headed_giant_teams_poison_stays_readable_beside_the_badges(drawn_report: Path, browser: Browser) -> None:
    """Issue 24: "team poison 14" ran under the "+1" badges of the chosen and the best choice (810.10)."""
    browser.open((drawn_report / "game-001.html").as_uri())
    assert browser.js(OVERLAPS) == []
    drawn = browser.js(DRAWN)
    assert ["bob", "poison 14"] in drawn["counters"] and ["carol", "poison 14"] in drawn["counters"]
    assert ["bob", "team B's (810.10)"] in drawn["notes"] and ["carol", "team B's (810.10)"] in drawn["notes"]
    assert browser.errors == []


def test_the_replacement_effects_in_play_are_drawn_with_the_card_behind_each_count(
    drawn_report: Path, browser: Browser
) -> None:
    """The "+2" on Grizzly Bears is Doubling Season and Hardened Scales (614); bob's "+0" is Vorinclex halving it."""
    browser.open((drawn_report / "game-001.html").as_uri() + "#d2")
    assert browser.js(OVERLAPS) == []
    drawn = browser.js(DRAWN)
    assert [card for card, _, _ in drawn["effects"]] == [
        "Doubling Season",
        "Hardened Scales",
        "Vorinclex, Monstrous Raider",
    ]
    assert all(laid_out for _, _, laid_out in drawn["effects"])  # the card's line and its summary
    bears = [b for b in drawn["badges"] if b[0] == "bears"]
    assert bears and all("Doubling Season" in effects and "Hardened Scales" in effects for _, _, effects in bears)
    assert ["bears", "via Doubling Season"] in drawn["notes"] and ["bob", "via Vorinclex"] in drawn["notes"]
    assert ["bob", "0", "Vorinclex, Monstrous Raider"] in drawn["badges"]
    assert browser.errors == []
