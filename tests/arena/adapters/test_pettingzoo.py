"""arena <-> PettingZoo: PettingZoo's own checkers on every bundled env, and PettingZoo games in arena."""

from __future__ import annotations

import warnings
from collections import defaultdict

import numpy as np
import pytest

pytest.importorskip("pettingzoo")

import pettingzoo  # noqa: E402
from hypothesis import given, settings  # noqa: E402
from hypothesis import strategies as st
from pettingzoo.test import api_test, parallel_api_test, parallel_seed_test, seed_test  # noqa: E402

import envs  # noqa: E402
from arena import Agent, EnvItfWrapper, IllegalActionError, InvalidActionError, RandomAgent, play  # noqa: E402
from arena.adapters.pettingzoo import from_pettingzoo, to_aec, to_parallel  # noqa: E402
from arena.errors import NotParallelizableError, ResetNeeded, UnknownAgentError  # noqa: E402
from arena.testing import check_env  # noqa: E402
from interfaces.observation import Flatten, OneHot  # noqa: E402
from interfaces.reward import ScaleReward  # noqa: E402
from tests.arena.scripted_envs import DoubleMoveEnv, LeavingEnv  # noqa: E402
from tests.quick import probe, quick_make  # noqa: E402

ENV_NAMES = envs.names()
CYCLES = 60  # PettingZoo's checkers run this many agent cycles per env
# PettingZoo's seed tests replay an episode; an env whose episodes depend on more than the seed
# (networked game engines) declares metadata["reproducible"] = False and gets the API tests only.
REPRODUCIBLE = {name for name in ENV_NAMES if probe(name).metadata.get("reproducible", True) is not False}


def _everyone_acts(name: str, seed: int = 0, max_steps: int = 300) -> bool:
    """Whether every live agent acts at every step of a seeded random episode of ``name``."""
    env = quick_make(name)
    agents = {agent: RandomAgent(seed=i) for i, agent in enumerate(env.possible_agents)}
    for agent in agents:
        agents[agent].setup(env.observation_space(agent), env.action_space(agent))
    observations, infos = env.reset(seed=seed)
    for _ in range(max_steps):
        if not observations:
            return True
        if set(observations) != set(env.agents):
            return False
        actions = {a: agents[a].act(o, infos[a].get("action_mask")) for a, o in observations.items()}
        observations, _, _, _, infos = env.step(actions)
    return True


SIMULTANEOUS = [name for name in ENV_NAMES if _everyone_acts(name)]
TURN_BASED = [name for name in ENV_NAMES if name not in SIMULTANEOUS]


# ------------------------------------------------------------------ arena -> PettingZoo
@pytest.mark.filterwarnings("ignore::UserWarning")
@pytest.mark.parametrize("mask_in_observation", [False, True])
@pytest.mark.parametrize("name", ENV_NAMES)
def test_aec_passes_pettingzoo_api_and_seed_tests(name: str, mask_in_observation: bool) -> None:
    api_test(to_aec(quick_make(name), mask_in_observation=mask_in_observation), num_cycles=CYCLES)
    if name in REPRODUCIBLE:
        seed_test(lambda: to_aec(quick_make(name), mask_in_observation=mask_in_observation), num_cycles=CYCLES)


@pytest.mark.filterwarnings("ignore::UserWarning")
@pytest.mark.parametrize("name", SIMULTANEOUS)
def test_parallel_passes_pettingzoo_parallel_tests(name: str) -> None:
    parallel_api_test(to_parallel(quick_make(name), mask_in_observation=True), num_cycles=CYCLES)
    if name in REPRODUCIBLE:
        parallel_seed_test(lambda: to_parallel(quick_make(name), mask_in_observation=True), num_cycles=CYCLES)


@pytest.mark.parametrize("name", TURN_BASED)
def test_parallel_refuses_turn_based_envs_and_points_to_aec(name: str) -> None:
    with pytest.raises(
        NotParallelizableError, match=r"to_parallel: after reset\(\).*use arena\.adapters\.pettingzoo\.to_aec"
    ):
        to_parallel(quick_make(name)).reset(seed=0)


def test_parallel_refuses_an_env_that_declares_it() -> None:
    env = envs.make("rock_paper_scissors")
    env.metadata = {**env.metadata, "is_parallelizable": False}
    with pytest.raises(NotParallelizableError, match=r"declares metadata\['is_parallelizable'\] = False.*to_aec"):
        to_parallel(env)


