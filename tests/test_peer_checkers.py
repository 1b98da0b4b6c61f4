"""The users' own checkers on arena's default exports, for every bundled env.

PettingZoo's ``api_test`` and ``performance_benchmark`` on ``to_aec(env)``, its
``parallel_api_test`` on ``to_parallel(pommerman)`` in the team modes, SB3's ``check_env`` on
``to_gymnasium(soccer, ...)``, RLlib's env pre-check and ``FlattenObservations`` on ``to_rllib``,
and one pygame from the ``all`` extra. Kept small: few cycles, short episodes (tests/quick.py).
"""

from __future__ import annotations

import configparser
import importlib.metadata
import sys
import warnings
from pathlib import Path

import numpy as np
import pytest

import envs
from arena import RandomAgent
from tests.quick import quick_make

ROOT = Path(__file__).resolve().parent.parent
ENV_NAMES = envs.names()


class _FastClock:
    """Stands in for ``time`` inside ``performance_benchmark``: one second per reading, so its
    five-second loop runs a few cycles instead of five seconds per env."""

    now = 0.0

    @classmethod
    def time(cls) -> float:
        cls.now += 1.0
        return cls.now


@pytest.mark.filterwarnings("ignore::UserWarning")
@pytest.mark.parametrize("name", ENV_NAMES)
def test_pettingzoo_api_test_and_performance_benchmark_pass_on_the_default_aec_export(name, monkeypatch):
    pytest.importorskip("pettingzoo")
    from pettingzoo.test import api_test, performance_benchmark

    from arena.adapters.pettingzoo import to_aec

    api_test(to_aec(quick_make(name)), num_cycles=10)
    monkeypatch.setattr(sys.modules[performance_benchmark.__module__], "time", _FastClock)
    # It samples with obs["action_mask"] where PettingZoo's classic games put it, else unmasked:
    # the default export puts the mask there for every env whose masks matter.
    performance_benchmark(to_aec(quick_make(name)))


def test_the_default_aec_export_puts_the_mask_where_pettingzoos_classic_games_do():
    pytest.importorskip("pettingzoo")
    from arena.adapters.pettingzoo import to_aec

    aec = to_aec(envs.make("kuhn_poker"))
    aec.reset(seed=0)
    observation, *_ = aec.last()
    assert observation["action_mask"].tolist() == [0, 1, 1] and observation["observation"].shape == (13,)
    assert not isinstance(to_aec(envs.make("rock_paper_scissors")).observation_space("player_0"), dict)
    aec = to_aec(envs.make("kuhn_poker"), mask_in_observation=False)  # the old layout on request
    aec.reset(seed=0)
    assert aec.last()[0].shape == (13,)


@pytest.mark.filterwarnings("ignore::UserWarning")
@pytest.mark.parametrize("mode", ["team", "radio"])
def test_pettingzoo_parallel_api_test_passes_on_pommerman_sides(mode):
    pytest.importorskip("pettingzoo")
    from pettingzoo.test import parallel_api_test

    from arena.adapters.pettingzoo import to_parallel

    parallel_api_test(to_parallel(envs.make("pommerman", mode=mode)), num_cycles=300)


def test_a_dead_teammate_gets_observations_and_its_actions_are_dropped():
    pytest.importorskip("pettingzoo")
    from arena.adapters.pettingzoo import to_parallel

    parallel = to_parallel(envs.make("pommerman", mode="team"))
    for seed in range(10):  # the first seeded random game where a bomber dies while its side plays on
        observations, _ = parallel.reset(seed=seed)
        spaces = {agent: parallel.action_space(agent) for agent in parallel.agents}
        for space in spaces.values():
            space.seed(seed)
        while parallel.agents:
            observations, rewards, terminations, truncations, infos = parallel.step(
                {agent: spaces[agent].sample() for agent in parallel.agents}
            )
            out = [agent for agent in parallel.agents if agent in parallel._stopped]
            if out:
                assert set(observations) == set(parallel.agents)  # every listed agent observes
                assert all(parallel.observation_space(a).contains(observations[a]) for a in parallel.agents)
                return
    pytest.fail("no seeded game had a dead teammate that stayed in agents")


