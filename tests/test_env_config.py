"""Constructor keywords are checked once (EnvConfig) and mean the same in every env class."""

from __future__ import annotations

from typing import Any

import pytest

import env
from env.config import EnvConfig
from env.scenarios import ARCHETYPES, CARDS, check_archetypes


def test_an_unknown_archetype_is_refused_at_construction_naming_the_known_ones() -> None:
    with pytest.raises(ValueError, match=r"unknown archetype 'infekt'; known: infect, superfriends, .*mixed"):
        env.ProliferateEnv(archetypes=("infekt",))
    with pytest.raises(ValueError, match="not the string"):
        env.ProliferateVectorEnv(2, archetypes="infect")
    with pytest.raises(ValueError, match="no archetype given"):
        EnvConfig.build("duel", archetypes=())


def test_the_aec_adapter_checks_archetypes_the_same_way() -> None:
    pytest.importorskip("pettingzoo")
    from env.pettingzoo import ProliferateAEC

    with pytest.raises(ValueError, match="unknown archetype 'infekt'"):
        ProliferateAEC(archetypes=("infekt",))


def test_the_mixed_deck_is_every_other_card_of_every_named_deck_whatever_the_order() -> None:
    named = [name for name in CARDS if name != "mixed"]
    assert set(ARCHETYPES) == set(CARDS) and len(named) == len(ARCHETYPES) - 1
    mixed = {spec.name for spec in CARDS["mixed"]}
    for name in named:
        assert {spec.name for spec in CARDS[name][::2]} <= mixed, name
    assert check_archetypes(("mixed", "infect")) == ("mixed", "infect")


def test_other_keywords_name_what_is_wrong() -> None:
    with pytest.raises(ValueError, match="variant must be one of 'duel'"):
        EnvConfig.build("chess")
    with pytest.raises(ValueError, match="events: unknown event 'atack'; known: attack"):
        env.ProliferateEnv(events={"atack": 0.5})
    with pytest.raises(ValueError, match="slots must exceed the 4 player slots"):
        env.ProliferateEnv("free_for_all", slots=4)
    with pytest.raises(ValueError, match="action_mode"):
        env.ProliferateVectorEnv(2, action_mode="pairs")  # type: ignore[arg-type]


@pytest.mark.parametrize("keyword", ["slots", "max_turns", "c_max", "horizon"])
@pytest.mark.parametrize("bad", [32.5, "40", True, 0])
def test_a_count_keyword_that_is_not_a_whole_number_is_refused_by_name(keyword: str, bad: object) -> None:
    """slots=32.5 failed inside Gymnasium's spaces, max_turns=2.5 or 0 was taken: every count is checked here."""
    with pytest.raises(ValueError, match=rf"^{keyword} must be an integer of at least 1, not {bad!r}$"):
        keywords: dict[str, Any] = {keyword: bad}
        EnvConfig.build("duel", **keywords)


def test_one_config_gives_every_env_class_the_same_slot_arithmetic() -> None:
    config = EnvConfig.build("two_headed_giant", slots=40)
    assert (config.n_seats, config.capacity, config.start_permanents) == (4, 36, 24)
    assert config.game.capacity == config.capacity
    single = env.ProliferateEnv("two_headed_giant", slots=40)
    vector = env.ProliferateVectorEnv(2, "two_headed_giant", slots=40)
    assert single.settings == vector.settings == config
