"""Policy: the objective's weights, from TOML or Python, with every bad input named by its key path."""

from __future__ import annotations

from pathlib import Path

import pytest

from solver import BoardError, Policy, PolicyError, load_board, solve
from solver.policy import MAX_WEIGHT


def _write(tmp_path: Path, text: str) -> Path:
    path = tmp_path / "policy.toml"
    path.write_text(text)
    return path


def test_from_toml_happy_path(tmp_path: Path) -> None:
    path = _write(
        tmp_path,
        """
[game]
win = 2.0
draw = 0
loss = -3
elimination = 0.5
weight = 5000

[values]
creature_base = 2.5
saga_chapter = 4
saga_value = 0.5

[weights]
energy = 5
P1P1 = 1.5
"first strike" = 0.25
""",
    )
    policy = Policy.from_toml(path)
    assert (policy.win, policy.draw, policy.loss, policy.elimination, policy.game_weight) == (
        2.0,
        0.0,
        -3.0,
        0.5,
        5000.0,
    )
    assert (policy.creature_base, policy.saga_chapter, policy.saga_value) == (2.5, 4.0, 0.5)
    assert policy.weight("energy") == 5.0
    assert policy.weight("+1/+1") == 1.5  # alias normalised (122.1: a kind is its name)
    assert policy.weight("first strike") == 0.25
    assert policy.weight("poison") == Policy().weight("poison")
    assert Policy.from_dict(policy.to_dict()) == policy


@pytest.mark.parametrize(
    ("text", "path", "message"),
    [
        ("[strategy]\nx = 1\n", "strategy", "unknown table"),
        ("[game]\nvictory = 1\n", "game.victory", "unknown key"),
        ("[values]\ncreature = 1\n", "values.creature", "unknown key"),
        ('[game]\nwin = "big"\n', "game.win", "finite number"),
        ("[weights]\nenergy = true\n", 'weights["energy"]', "finite number"),
        ("[weights]\nenergy = nan\n", 'weights["energy"]', "finite number"),
        ('[weights]\n"" = 1\n', 'weights[""]', "empty"),
        ("[game]\nwin = -0.5\ndraw = -0.5\n", "game", "win > draw > loss"),
        ("[game]\ndraw = -2\n", "game", "win > draw > loss"),
        ("[game]\nelimination = 1.0\n", "game.elimination", "below the score of a win"),
        ("[game]\nelimination = 2.0\n", "game.elimination", "below the score of a win"),
        ("game = 3\n", "game", "must be a table"),
    ],
)
def test_bad_policy_names_the_key_path(tmp_path: Path, text: str, path: str, message: str) -> None:
    with pytest.raises(PolicyError) as info:
        Policy.from_toml(_write(tmp_path, text))
    problems = info.value.problems
    assert any(p.path == path and message in p.message for p in problems), problems
    assert path in str(info.value)


def test_bad_kind_name_is_a_policy_error() -> None:
    with pytest.raises(PolicyError) as info:
        Policy.from_dict({"weights": {"+1/+1/+1": 1}})
    assert info.value.problems[0].path == 'weights["+1/+1/+1"]'


def test_every_problem_is_reported_not_only_the_first() -> None:
    with pytest.raises(PolicyError) as info:
        Policy.from_dict({"game": {"victory": 1, "win": "x"}, "weights": {"energy": "y"}, "other": {}})
    assert {p.path for p in info.value.problems} == {"game.victory", "game.win", 'weights["energy"]', "other"}


def test_unreadable_file(tmp_path: Path) -> None:
    with pytest.raises(PolicyError, match="cannot read policy file"):
        Policy.from_toml(tmp_path / "missing.toml")


def test_invalid_toml(tmp_path: Path) -> None:
    with pytest.raises(PolicyError, match="not valid TOML"):
        Policy.from_toml(_write(tmp_path, "[game\nwin = 1\n"))


