"""OpenSpiel games as arena envs: contract, chance, simultaneous moves, rewards that add up to returns()."""

from __future__ import annotations

import numpy as np
import pytest

pytest.importorskip("pyspiel")

import pyspiel  # noqa: E402
from hypothesis import given, settings  # noqa: E402
from hypothesis import strategies as st

from arena import EnvItfWrapper, IllegalActionError, RandomAgent, play  # noqa: E402
from arena.adapters.openspiel import OpenSpielEnv, from_openspiel  # noqa: E402
from arena.errors import ArenaError, ResetNeeded, UnknownAgentError  # noqa: E402
from arena.testing import check_env  # noqa: E402
from interfaces.observation import Flatten  # noqa: E402

GAMES = {
    "tic_tac_toe": {},
    "connect_four": {},
    "kuhn_poker": {},  # chance: the deal
    "leduc_poker": {},  # chance: deal and public card
    "matrix_rps": {},  # simultaneous, one move each
    "goofspiel": {"num_cards": 4, "imp_info": True},  # simultaneous bids and chance point cards
}
# Games where a chance event, not a move, ends the game (blackjack's dealer) or where
# OpenSpiel repeats a move's reward after chance (2048): naive rewards() sums go wrong there.
REWARD_TRAPS = {"blackjack": {}, "2048": {}}


@pytest.mark.parametrize("name", sorted(GAMES))
def test_games_pass_check_env_and_play(name: str) -> None:
    env = from_openspiel(name, **GAMES[name])
    check_env(env)
    for seed in range(3):
        episode = play(env, [RandomAgent() for _ in env.possible_agents], seed=seed)
        assert episode.length >= 1
        assert sum(episode.returns.values()) == pytest.approx(0.0)  # all six are zero-sum


@settings(max_examples=25, deadline=None)
@given(seed=st.integers(0, 2**31 - 1), name=st.sampled_from(sorted(GAMES | REWARD_TRAPS)))
def test_summed_rewards_equal_openspiel_returns(seed: int, name: str) -> None:
    env = from_openspiel(name, **(GAMES | REWARD_TRAPS)[name])
    episode = play(env, [RandomAgent() for _ in env.possible_agents], seed=seed)
    assert env.state.is_terminal()
    expected = env.state.returns()
    assert [episode.returns[agent] for agent in env.possible_agents] == pytest.approx(expected)


def test_chance_is_sampled_from_the_reset_seed() -> None:
    env = from_openspiel("leduc_poker")
    deals = set()
    for seed in range(12):
        first = play(env, [RandomAgent(), RandomAgent()], seed=seed)
        history = env.state.history()
        again = play(env, [RandomAgent(), RandomAgent()], seed=seed)
        assert env.state.history() == history and again.returns == first.returns
        deals.add(tuple(history[:2]))
    assert len(deals) > 1  # different seeds deal different cards


def test_simultaneous_node_asks_every_player_at_once() -> None:
    env = from_openspiel("matrix_rps")
    observations, infos = env.reset(seed=0)
    assert sorted(observations) == ["player_0", "player_1"]
    assert infos["player_0"]["action_mask"].tolist() == [1, 1, 1]
    _, rewards, terminations, _, _ = env.step({"player_0": 1, "player_1": 0})  # paper beats rock
    assert rewards == {"player_0": 1.0, "player_1": -1.0}
    assert terminations == {"player_0": True, "player_1": True} and env.agents == []


def test_masks_follow_legal_actions_and_illegal_moves_are_refused() -> None:
    env = from_openspiel("tic_tac_toe")
    env.reset(seed=0)
    observations, _, _, _, infos = env.step({"player_0": 4})
    assert list(observations) == ["player_1"]
    assert infos["player_1"]["action_mask"].tolist() == [1, 1, 1, 1, 0, 1, 1, 1, 1]
    with pytest.raises(IllegalActionError, match=r"action 4 for 'player_1' is illegal now"):
        env.step({"player_1": 4})
    assert env.state.legal_actions(1) == [0, 1, 2, 3, 5, 6, 7, 8]  # unchanged by the refused move


