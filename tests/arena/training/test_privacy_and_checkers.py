"""No leak of other players' private cards to the learner; Gymnasium's and SB3's env checkers."""

from __future__ import annotations

import warnings

import numpy as np
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from arena.training import SingleAgentEnv
from tests.arena.training.training_envs import FixedAgent

RANKS = ("J", "Q", "K")


def learner_view(
    game: str, seat: str, cards: list[str], learner_choices: list[int], opponent_choices: list[int]
) -> list:
    """Everything the learner receives in one episode with a fixed deal."""
    single = SingleAgentEnv(game, FixedAgent(choices=opponent_choices), seats=seat)
    observation, info = single.reset(seed=0, options={"cards": cards})
    view = [(observation.tolist(), sorted(info), single.action_masks().tolist())]
    for choice in learner_choices:
        legal = np.flatnonzero(single.action_masks())
        observation, reward, terminated, truncated, info = single.step(int(legal[choice % len(legal)]))
        # The reward may differ at showdown (that is the game); nothing else may.
        view.append((observation.tolist(), terminated, truncated, sorted(info)))
        if terminated or truncated:
            return view
        view.append(single.action_masks().tolist())
    return view


@st.composite
def deals(draw: st.DrawFn, game: str) -> tuple[str, list[str], list[str]]:
    """A seat and two deals that differ only in the opponent's private card."""
    seat = draw(st.sampled_from(["player_0", "player_1"]))
    suits = 1 if game == "kuhn_poker" else 2
    deck = [rank for rank in RANKS for _ in range(suits)]
    own = draw(st.sampled_from(deck))
    deck.remove(own)
    public: list[str] = []
    if game == "leduc_poker":
        public = [draw(st.sampled_from(deck))]
        deck.remove(public[0])
    first = draw(st.sampled_from(deck))
    second = draw(st.sampled_from([card for card in deck if card != first]))
    seat_index = int(seat[-1])

    def deal(opponent_card: str) -> list[str]:
        cards = [own, opponent_card] if seat_index == 0 else [opponent_card, own]
        return cards + public

    return seat, deal(first), deal(second)


@pytest.mark.parametrize("game", ["kuhn_poker", "leduc_poker"])
@settings(max_examples=60, deadline=None)
@given(data=st.data())
def test_learner_never_sees_opponent_card(game: str, data: st.DataObject) -> None:
    seat, deal_a, deal_b = data.draw(deals(game))
    learner_choices = data.draw(st.lists(st.integers(0, 2), min_size=1, max_size=8))
    opponent_choices = data.draw(st.lists(st.integers(0, 2), min_size=1, max_size=8))
    assert deal_a != deal_b
    view_a = learner_view(game, seat, deal_a, learner_choices, opponent_choices)
    view_b = learner_view(game, seat, deal_b, learner_choices, opponent_choices)
    assert view_a == view_b


def test_learner_does_see_its_own_card() -> None:
    # The property above is not vacuous: the learner's own card does change its view.
    a = learner_view("kuhn_poker", "player_0", ["J", "Q"], [1], [1])
    b = learner_view("kuhn_poker", "player_0", ["K", "Q"], [1], [1])
    assert a != b


# ----------------------------------------------------------------- checkers
CHECKED = [
    ("tic_tac_toe", {}),
    ("connect_four", {}),
    ("rock_paper_scissors", {}),
    ("kuhn_poker", {}),
    ("liars_dice", {}),
]


@pytest.mark.parametrize("name,kwargs", CHECKED)
def test_gymnasium_check_env(name: str, kwargs: dict) -> None:
    from gymnasium.utils.env_checker import check_env

    # Seats shuffle and random actions may be illegal: 'forfeit' keeps every checker step valid.
    env = SingleAgentEnv(name, "random", shuffle_seats=True, illegal_action="forfeit", env_kwargs=kwargs)
    with warnings.catch_warnings():
        warnings.simplefilter("error")
        warnings.filterwarnings("ignore", message=".*not able to test alternative render modes.*")
        check_env(env, skip_render_check=True)


@pytest.mark.parametrize("name,kwargs", CHECKED)
def test_sb3_check_env(name: str, kwargs: dict) -> None:
    pytest.importorskip("stable_baselines3")
    from stable_baselines3.common.env_checker import check_env

    env = SingleAgentEnv(name, "random", shuffle_seats=True, illegal_action="forfeit", env_kwargs=kwargs)
    with warnings.catch_warnings(record=True) as caught:
        warnings.simplefilter("always")
        check_env(env, warn=True)
    # SB3 only advises flattening 2-D boards for its MLP (a style hint, the MlpPolicy flattens them).
    unexpected = [str(w.message) for w in caught if "unconventional shape" not in str(w.message)]
    assert unexpected == []


def test_sb3_check_env_with_an_interface() -> None:
    pytest.importorskip("stable_baselines3")
    from stable_baselines3.common.env_checker import check_env

    from interfaces.board import EgoBoard
    from interfaces.observation import Flatten

    env = SingleAgentEnv(
        "connect_four", "random", shuffle_seats=True, illegal_action="forfeit", interface=Flatten(EgoBoard())
    )
    assert env.observation_space.shape == (42,)
    with warnings.catch_warnings():
        warnings.simplefilter("error")
        check_env(env, warn=True)