def test_policy_changes_the_decision() -> None:
    """Energy worth 5 makes proliferating myself worth my own poison counter (-1)."""
    board = load_board(
        {
            "variant": "duel",
            "proliferator": "alice",
            "players": [{"id": "alice", "counters": {"poison": 2, "energy": 1}}, {"id": "bob", "counters": {}}],
        }
    )
    assert solve(board).chosen == ()
    rich = solve(board, Policy.from_dict({"weights": {"energy": 5}}))
    assert rich.chosen == ("alice",)
    assert rich.value == pytest.approx(4.0)


def test_policy_cannot_make_self_poisoning_to_death_worth_it() -> None:
    """Whatever energy is worth (up to the largest weight allowed), the 10th poison (704.5c) loses."""
    board = load_board(
        {
            "variant": "duel",
            "proliferator": "alice",
            "players": [{"id": "alice", "counters": {"poison": 9, "energy": 1}}, {"id": "bob", "counters": {}}],
        }
    )
    assert solve(board, Policy.from_dict({"weights": {"energy": MAX_WEIGHT}})).chosen == ()


def test_misspelt_kind_names_the_nearest_known_kind() -> None:
    with pytest.raises(PolicyError) as info:
        Policy.from_dict({"weights": {"loyality": 2}})
    assert info.value.problems[0].path == 'weights["loyality"]'
    assert "did you mean 'loyalty'?" in str(info.value)


@pytest.mark.parametrize("kind", ["slime", "arena:12", "P1P1", "first_strike", "+2/+0"])
def test_custom_and_aliased_kinds_stay_allowed(kind: str) -> None:
    assert list(Policy.from_dict({"weights": {kind: 1}}).weights.values()) == [1.0]


@pytest.mark.parametrize(
    ("table", "key", "value"),
    [("weights", "loyalty", 1e300), ("values", "creature_base", -2e6), ("game", "weight", 1e10), ("game", "win", 1e4)],
)
def test_numbers_past_their_limit_are_refused(table: str, key: str, value: float) -> None:
    with pytest.raises(PolicyError, match="must be from"):
        Policy.from_dict({table: {key: value}})


def test_with_weights_checks_like_the_file() -> None:
    assert Policy().with_weights(first_strike=0.5).weight("first strike") == 0.5
    with pytest.raises(PolicyError, match="did you mean"):
        Policy().with_weights(loyality=2)


@pytest.mark.parametrize("content", [b"\xff\xfe[game]\n", b"a = " + b"[" * 100_000])
def test_unreadable_policy_files_are_policy_errors(tmp_path: Path, content: bytes) -> None:
    path = tmp_path / "bad.toml"
    path.write_bytes(content)
    with pytest.raises(PolicyError):
        Policy.from_toml(path)


def test_the_constructor_bounds_numbers_too() -> None:
    with pytest.raises(PolicyError, match=r"game\.weight: must be from"):
        Policy(game_weight=1e300)
    with pytest.raises(PolicyError, match="finite"):
        Policy(weights={"loyalty": float("nan")})


@pytest.mark.parametrize("game", [{"draw": 0.999}, {"elimination": 0.001}])
def test_game_scores_too_close_together_are_refused(game: dict[str, float]) -> None:
    """The objective raises the game weight by max |score| / smallest gap; solver.limits budgets for 200."""
    with pytest.raises(PolicyError, match="too close together"):
        Policy.from_dict({"game": game})


@pytest.mark.parametrize("game", [{}, {"draw": 0.5}, {"draw": 0.0}, {"elimination": 0.01}])
def test_reasonable_game_scores_are_accepted(game: dict[str, float]) -> None:
    assert Policy.from_dict({"game": game}).win == 1.0


