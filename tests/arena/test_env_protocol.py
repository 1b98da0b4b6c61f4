"""The env protocol: turns, double moves, agents leaving, and bad input."""

from __future__ import annotations

import numpy as np
import pytest

import envs
from arena import (
    ArenaError,
    IllegalActionError,
    InvalidActionError,
    MultiAgentEnv,
    RandomAgent,
    ResetNeeded,
    UnknownAgentError,
    WrongAgentsError,
    play,
)
from arena.testing import check_env
from tests.arena.scripted_envs import DoubleMoveEnv, LeavingEnv


def test_an_agent_can_move_twice_in_a_row():
    env = DoubleMoveEnv()
    obs, _ = env.reset(seed=0)
    assert list(obs) == ["a"]
    obs, *_ = env.step({"a": 1})
    assert list(obs) == ["a"]
    obs, *_ = env.step({"a": 2})
    assert list(obs) == ["b"] and obs["b"] == 3


def test_agents_leave_mid_episode_and_the_others_go_on():
    env = LeavingEnv()
    obs, _ = env.reset(seed=0)
    assert sorted(obs) == ["a", "b", "c"]
    obs, rewards, terms, _, _ = env.step({"a": 0, "b": 1, "c": 0})
    assert terms["c"] and sorted(obs) == ["a", "b"] and env.agents == ["a", "b"]
    with pytest.raises(WrongAgentsError, match=r"expected actions for exactly \['a', 'b'\].*got \['a', 'b', 'c'\]"):
        env.step({"a": 0, "b": 1, "c": 0})
    episode = play(LeavingEnv(), [RandomAgent(0), RandomAgent(1), RandomAgent(2)], seed=1)
    assert episode.returns == {"a": 3.0, "b": 3.0, "c": 1.0}
    assert episode.ranks == {"a": 1, "b": 1, "c": 3}


@pytest.mark.parametrize("env_factory", [DoubleMoveEnv, LeavingEnv])
def test_scripted_envs_keep_the_contract(env_factory):
    check_env(env_factory())


def test_check_env_holds_an_env_to_its_simultaneous_flag():
    class DeclaredSimultaneous(DoubleMoveEnv):  # its agents take turns
        simultaneous = True

    class Simultaneous(LeavingEnv):  # every agent in play acts at every step
        simultaneous = True

    with pytest.raises(
        ArenaError,
        match=r"step 1 .*simultaneous is True .* agents \['b'\] act again after a step without an observation",
    ):
        check_env(DeclaredSimultaneous(), episodes=1)
    check_env(Simultaneous(), episodes=1)


def test_step_before_reset_and_after_the_end_raise_reset_needed():
    env = envs.make("tic_tac_toe")
    with pytest.raises(
        ResetNeeded, match=r"<TicTacToe>: step\(\) called with no episode running; call reset\(\) first"
    ):
        env.step({"player_0": 0})
    env.reset(seed=0)
    for move, player in zip([0, 3, 1, 4, 2], ["player_0", "player_1"] * 3):
        env.step({player: move})
    assert env.agents == []
    with pytest.raises(ResetNeeded, match="no episode running"):
        env.step({"player_1": 5})


def test_wrong_agent_set_names_expected_and_received():
    env = envs.make("tic_tac_toe")
    env.reset()
    with pytest.raises(WrongAgentsError, match=r"expected actions for exactly \['player_0'\].*got \['player_1'\]"):
        env.step({"player_1": 0})
    with pytest.raises(WrongAgentsError, match=r"got \[\]"):
        env.step({})
    with pytest.raises(WrongAgentsError, match="expects a dict of actions keyed by agent id, got list"):
        env.step([0])


def test_action_outside_the_space_is_rejected_with_the_space():
    env = envs.make("tic_tac_toe")
    env.reset()
    with pytest.raises(InvalidActionError, match=r"action for 'player_0': action must lie in Discrete\(9\), got 9"):
        env.step({"player_0": 9})
    with pytest.raises(InvalidActionError, match=r"must be an integer in Discrete\(9\), got 'x'"):
        env.step({"player_0": "x"})
    env.step({"player_0": np.int64(4)})  # numpy integers are actions too


def test_masked_action_is_illegal_and_changes_nothing():
    env = envs.make("tic_tac_toe")
    env.reset()
    env.step({"player_0": 4})
    with pytest.raises(
        IllegalActionError, match=r"action 4 for 'player_1' is illegal now; legal actions: \[0, 1, 2, 3, 5, 6, 7, 8\]"
    ):
        env.step({"player_1": 4})
    obs, *_ = env.step({"player_1": 0})
    assert obs["player_0"].tolist() == [[2, 0, 0], [0, 1, 0], [0, 0, 0]]


def test_unknown_agent_in_space_lookup():
    env = envs.make("rock_paper_scissors")
    with pytest.raises(
        UnknownAgentError, match=r"unknown agent 'player_9'; expected one of \['player_0', 'player_1'\]"
    ):
        env.action_space("player_9")
    assert isinstance(UnknownAgentError("x"), KeyError) and isinstance(UnknownAgentError("x"), ArenaError)


def test_spaces_are_the_same_object_on_every_call():
    env = envs.make("tic_tac_toe")
    assert env.observation_space("player_0") is env.observation_space("player_0")
    assert env.action_space("player_1") is env.action_space("player_1")


def test_optional_capabilities_are_declared_on_the_protocol_with_their_defaults():
    env = MultiAgentEnv()
    assert env.perfect_information is None and env.illegal_action == "raise"
    assert env.action_names("a") is None and env.observation_text("a", 0) is None
    assert not env.batchable
    with pytest.raises(NotImplementedError, match="has no batched version"):
        env.make_batch(2)


@pytest.mark.parametrize("name", [name for name in envs.names() if name != "vizdoom_deathmatch"])
def test_every_bundled_env_declares_what_it_supports(name):
    env = envs.make(name)
    assert env.perfect_information in (True, False, None) and env.illegal_action in ("raise", "penalty")
    for agent in env.possible_agents:
        names = env.action_names(agent)
        space = env.action_space(agent)
        assert names is None or (hasattr(space, "n") and len(names) == space.n), (agent, names)
    if env.batchable:
        assert env.make_batch(2) is not None
    else:
        with pytest.raises(NotImplementedError):
            env.make_batch(2)