def test_scripted_corner_cases_pass_pettingzoo_checkers() -> None:
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        for factory in (DoubleMoveEnv, LeavingEnv):
            api_test(to_aec(factory()), num_cycles=20)
            seed_test(lambda factory=factory: to_aec(factory()), num_cycles=20)
        parallel_api_test(to_parallel(LeavingEnv()), num_cycles=20)
        parallel_seed_test(lambda: to_parallel(LeavingEnv()), num_cycles=20)


def _aec_returns(aec, seed: int, policy) -> tuple[dict[str, float], list[str]]:
    """Play ``aec`` the PettingZoo way, summing what ``last()`` reports; returns and agent order."""
    aec.reset(seed=seed)
    returns: dict[str, float] = defaultdict(float)
    order = []
    for agent in aec.agent_iter():
        observation, reward, terminated, truncated, info = aec.last()
        returns[agent] += reward
        if terminated or truncated:
            aec.step(None)
            continue
        order.append(agent)
        aec.step(policy(agent, observation, info))
    return dict(returns), order


def test_aec_turn_order_and_last_rewards_follow_the_arena_env() -> None:
    # a moves twice in a row; b's bonus of 5 arrives while a acts and must reach b once.
    returns, order = _aec_returns(to_aec(DoubleMoveEnv()), 0, lambda agent, obs, info: 2 if agent == "a" else 1)
    assert order == list(DoubleMoveEnv.ORDER)
    episode = play(DoubleMoveEnv(), {"a": _Fixed(2), "b": _Fixed(1)}, seed=0)
    assert returns == episode.returns == {"a": 1.0, "b": 5.0}


def test_aec_asks_simultaneous_agents_in_turn_and_finished_agents_step_none() -> None:
    aec = to_aec(LeavingEnv())
    aec.reset(seed=0)
    seen = []
    for agent in aec.agent_iter():
        _, reward, terminated, truncated, _ = aec.last()
        seen.append((agent, reward, terminated))
        aec.step(None if terminated or truncated else 0)
    # c leaves after the first joint step: it is stepped with None first, with its reward.
    assert seen[:4] == [("a", 0.0, False), ("b", 0.0, False), ("c", 0.0, False), ("c", 1.0, True)]
    assert seen[-2:] == [("a", 1.0, True), ("b", 1.0, True)]


def test_aec_rejects_bad_actions_without_changing_state() -> None:
    aec = to_aec(envs.make("tic_tac_toe"))
    aec.reset(seed=0)
    aec.step(4)
    with pytest.raises(IllegalActionError, match=r"action 4 for 'player_1' is illegal now"):
        aec.step(4)
    with pytest.raises(
        InvalidActionError, match=r"'player_1' is alive, so its action must lie in Discrete\(9\), got None"
    ):
        aec.step(None)
    assert aec.agent_selection == "player_1"
    aec.step(0)
    assert aec.agent_selection == "player_0"
    with pytest.raises(UnknownAgentError, match=r"unknown agent 'nobody'; expected one of \['player_0', 'player_1'\]"):
        aec.observation_space("nobody")


def test_mask_in_observation_matches_the_info_mask() -> None:
    aec = to_aec(envs.make("tic_tac_toe"), mask_in_observation=True)
    aec.reset(seed=0)
    aec.step(4)
    observation, _, _, _, info = aec.last()
    assert set(observation) == {"observation", "action_mask"}
    assert observation["action_mask"].tolist() == info["action_mask"].tolist() == [1, 1, 1, 1, 0, 1, 1, 1, 1]
    assert aec.observation_space("player_1").contains(observation)


def test_adapters_reject_what_is_not_an_arena_env() -> None:
    with pytest.raises(TypeError, match="to_aec: expected an arena.MultiAgentEnv, got str"):
        to_aec("tic_tac_toe")
    with pytest.raises(TypeError, match="to_parallel: expected an arena.MultiAgentEnv, got int"):
        to_parallel(3)
    with pytest.raises(TypeError, match="from_pettingzoo: expected a pettingzoo AECEnv or ParallelEnv, got TicTacToe"):
        from_pettingzoo(envs.make("tic_tac_toe"))


@settings(max_examples=15, deadline=None)
@given(seed=st.integers(0, 2**31 - 1), name=st.sampled_from(ENV_NAMES))
def test_round_trip_through_aec_keeps_every_episode(seed: int, name: str) -> None:
    direct = play(quick_make(name), [RandomAgent() for _ in quick_make(name).possible_agents], seed=seed)
    round_trip = from_pettingzoo(to_aec(quick_make(name)))
    again = play(round_trip, [RandomAgent() for _ in round_trip.possible_agents], seed=seed)
    assert again.returns == direct.returns
    if name in TURN_BASED:
        assert again.length == direct.length


@pytest.mark.parametrize("name", SIMULTANEOUS)
def test_round_trip_through_parallel_passes_check_env(name: str) -> None:
    check_env(from_pettingzoo(to_parallel(quick_make(name))))