def test_observation_kinds_and_private_information() -> None:
    default = from_openspiel("kuhn_poker")
    info_state = from_openspiel("kuhn_poker", observation="information_state")
    assert default.observation_kind == "observation"
    game = pyspiel.load_game("kuhn_poker")
    assert default.observation_space("player_0").shape == tuple(game.observation_tensor_shape())
    assert info_state.observation_space("player_0").shape == tuple(game.information_state_tensor_shape())
    observations, _ = info_state.reset(seed=3)
    (agent,) = observations
    player = int(agent[-1])
    expected = np.asarray(info_state.state.information_state_tensor(player), dtype=np.float32)
    assert np.array_equal(observations[agent], expected)
    # only the actor's own card shows: the opponent's tensor differs
    other = np.asarray(info_state.state.information_state_tensor(1 - player), dtype=np.float32)
    assert not np.array_equal(expected, other)


def test_games_without_tensors_or_with_bad_options_are_refused_clearly() -> None:
    with pytest.raises(
        ArenaError, match=r"coin_game\(\) provides neither an observation tensor nor an information state tensor"
    ):
        from_openspiel("coin_game")
    with pytest.raises(
        ArenaError, match=r"tic_tac_toe\(\) provides no information_state tensor; use observation='observation'"
    ):
        from_openspiel("tic_tac_toe", observation="information_state")
    with pytest.raises(
        ValueError, match=r"observation must be 'observation', 'information_state' or None, got 'pixels'"
    ):
        from_openspiel("tic_tac_toe", observation="pixels")
    with pytest.raises(ArenaError, match=r"unknown OpenSpiel game 'kuhn_poke'; did you mean kuhn_poker"):
        from_openspiel("kuhn_poke")
    with pytest.raises(ArenaError, match=r"cannot load game 'goofspiel' with parameters \{'num_cardz': 3\}"):
        from_openspiel("goofspiel", num_cardz=3)
    with pytest.raises(ArenaError, match=r"parameters \['players'\] given with an already loaded game kuhn_poker\(\)"):
        from_openspiel(pyspiel.load_game("kuhn_poker"), players=3)
    with pytest.raises(TypeError, match=r"expected a pyspiel.Game or a game name, got int"):
        from_openspiel(7)
    with pytest.raises(ArenaError, match=r"mean-field|MEAN_FIELD"):
        from_openspiel("mfg_crowd_modelling")


def test_loaded_game_object_and_parameters_and_rendering() -> None:
    env = from_openspiel(pyspiel.load_game("goofspiel", {"num_cards": 3}), render_mode="ansi")
    assert isinstance(env, OpenSpielEnv)
    observations, _ = env.reset(seed=0)
    assert isinstance(env.render(), str) and "Point card sequence" in env.render()
    assert env.action_space("player_0").n == 3
    three = from_openspiel("kuhn_poker", players=3)
    assert three.possible_agents == ["player_0", "player_1", "player_2"]
    check_env(three, episodes=2)


def test_openspiel_env_takes_arena_interfaces() -> None:
    env = EnvItfWrapper(from_openspiel("connect_four"), Flatten())
    assert env.observation_space("player_0").shape == (3 * 6 * 7,)
    check_env(env, episodes=1)
    episode = play(env, [RandomAgent(), RandomAgent()], seed=5)
    assert episode.length >= 7


def test_action_names_come_from_openspiel() -> None:
    env = from_openspiel("matrix_rps")
    with pytest.raises(ResetNeeded, match=r"action names depend on the state; call reset\(\) first"):
        env.action_names("player_0")
    env.reset(seed=0)
    assert env.action_names("player_1") == ["Rock", "Paper", "Scissors"]
    with pytest.raises(UnknownAgentError, match=r"unknown agent 'player_7'"):
        env.action_names("player_7")
