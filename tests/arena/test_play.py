"""The play loop: reward delivery, final rewards, seeding, and agent failures."""

from __future__ import annotations

import pytest

import envs
from arena import Agent, AgentError, Episode, RandomAgent, Team, UnknownAgentError, play
from arena.play_loop import _bind, ranks_from_returns
from arena.seeding import derive_seed
from tests.arena.scripted_envs import DoubleMoveEnv, SidesEnv


class Ledger(Agent):
    """Plays a fixed action and records every reward it is told about."""

    def __init__(self, action=1):
        self.action = action
        self.rewards, self.finals, self.resets = [], [], 0

    def reset(self, *, seed=None):
        self.resets += 1

    def act(self, observation, action_mask=None, reward=0.0):
        self.rewards.append(reward)
        return self.action

    def done(self, reward, info):
        self.finals.append(reward)


def test_rewards_reach_agents_since_their_previous_turn_and_finals_exactly_once():
    a, b = Ledger(action=2), Ledger(action=0)
    episode = play(DoubleMoveEnv(), {"a": a, "b": b})
    # b is given 5 on a's move at turn 3 (while b did not act): it hears it at its next turn.
    assert b.rewards == [0.0, 5.0, 0.0]
    assert a.rewards == [0.0, 0.0, 0.0]
    assert a.finals == [1.0] and b.finals == [0.0]  # a wins (sum 6 vs 0); told once each
    assert sum(a.rewards) + sum(a.finals) == episode.returns["a"] == 1.0
    assert sum(b.rewards) + sum(b.finals) == episode.returns["b"] == 5.0
    assert episode.length == 6 and episode.outcome == "b wins"


def test_same_seed_same_episode_different_seed_different_episode():
    def run(seed):
        env = envs.make("tic_tac_toe", render_mode="ansi")
        episode = play(env, [RandomAgent(), RandomAgent()], seed=seed)
        return episode.returns, episode.length, env.render()

    assert run(7) == run(7)
    assert len({run(seed)[2] for seed in range(10)}) > 1


def test_agents_are_reset_once_per_episode_and_set_up_with_env_spaces():
    a, b = Ledger(), Ledger()
    env = DoubleMoveEnv()
    play(env, [a, b])
    play(env, [a, b])
    assert a.resets == 2 and a.observation_space is env.observation_space("a")


def test_an_agent_that_raises_is_reported_with_its_id():
    class Broken(Agent):
        def act(self, observation, action_mask=None, reward=0.0):
            raise RuntimeError("boom")

    with pytest.raises(AgentError, match=r"agent for 'player_1' raised RuntimeError: boom") as info:
        play(envs.make("tic_tac_toe"), [RandomAgent(0), Broken()])
    assert isinstance(info.value.original, RuntimeError) and info.value.agent_id == "player_1"


def test_bad_agent_mappings_are_rejected():
    env = envs.make("tic_tac_toe")
    with pytest.raises(ValueError, match=r"no agent given for \['player_1'\]"):
        play(env, {"player_0": RandomAgent()})
    with pytest.raises(UnknownAgentError, match="has no agent 'p9'"):
        play(env, {"player_0": RandomAgent(), "p9": RandomAgent()})
    with pytest.raises(TypeError, match="must be an arena.Agent or arena.Team, got str"):
        play(env, ["random", "random"])
    with pytest.raises(ValueError, match="has 2 agents .*got 1 agents"):
        play(env, [RandomAgent()])


class AgentList(list):
    """A list that is not exactly ``list``: ``play`` binds it on its general path."""


@pytest.mark.parametrize("container", [list, tuple])
def test_a_plain_sequence_of_agents_binds_as_the_general_path_binds_it(container):
    shared = RandomAgent()
    cases = [
        (envs.make("tic_tac_toe"), [RandomAgent(), RandomAgent()]),
        (envs.make("tic_tac_toe"), [shared, shared]),  # one object for both seats
        (envs.make("snake"), [RandomAgent() for _ in range(4)]),
        (SidesEnv((2, 2)), [RandomAgent() for _ in range(4)]),  # sides: the general path for both
        (SidesEnv((2, 2)), [Team([RandomAgent(), RandomAgent()]), Team([RandomAgent(), RandomAgent()])]),
        (envs.make("tic_tac_toe"), [Team([RandomAgent()]), RandomAgent()]),  # a Team of one for one seat
    ]
    for env, agents in cases:
        bound = _bind(env, container(agents))
        assert bound == _bind(env, AgentList(agents)), env
        assert sorted(ids for ids, _, _ in bound) == sorted((agent_id,) for agent_id in env.possible_agents)
    env = envs.make("tic_tac_toe")
    for agents in ([RandomAgent(), "random"], [Team([RandomAgent(), RandomAgent()]), RandomAgent()]):
        with pytest.raises(Exception) as fast:
            _bind(env, container(agents))
        with pytest.raises(Exception) as general:
            _bind(env, AgentList(agents))
        assert type(fast.value) is type(general.value) and str(fast.value) == str(general.value)


def test_max_steps_cuts_the_episode():
    episode = play(envs.make("rock_paper_scissors", rounds=50), [RandomAgent(), RandomAgent()], seed=1, max_steps=3)
    assert episode.length == 3 and episode.truncated


def test_ranks_and_outcomes():
    assert ranks_from_returns({"a": 2, "b": 2, "c": 0, "d": -1}) == {"a": 1, "b": 1, "c": 3, "d": 4}
    assert Episode({"a": 1.0, "b": 1.0}, 1, {"a": 1, "b": 1}).outcome == "draw"
    assert Episode({"a": 1.0, "b": 1.0, "c": 0.0}, 1, {"a": 1, "b": 1, "c": 3}).outcome == "a, b win"


def test_derived_seeds_are_stable_and_distinct():
    assert derive_seed(1, 0) == derive_seed(1, 0)
    assert len({derive_seed(s, i) for s in range(20) for i in range(5)}) == 100


def test_arena_play_has_one_meaning():
    """``arena.play`` is the function only; the loop's module has its own name."""
    import importlib

    import arena
    import arena.play_loop

    assert callable(arena.play) and arena.play is arena.play_loop.play
    with pytest.raises(ModuleNotFoundError):
        importlib.import_module("arena.play")