# ------------------------------------------------------------------ PettingZoo -> arena
PETTINGZOO_GAMES = {
    "tictactoe_v3": lambda: pettingzoo.make("aec", "classic/tictactoe-v3"),
    "connect_four_v3": lambda: pettingzoo.make("aec", "classic/connect_four-v3"),
    "rps_v2": lambda: pettingzoo.make("aec", "classic/rps-v2"),
    "rps_v2_parallel": lambda: pettingzoo.make("parallel", "classic/rps-v2"),
}


@pytest.mark.parametrize("game", sorted(PETTINGZOO_GAMES))
def test_pettingzoo_games_pass_check_env(game: str) -> None:
    check_env(from_pettingzoo(PETTINGZOO_GAMES[game]()), episodes=2)


def test_classic_game_mask_moves_from_observation_dict_to_info() -> None:
    env = from_pettingzoo(pettingzoo.make("aec", "classic/tictactoe-v3"))
    assert env.possible_agents == ["player_1", "player_2"]
    assert env.observation_space("player_1").shape == (3, 3, 2)
    observations, infos = env.reset(seed=0)
    observations, *_, infos = env.step({"player_1": 4})
    (agent,) = observations
    assert env.observation_space(agent).contains(observations[agent])
    mask = infos[agent]["action_mask"]
    assert mask.dtype == np.int8 and mask.tolist() == [1, 1, 1, 1, 0, 1, 1, 1, 1]
    with pytest.raises(IllegalActionError, match=r"TicTacToe|tictactoe_v3"):
        env.step({agent: 4})


class _Fixed(Agent):
    """Plays a fixed action (the first legal one if it is masked)."""

    def __init__(self, action: int) -> None:
        self.action = action

    def act(self, observation, action_mask=None, reward=0.0):
        if action_mask is not None and not action_mask[self.action]:
            return int(np.flatnonzero(action_mask)[0])
        return self.action


@pytest.mark.parametrize("game", ["tictactoe_v3", "connect_four_v3", "rps_v2"])
def test_rewards_are_counted_once_like_last(game: str) -> None:
    """Arena returns equal the sum of what PettingZoo's ``last()`` hands each agent."""
    env = from_pettingzoo(PETTINGZOO_GAMES[game]())
    first, second = env.possible_agents
    choice = {first: 1, second: 0}  # rps: paper beats rock; boards: fill the left columns

    def policy(agent, observation, info):
        mask = observation["action_mask"] if isinstance(observation, dict) else info.get("action_mask")
        return _Fixed(choice[agent]).act(observation, mask)

    expected, _ = _aec_returns(PETTINGZOO_GAMES[game](), 0, policy)
    episode = play(env, {agent: _Fixed(choice[agent]) for agent in env.possible_agents}, seed=0)
    assert episode.returns == expected
    assert expected[first] != 0  # a decided game, so double counting would show


def test_pettingzoo_games_take_arena_interfaces_and_play_full_games() -> None:
    board_games = [from_pettingzoo(PETTINGZOO_GAMES[game]()) for game in ("tictactoe_v3", "connect_four_v3")]
    for env in board_games:
        wrapped = EnvItfWrapper(env, ScaleReward(Flatten(), factor=10.0))
        check_env(wrapped, episodes=1)
        first = env.possible_agents[0]
        size = int(np.prod(env.observation_space(first).shape))
        assert wrapped.observation_space(first).shape == (size,)
        for seed in range(3):
            episode = play(wrapped, [RandomAgent(), RandomAgent()], seed=seed)
            assert sorted(episode.returns.values()) in ([-10.0, 10.0], [0.0, 0.0])
    rps = EnvItfWrapper(from_pettingzoo(pettingzoo.make("parallel", "classic/rps-v2", max_cycles=5)), OneHot())
    check_env(rps, episodes=1)
    episode = play(rps, [RandomAgent(), RandomAgent()], seed=1)
    assert episode.length == 5 and episode.returns["player_0"] == -episode.returns["player_1"]


def test_aec_step_without_a_running_episode_asks_for_reset() -> None:
    aec = to_aec(envs.make("rock_paper_scissors", rounds=1))
    with pytest.raises(ResetNeeded, match=r"step\(\) called with no agent waiting to act; call reset\(\) first"):
        aec.step(0)
    aec.reset(seed=0)
    for _agent in aec.agent_iter():
        _, _, terminated, truncated, _ = aec.last()
        aec.step(None if terminated or truncated else 0)
    with pytest.raises(ResetNeeded, match=r"call reset\(\) first"):
        aec.step(0)
