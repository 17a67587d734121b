"""The board drawing, read back as XML: every object, its counters, the marks and the "+1" badges."""

from __future__ import annotations

import subprocess
import sys
import xml.etree.ElementTree as ET
from pathlib import Path

from hypothesis import given, settings
from strategies import boards

import solver
from solver.board import Board
from solver.svg import board_svg, choice_svg

NS = {"s": "http://www.w3.org/2000/svg"}


def parse(svg: str) -> ET.Element:
    root = ET.fromstring(svg)
    assert root.tag == "{http://www.w3.org/2000/svg}svg"
    return root


def objects(root: ET.Element) -> dict[str, ET.Element]:
    return {
        g.get("data-id", ""): g for g in root.iter("{http://www.w3.org/2000/svg}g") if "object" in g.get("class", "")
    }


def classes(g: ET.Element) -> set[str]:
    return set(g.get("class", "").split())


def counters(g: ET.Element) -> dict[str, int]:
    return {t.get("data-kind", ""): int(t.get("data-count", "-1")) for t in g.iterfind("s:text[@class='counter']", NS)}


def badges(g: ET.Element, which: str) -> dict[str, int]:
    return {
        b.get("data-kind", ""): int(b.get("data-added", "0"))
        for b in g.iterfind("s:g", NS)
        if classes(b) == {"badge", which}
    }


def texts(g: ET.Element, cls: str) -> list[str]:
    """Shown text of each ``<text class=cls>`` (a clipped text keeps its whole in a ``<title>`` tooltip)."""
    return [
        (t.text or "") + "".join(c.tail or "" for c in t)
        for t in g.iter("{http://www.w3.org/2000/svg}text")
        if t.get("class") == cls
    ]


def tooltip(g: ET.Element, cls: str) -> str | None:
    for t in g.iter("{http://www.w3.org/2000/svg}text"):
        if t.get("class") == cls:
            title = t.find("s:title", NS)
            return None if title is None else title.text
    return None


CLASSIC = solver.load_board("solver/examples/classic.json")


def test_every_player_and_permanent_is_drawn_with_its_counters() -> None:
    root = parse(board_svg(CLASSIC))
    drawn = objects(root)
    assert set(drawn) == set(CLASSIC.ids)
    for obj_id in CLASSIC.ids:
        assert counters(drawn[obj_id]) == dict(CLASSIC.counters(obj_id))
    assert "player" in classes(drawn["alice"]) and "permanent" in classes(drawn["bears"])
    assert texts(drawn["bob"], "type-line") == ["life 20"]
    # Grizzly Bears 2/2 with a +1/+1 counter is a 3/3 (613.4c); Centaur Courser 3/3 with a -1/-1 is 2/2.
    assert texts(drawn["bears"], "pt") == ["3/3"]
    assert texts(drawn["courser"], "pt") == ["2/2"]
    assert texts(drawn["tamiyo"], "pt") == []


def test_permanents_are_grouped_by_controller() -> None:
    root = parse(board_svg(CLASSIC))
    bands = {
        b.get("data-controller"): set(objects(b))
        for b in root.iter("{http://www.w3.org/2000/svg}g")
        if b.get("class") == "band"
    }
    assert bands == {"alice": {"alice", "bears", "tamiyo"}, "bob": {"bob", "liliana", "courser"}}


def test_chosen_and_best_are_marked_differently_with_their_added_counters() -> None:
    best = solver.solve(CLASSIC).choice
    chosen = solver.Choice.of(["bob", "bears", "liliana"])
    drawn = objects(parse(choice_svg(CLASSIC, chosen, best)))
    assert {i for i, g in drawn.items() if "chosen" in classes(g)} == {"bob", "bears", "liliana"}
    assert {i for i, g in drawn.items() if "best" in classes(g)} == set(best.rounds[0].chosen)
    assert badges(drawn["liliana"], "chosen") == {"loyalty": 1} and badges(drawn["liliana"], "best") == {}
    assert badges(drawn["courser"], "best") == {"-1/-1": 1} and badges(drawn["courser"], "chosen") == {}
    assert badges(drawn["bob"], "chosen") == badges(drawn["bob"], "best") == {"poison": 1}
    assert badges(drawn["alice"], "chosen") == {}
    for g in drawn.values():
        mark_chosen = g.find("s:rect[@class='mark-chosen']", NS)
        mark_best = g.find("s:rect[@class='mark-best']", NS)
        assert (mark_chosen is not None) == ("chosen" in classes(g))
        assert (mark_best is not None) == ("best" in classes(g))
        if mark_best is not None:
            assert mark_best.get("stroke-dasharray")  # dashed, unlike the solid chosen outline