def test_sb3_check_env_passes_on_a_soccer_seat():
    pytest.importorskip("stable_baselines3")
    pytest.importorskip("dm_control")
    from stable_baselines3.common.env_checker import check_env

    from arena.adapters.gymnasium import to_gymnasium

    env = quick_make("soccer", team_size=1)
    seat = to_gymnasium(env, "home_0", {"away_0": RandomAgent(seed=0)})
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")  # SB3's advice (unbounded boxes, dict observations) is not under test
        check_env(seat)
    observation, _ = seat.reset(seed=0)
    assert all(isinstance(value, np.ndarray) and value.ndim == 1 for value in observation.values())


MASKED = ["kuhn_poker", "leduc_poker", "liars_dice", "tic_tac_toe", "connect_four"]


@pytest.mark.parametrize("name", MASKED)
def test_rllib_env_pre_check_never_crashes_on_masked_games(name):
    pytest.importorskip("ray.rllib")
    from ray.rllib.utils.pre_checks.env import check_multiagent_environments

    from arena.adapters.rllib import to_rllib

    for trial in range(20):  # RLlib samples its action without the mask: illegal in some trials
        env = to_rllib(name)
        for agent in env.possible_agents:
            env.get_action_space(agent).seed(trial)
        check_multiagent_environments(env)


def test_rllib_export_forfeits_an_illegal_action_unless_asked_to_raise():
    pytest.importorskip("ray.rllib")
    from arena import IllegalActionError
    from arena.adapters.rllib import to_rllib

    env = to_rllib("kuhn_poker")
    env.reset(seed=0)
    observations, rewards, terminateds, truncateds, infos = env.step({"player_0": 0})  # fold: masked at the start
    assert observations == {} and rewards == {"player_0": -1.0, "player_1": 0.0}
    assert terminateds == {"player_0": True, "player_1": True, "__all__": True}
    assert infos == {"player_0": {"forfeit": True}}
    env.reset(seed=0)
    assert env.step({"player_0": 1})[2]["__all__"] is False  # a legal action plays on
    strict = to_rllib("kuhn_poker", on_illegal_action="raise")
    strict.reset(seed=0)
    with pytest.raises(IllegalActionError, match="action 0 for 'player_0' is illegal now"):
        strict.step({"player_0": 0})
    with pytest.raises(ValueError, match="on_illegal_action must be 'forfeit' or 'raise', got 'skip'"):
        to_rllib("kuhn_poker", on_illegal_action="skip")


@pytest.mark.parametrize("mode", ["ffa", "team"])
def test_rllib_flatten_observations_handles_the_pommerman_spaces(mode):
    pytest.importorskip("ray.rllib")
    from ray.rllib.utils.numpy import flatten_inputs_to_1d_tensor
    from ray.rllib.utils.spaces.space_utils import get_base_struct_from_space

    from arena.adapters.rllib import to_rllib

    env = to_rllib("pommerman", mode=mode)
    observations, _ = env.reset(seed=0)
    raw = env.env.observation_space("agent_0")
    space = env.get_observation_space("agent_0")
    assert raw["teammate"].start == 9 and space["teammate"].start == 0  # RLlib one-hots ignoring start
    for observation in observations.values():
        assert space.contains(observation)
        flat = flatten_inputs_to_1d_tensor(observation, get_base_struct_from_space(space), batch_axis=False)
        assert flat.shape == (1459,)
    actions = {agent: env.get_action_space(agent).sample() for agent in observations}
    env.step(actions)


def test_the_all_extra_installs_one_pygame():
    parser = configparser.ConfigParser()
    parser.read(ROOT / "setup.cfg", encoding="utf-8")
    extras = parser["options.extras_require"]
    listed = {
        line.split(">")[0].split("=")[0].split("[")[0].strip().lower()
        for name in extras
        for line in extras[name].splitlines()
        if line.strip()
    }
    # pygame-ce writes the module `pygame` too, and vizdoom (and magent2) require pygame-ce:
    # listing `pygame` anywhere installs both over one another.
    assert "pygame" not in listed and "pygame-ce" in listed
    try:
        requires = importlib.metadata.requires("vizdoom") or []
    except importlib.metadata.PackageNotFoundError:
        pytest.skip("vizdoom is not installed")
    assert any(req.lower().startswith("pygame-ce") for req in requires)