def test_kind_weights_are_the_weights_of_each_kind_kept_read_only() -> None:
    policy = Policy.from_dict({"weights": {"loyalty": 2.5}})
    kinds = ("loyalty", "+1/+1", "poison", "mystery kind")
    weights = policy.kind_weights(kinds)
    assert weights.tolist() == [policy.weight(k) for k in kinds]
    assert weights[0] == 2.5
    assert not weights.flags.writeable
    assert policy.kind_weights(kinds) is weights
    assert Policy().kind_weights(kinds)[0] == Policy().weight("loyalty") != 2.5
    assert policy == Policy.from_dict(policy.to_dict())  # the kept table is not part of the policy


@pytest.mark.parametrize("digits", [100, 400, 4_000])
@pytest.mark.parametrize(("table", "key"), [("weights", "loyalty"), ("game", "weight"), ("values", "saga_value")])
def test_integers_of_thousands_of_digits_are_out_of_range_not_overflow(table: str, key: str, digits: int) -> None:
    """docs/limits.md: a huge integer is a number past its limit, never an OverflowError of float()."""
    for sign in (1, -1):
        with pytest.raises(PolicyError, match="must be from"):
            Policy.from_dict({table: {key: sign * 10**digits}})
    with pytest.raises(PolicyError, match="must be from"):
        Policy(game_weight=10**digits)


def test_a_huge_integer_policy_in_a_toml_file_is_a_policy_error(tmp_path: Path) -> None:
    path = tmp_path / "huge.toml"
    path.write_text(f"[weights]\nloyalty = {10**400}\n")
    with pytest.raises(PolicyError, match=r'weights\["loyalty"\]: must be from'):
        Policy.from_toml(path)


def test_a_time_limit_past_every_float_is_no_deadline() -> None:
    assert solve(load_board("solver/examples/classic.json"), time_limit=10**400).status == "OPTIMAL"


def test_two_spellings_of_one_kind_are_refused_as_the_board_loader_refuses_them() -> None:
    """122.1: ``+1/+1`` and ``P1P1`` are one kind; giving both weights is a contradiction, not last-wins."""
    with pytest.raises(PolicyError) as policy_error:
        Policy.from_dict({"weights": {"+1/+1": 1, "P1P1": 5}})
    board = {
        "variant": "duel",
        "players": [{"id": "me"}, {"id": "you"}],
        "proliferator": "me",
        "permanents": [
            {
                "id": "b",
                "controller": "me",
                "types": ["creature"],
                "power": 1,
                "toughness": 1,
                "counters": {"+1/+1": 1, "P1P1": 5},
            }
        ],
    }
    with pytest.raises(BoardError) as board_error:
        load_board(board)
    assert [p.message for p in policy_error.value.problems] == [p.message for p in board_error.value.problems]
    assert policy_error.value.problems[0].path == 'weights["P1P1"]'


@pytest.mark.parametrize("data", [None, [], "weights", 3])
def test_a_policy_that_is_not_a_mapping_is_a_policy_error(data: object) -> None:
    with pytest.raises(PolicyError, match="a policy must be a mapping"):
        Policy.from_dict(data)  # type: ignore[arg-type]


@pytest.mark.parametrize("name", ["\x00", "\ud800"])
def test_impossible_policy_file_names_are_policy_errors(name: str) -> None:
    with pytest.raises(PolicyError, match="not a possible file name"):
        Policy.from_toml(name)


def test_a_policy_file_past_its_size_bound_is_a_policy_error() -> None:
    with pytest.raises(PolicyError, match="larger than 1048576 bytes"):
        Policy.from_toml("/dev/zero")


def test_a_huge_integer_in_a_configure_policy_is_an_invalid_request_not_internal() -> None:
    """Over the protocol the same check answers: ``invalid_request`` naming the key (docs/limits.md)."""
    from solver.protocol.messages import ProtocolError, parse_request

    with pytest.raises(ProtocolError) as refused:
        parse_request({"type": "configure", "id": 1, "policy": {"weights": {"loyalty": 10**400}}}, 2000)
    assert "must be from" in str(refused.value)