def test_doubled_counters_show_what_the_replacement_adds() -> None:
    board = solver.load_board(
        {
            "variant": "duel",
            "proliferator": "a",
            "players": [{"id": "a"}, {"id": "b"}],
            "permanents": [
                {
                    "id": "x",
                    "controller": "a",
                    "types": ["creature"],
                    "power": 1,
                    "toughness": 1,
                    "counters": {"+1/+1": 1},
                }
            ],
            "effects": [{"card": "Hardened Scales", "controller": "a"}],
        }
    )
    drawn = objects(parse(choice_svg(board, solver.Choice.of(["x"]))))
    assert badges(drawn["x"], "chosen") == {"+1/+1": 2}  # Hardened Scales: one more (614.1a)
    assert texts(drawn["x"], "pt") == ["2/2"]


def test_names_and_type_lines_can_be_given_and_text_is_escaped() -> None:
    board = solver.load_board(
        {
            "variant": "duel",
            "proliferator": "a&b",
            "players": [{"id": "a&b", "counters": {"energy": 2}}, {"id": "<c>"}],
            "permanents": [
                {"id": "7", "controller": "<c>", "types": ["artifact"], "name": "grpId 7", "counters": {"charge": 1}}
            ],
        }
    )
    svg = board_svg(board, names={"7": "Everflowing Chalice"}, type_lines={"7": "Artifact"})
    drawn = objects(parse(svg))
    assert set(drawn) == {"a&b", "<c>", "7"}
    assert texts(drawn["7"], "name") == ["Everflowing Cha…"]
    assert tooltip(drawn["7"], "name") == "Everflowing Chalice"
    assert texts(drawn["7"], "type-line") == ["Artifact"]
    assert texts(drawn["7"], "object-id") == ["id 7"]


def test_the_same_board_gives_the_same_text() -> None:
    assert board_svg(CLASSIC, chosen=["bob"]) == board_svg(CLASSIC, chosen=["bob"])


@settings(max_examples=40, deadline=None)
@given(boards())
def test_any_board_draws_as_well_formed_svg_with_every_object(board: Board) -> None:
    best = solver.solve(board).choice
    drawn = objects(parse(choice_svg(board, solver.Choice.of([], rounds=board.rounds), best)))
    assert set(drawn) == set(board.ids)
    for obj_id, g in drawn.items():
        shown = counters(g)
        row = board.index[obj_id]  # a 2HG head shows its team's poison (810.10), however the board wrote it
        held = {board.kinds[k]: int(n) for k, n in enumerate(board.counts[row].tolist()) if n}
        assert {k: v for k, v in shown.items() if v} == held or len(shown) >= 4


def _solve_cli(*args: str) -> subprocess.CompletedProcess[str]:
    return subprocess.run(
        [sys.executable, "-m", "solver", "solve", *args], capture_output=True, text=True, timeout=120, check=False
    )


def test_solve_svg_draws_the_answer_as_the_best_choice(tmp_path: Path) -> None:
    out = tmp_path / "classic.svg"
    done = _solve_cli("solver/examples/classic.json", "--svg", str(out))
    assert done.returncode == 0, done.stderr
    assert done.stdout.startswith("Proliferate: bob, bears, tamiyo, courser")
    drawn = objects(parse(out.read_text(encoding="utf-8")))
    assert {i for i, g in drawn.items() if "best" in classes(g)} == {"bob", "bears", "tamiyo", "courser"}
    assert not any("chosen" in classes(g) for g in drawn.values())
    assert badges(drawn["tamiyo"], "best") == {"loyalty": 1}


def test_solve_svg_to_a_place_that_cannot_be_written_exits_2(tmp_path: Path) -> None:
    target = tmp_path / "missing" / "x.svg"
    done = _solve_cli("solver/examples/classic.json", "--svg", str(target))
    assert done.returncode == 2
    assert str(target) in done.stderr and "cannot write" in done.stderr and "Traceback" not in done.stderr


def test_two_headed_giant_poison_is_labelled_as_the_teams() -> None:
    board = solver.load_board("solver/examples/two_headed_giant_lethal.json")
    drawn = objects(parse(board_svg(board)))
    heads = [p for p in range(board.n_players) if board.counters(board.ids[p]).get("poison")]
    assert heads
    for p in heads:
        g = drawn[board.ids[p]]
        assert texts(g, "counter") == ["poison 14"]  # short beside the badges, never clipped
        assert texts(g, "team-poison") == ["team B's (810.10)"]  # shared by the team (810.10)


def test_a_counter_label_never_runs_under_its_badges() -> None:
    """Issue 24: 2HG "team poison 14" ran under the chosen and best "+1" badges; labels are clipped to fit."""
    board = solver.load_board("solver/examples/two_headed_giant_lethal.json")
    chosen = solver.Choice.of(["bob", "carol", "phage"], {"B": "carol"})
    root = parse(choice_svg(board, chosen, solver.solve(board).choice))
    for g in objects(root).values():
        for t in g.iterfind("s:text[@class='counter']", NS):
            right = float(t.get("x", "0")) + len(texts_of(t)) * 12 * 0.6
            for b in g.iterfind("s:g", NS):
                rect = b.find("s:rect", NS)
                if "badge" in classes(b) and b.get("data-kind") == t.get("data-kind") and rect is not None:
                    assert right <= float(rect.get("x", "0")), (texts_of(t), g.get("data-id"))


def texts_of(t: ET.Element) -> str:
    return (t.text or "") + "".join(c.tail or "" for c in t)


EFFECTS = {
    **solver.load_board("solver/examples/classic.json").to_dict(),
    "effects": [
        {"card": "Doubling Season", "controller": "alice"},
        {"card": "Hardened Scales", "controller": "alice"},
        {"card": "Vorinclex, Monstrous Raider", "controller": "bob"},
    ],
}


def test_the_replacement_effects_in_play_are_drawn() -> None:
    """Each effect on the board gets a line: the card, its controller and what it does (614)."""
    board = solver.load_board(EFFECTS)
    root = parse(board_svg(board))
    drawn = [
        (g.get("data-card"), g.get("data-controller"), texts(g, "effect-card"))
        for g in root.iter("{http://www.w3.org/2000/svg}g")
        if "effect" in classes(g)
    ]
    assert [d[:2] for d in drawn] == [
        ("Doubling Season", "alice"),
        ("Hardened Scales", "alice"),
        ("Vorinclex, Monstrous Raider", "bob"),
    ]
    assert drawn[0][2] == ["Doubling Season (alice)"]
    assert not any("effect" in classes(g) for g in parse(board_svg(CLASSIC)).iter("{http://www.w3.org/2000/svg}g"))


def test_the_card_behind_a_count_is_named_on_its_badge() -> None:
    """Bears' "+2" is Doubling Season and Hardened Scales (and Vorinclex halving, 614); bob's "+0" is Vorinclex's."""
    board = solver.load_board(EFFECTS)
    chosen = solver.Choice.of(["bears", "bob"])
    drawn = objects(parse(choice_svg(board, chosen)))
    bears = drawn["bears"]
    (badge,) = [b for b in bears.iterfind("s:g", NS) if classes(b) == {"badge", "chosen"}]
    assert badge.get("data-added") == str(solver.apply_proliferate(board, chosen).added["bears"]["+1/+1"])
    assert badge.get("data-effects") == "Doubling Season; Hardened Scales; Vorinclex, Monstrous Raider"
    assert texts(bears, "effect-note") == ["via Doubling Season", "via Hardened Scales", "via Vorinclex"]
    assert badges(drawn["bob"], "chosen") == {"poison": 0}  # halved to nothing, and said why
    assert texts(drawn["bob"], "effect-note") == ["via Vorinclex"]
    assert texts(drawn["liliana"], "effect-note") == []  # not chosen: no badge, no note
