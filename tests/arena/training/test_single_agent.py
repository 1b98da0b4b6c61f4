"""SingleAgentEnv: reward bookkeeping, seats, masks, simultaneous moves, errors."""

from __future__ import annotations

import numpy as np
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

import envs
from arena import (
    AgentError,
    ArenaError,
    IllegalActionError,
    Interface,
    RandomAgent,
    ResetNeeded,
    SpaceMismatchError,
    UnknownAgentError,
)
from arena.training import OpponentPool, SingleAgentEnv
from tests.arena.training.training_envs import FixedAgent, LedgerAgent, ScriptedEnv, Step, UnevenSpacesEnv

AGENTS = ("a", "b", "c")


# ------------------------------------------------------------------ scripts
@st.composite
def scripts(draw: st.DrawFn) -> list[Step]:
    """Random scripts: any acting sets (turns, simultaneous, repeats), rewards to anyone alive,
    agents leaving at any step (terminated or truncated), everyone gone at the end."""
    live = list(AGENTS)
    steps: list[Step] = []
    length = draw(st.integers(1, 10))
    for index in range(length):
        acting = tuple(draw(st.lists(st.sampled_from(live), min_size=1, max_size=len(live), unique=True)))
        # Quarter-integers keep every sum exact in floating point.
        rewards = {a: draw(st.integers(-8, 8)) / 4 for a in live if draw(st.booleans())}
        if index == length - 1:
            leaving = list(live)
        else:
            leaving = draw(st.lists(st.sampled_from(live), max_size=len(live) - 1, unique=True))
        truncated = tuple(a for a in leaving if draw(st.booleans()))
        terminated = tuple(a for a in leaving if a not in truncated)
        steps.append(Step(acting, rewards, terminated, truncated))
        live = [a for a in live if a not in leaving]
    return steps


def expected_learner_returns(script: list[Step], learner: str) -> tuple[list[float], bool, bool]:
    """What the learner must receive per step(): rewards summed between its actions,
    everything before its first action joining the first return, nothing after it left."""
    returns: list[float] = []
    before = 0.0
    for step in script:
        if learner in step.acting:
            returns.append(before)  # rewards before the first action join the first return
            before = 0.0
        reward = step.rewards.get(learner, 0.0)
        if returns:
            returns[-1] += reward  # credited to the learner's latest action
        else:
            before += reward
        if learner in step.terminate or learner in step.truncate:
            return returns, learner in step.terminate, learner in step.truncate
    raise AssertionError("the script must end with every agent gone")


@settings(max_examples=150, deadline=None)
@given(script=scripts(), learner=st.sampled_from(AGENTS))
def test_rewards_arrive_exactly_once_summed(script: list[Step], learner: str) -> None:
    env = ScriptedEnv(script)
    opponents = [LedgerAgent(), LedgerAgent()]
    single = SingleAgentEnv(env, opponents, seats=learner)
    acts = [i for i, step in enumerate(script) if learner in step.acting]
    left = next(i for i, step in enumerate(script) if learner in step.terminate + step.truncate)
    if not acts or acts[0] > left:
        with pytest.raises(ArenaError, match=r"ended before the learner \('" + learner):
            single.reset(seed=0)
        return
    expected, terminated, truncated = expected_learner_returns(script, learner)
    observation, info = single.reset(seed=0)
    assert observation == acts[0] and info["seat"] == learner
    got: list[float] = []
    flags = (False, False)
    while not any(flags):
        observation, reward, *flags, info = single.step(0)
        got.append(reward)
    assert got == expected
    assert tuple(flags) == (terminated, truncated)
    # The learner saw only observations given to it: the step indices at which it acted.
    assert len(got) == len([i for i in acts if i <= left])
    # Every opponent that left heard its rewards exactly once too (act rewards + done).
    seated = [a for a in AGENTS if a != learner]
    for agent_id, agent in zip(seated, opponents):
        gone = next(i for i, step in enumerate(script) if agent_id in step.terminate + step.truncate)
        if gone <= left:
            total = sum(step.rewards.get(agent_id, 0.0) for step in script[: gone + 1])
            assert sum(agent.act_rewards) + sum(agent.done_rewards) == total
        assert len(agent.done_rewards) == 1  # done exactly once, even when the episode was cut short


def test_final_reward_reaches_learner_when_an_opponent_ends_the_game() -> None:
    # b moves last and wins; a's -1 arrives with a's final step, together with b's earlier bonus to a.
    script = [
        Step(("a",)),
        Step(("b",), {"a": 0.5}),
        Step(("a",), {"a": 0.25}),
        Step(("b",), {"a": -1.0, "b": 1.0}, terminate=("a", "b")),
    ]
    single = SingleAgentEnv(ScriptedEnv(script, agents=("a", "b")), LedgerAgent(), seats="a")
    single.reset(seed=0)
    assert single.step(0)[1:4] == (0.5, False, False)
    assert single.step(0)[1:4] == (0.25 - 1.0, True, False)


def test_tic_tac_toe_loss_by_opponent_move() -> None:
    # player_0 (opponent) takes the top row while the learner plays the middle row.
    single = SingleAgentEnv("tic_tac_toe", FixedAgent(choices=[0]), seats="player_1")
    single.reset(seed=0)
    _, reward, terminated, _, _ = single.step(3)
    assert (reward, terminated) == (0.0, False)
    observation, reward, terminated, truncated, info = single.step(4)
    assert (reward, terminated, truncated) == (-1.0, True, False)
    assert "action_mask" not in info
    with pytest.raises(ResetNeeded, match="no episode running"):
        single.step(5)


def test_rewards_before_the_first_action_join_the_first_return() -> None:
    script = [Step(("b",), {"a": 2.0}), Step(("a",), {"a": 1.0}), Step(("b",), terminate=("a", "b"))]
    single = SingleAgentEnv(ScriptedEnv(script, agents=("a", "b")), LedgerAgent(), seats="a")
    single.reset(seed=0)
    assert single.step(0)[1:3] == (3.0, True)


# -------------------------------------------------------------------- seats
def test_seats_shuffle_reproducibly() -> None:
    single = SingleAgentEnv("tic_tac_toe", "random", shuffle_seats=True)

    def seats(seed: int) -> list[str]:
        first = single.reset(seed=seed)[1]["seat"]
        return [first] + [single.reset()[1]["seat"] for _ in range(59)]

    drawn = seats(7)
    assert drawn == seats(7)
    assert 15 <= drawn.count("player_0") <= 45  # both seats, roughly balanced (binomial, p = 1/2)
    assert seats(8) != drawn


def test_seats_rotate_without_shuffle_and_restart_on_seed() -> None:
    single = SingleAgentEnv("tic_tac_toe", "random")
    assert [single.reset(seed=0)[1]["seat"]] + [single.reset()[1]["seat"] for _ in range(3)] == [
        "player_0",
        "player_1",
        "player_0",
        "player_1",
    ]
    assert single.reset(seed=5)[1]["seat"] == "player_0"


def test_opponents_shuffle_over_the_other_seats() -> None:
    first, second = RandomAgent(seed=1), RandomAgent(seed=2)
    single = SingleAgentEnv("liars_dice", [first, second], seats="player_0", shuffle_seats=True)
    placements = set()
    single.reset(seed=0)
    for _ in range(20):
        placements.add(tuple(sorted((seat, id(agent)) for seat, agent in single.lineup.items())))
        single.reset()
    assert len(placements) == 2


def test_one_opponent_object_never_plays_two_seats() -> None:
    single = SingleAgentEnv("liars_dice", RandomAgent(seed=3), seats="player_0")
    single.reset(seed=0)
    assert len({id(agent) for agent in single.lineup.values()}) == len(single.env.possible_agents) - 1


def test_pool_is_sampled_per_episode() -> None:
    members = [FixedAgent(action=0), FixedAgent(action=1)]
    pool = OpponentPool(members, strategy="uniform")
    single = SingleAgentEnv("rock_paper_scissors", pool, seats="player_0")
    single.reset(seed=0)
    seen = set()
    for _ in range(20):
        seen.add(id(single.lineup["player_1"]))
        single.reset()
    assert seen == {id(m) for m in members}


# -------------------------------------------------------------------- masks
def test_masks_reach_action_masks() -> None:
    single = SingleAgentEnv("tic_tac_toe", RandomAgent(seed=0), seats="player_1")
    observation, info = single.reset(seed=3)
    for _ in range(3):
        expected = observation.reshape(-1) == 0
        assert single.action_masks().dtype == bool
        assert single.action_masks().tolist() == expected.tolist() == info["action_mask"].astype(bool).tolist()
        observation, _, terminated, _, info = single.step(int(np.flatnonzero(single.action_masks())[0]))
        if terminated:
            break


class ReverseActions(Interface):
    """Action i means raw action n-1-i; masks are reversed to match."""

    def action(self, action):
        return self.action_space.n - 1 - action

    def action_mask(self, mask):
        return mask[::-1].copy()


def test_masks_go_through_the_learner_interface() -> None:
    single = SingleAgentEnv("tic_tac_toe", FixedAgent(choices=[0]), seats="player_1", interface=ReverseActions())
    observation, _ = single.reset(seed=0)
    assert observation[0, 0] == 1  # the opponent took cell 0...
    assert single.action_masks().tolist() == [True] * 8 + [False]  # ...which is the learner's action 8
    single.step(0)  # raw cell 8
    assert single.env.board_text().endswith("O\n")


def test_mask_in_observation_interface_agrees_with_action_masks() -> None:
    from interfaces.observation import ActionMaskInObservation

    single = SingleAgentEnv("connect_four", "random", interface=ActionMaskInObservation(), shuffle_seats=True)
    observation, _ = single.reset(seed=1)
    for _ in range(5):
        assert observation["action_mask"].astype(bool).tolist() == single.action_masks().tolist()
        assert single.observation_space.contains(observation)
        observation, _, terminated, truncated, _ = single.step(int(np.flatnonzero(single.action_masks())[0]))
        if terminated or truncated:  # stacking column 0 can win (or lose) early
            observation, _ = single.reset()


def test_env_without_masks_allows_everything() -> None:
    single = SingleAgentEnv("rock_paper_scissors", "random")
    single.reset(seed=0)
    assert single.action_masks().tolist() == [True, True, True]


# --------------------------------------------------------- simultaneous moves
def test_simultaneous_rock_paper_scissors() -> None:
    rock = LedgerAgent()  # always action 0: rock
    single = SingleAgentEnv(envs.make("rock_paper_scissors", rounds=4), rock, seats="player_1")
    observation, _ = single.reset(seed=0)
    assert observation == 3  # nothing played yet
    rewards, terminated = [], False
    while not terminated:
        observation, reward, terminated, truncated, _ = single.step(1)  # paper beats rock
        rewards.append(reward)
        if not terminated:
            assert observation == 0  # the learner sees the opponent's last move, never its own view
    assert rewards == [1.0] * 4
    assert rock.observations == [3, 1, 1, 1] and rock.done_rewards == [-1.0]


# -------------------------------------------------------------- reproducible
def test_same_seed_same_episodes() -> None:
    def run(seed: int) -> list:
        single = SingleAgentEnv("connect_four", "random", shuffle_seats=True)
        trace = [single.reset(seed=seed)[0].tolist()]
        for _ in range(60):
            action = int(np.flatnonzero(single.action_masks())[0])
            observation, reward, terminated, truncated, info = single.step(action)
            trace.append((observation.tolist(), reward, info["seat"]))
            if terminated or truncated:
                trace.append(single.reset()[0].tolist())
        return trace

    assert run(11) == run(11)
    assert run(11) != run(12)


# ------------------------------------------------------------------ illegal
def test_illegal_action_raises_and_changes_nothing() -> None:
    single = SingleAgentEnv("tic_tac_toe", FixedAgent(choices=[0]), seats="player_1")
    single.reset(seed=0)
    with pytest.raises(IllegalActionError, match="illegal"):
        single.step(0)
    assert single.step(4)[2] is False  # still playable


def test_illegal_action_forfeits_when_asked() -> None:
    opponent = LedgerAgent()
    single = SingleAgentEnv("tic_tac_toe", opponent, seats="player_1", illegal_action="forfeit", illegal_penalty=-2.0)
    single.reset(seed=0)
    _, reward, terminated, truncated, info = single.step(0)  # cell 0 is taken
    assert (reward, terminated, truncated, info["forfeit"]) == (-2.0, True, False, True)
    assert len(opponent.done_rewards) == 1


# ------------------------------------------------------------------- errors
def test_error_texts() -> None:
    with pytest.raises(UnknownAgentError, match=r"TicTacToe.*has no seat 'player_7'.*player_0"):
        SingleAgentEnv("tic_tac_toe", "random", seats="player_7")
    with pytest.raises(ValueError, match=r"2 other seats need 2 opponents, got 3"):
        SingleAgentEnv("liars_dice", ["random"] * 3)
    with pytest.raises(TypeError, match="an opponent must be an arena.Agent.*got int"):
        SingleAgentEnv("tic_tac_toe", [5])
    with pytest.raises(ValueError, match=r"illegal_action must be one of \['raise', 'forfeit'\], got 'skip'"):
        SingleAgentEnv("tic_tac_toe", illegal_action="skip")
    with pytest.raises(
        SpaceMismatchError, match=r"seats must share spaces; 'x' has Discrete\(3\).*'y' has Discrete\(4\)"
    ):
        SingleAgentEnv(UnevenSpacesEnv(), "random")
    with pytest.raises(TypeError, match="env must build an arena.MultiAgentEnv, got int"):
        SingleAgentEnv(lambda: 3)
    with pytest.raises(ValueError, match="seats repeat an agent id"):
        SingleAgentEnv("tic_tac_toe", seats=["player_0", "player_0"])
    single = SingleAgentEnv("tic_tac_toe")
    with pytest.raises(ResetNeeded, match=r"SingleAgentEnv\(<TicTacToe>\): step\(\) called with no episode running"):
        single.step(0)


class Crashing(RandomAgent):
    def act(self, observation, action_mask=None, reward=0.0):
        raise RuntimeError("boom")


def test_opponent_crash_names_its_seat() -> None:
    single = SingleAgentEnv("tic_tac_toe", Crashing(), seats="player_1")
    with pytest.raises(AgentError, match=r"agent for 'player_0' raised RuntimeError: boom"):
        single.reset(seed=0)


def test_missing_sb3_names_the_extra(monkeypatch) -> None:
    import sys

    from arena.training.policy_agent import require_sb3

    monkeypatch.setitem(sys.modules, "sb3_contrib", None)
    with pytest.raises(
        ImportError,
        match=r"install the 'train' extra: pip install torch==2.13.0 && "
        r"pip install 'arena-marl\[train\]'",
    ):
        require_sb3()


class ClipToOne(Interface):
    """Clips rewards to [-1, 1]: nonlinear, so it shows where in the sum it is applied."""

    def reward(self, reward):
        return max(-1.0, min(1.0, reward))


def test_learner_interface_transforms_each_returned_sum_once() -> None:
    # a hears 0.5 + 0.75 between its two actions: the clip applies to the sum (1.25 -> 1.0),
    # once per returned value, as AgtItfWrapper does for a playing agent.
    script = [
        Step(("a",)),
        Step(("b",), {"a": 0.5}),
        Step(("b",), {"a": 0.75}),
        Step(("a",), {"a": -3.0}),
        Step(("b",), terminate=("a", "b")),
    ]
    single = SingleAgentEnv(ScriptedEnv(script, agents=("a", "b")), LedgerAgent(), seats="a", interface=ClipToOne())
    single.reset(seed=0)
    assert single.step(0)[1] == 1.0
    assert single.step(0)[1:3] == (-1.0, True)


def test_interfaces_per_seat() -> None:
    from interfaces.board import EgoBoard

    ego = {"player_0": EgoBoard(player=0), "player_1": EgoBoard(player=1)}
    single = SingleAgentEnv("tic_tac_toe", FixedAgent(choices=[0]), interface=ego)
    assert single.interface is None
    observation, info = single.reset(seed=0)
    assert info["seat"] == "player_0" and observation.sum() == 0
    observation, info = single.reset()
    assert info["seat"] == "player_1" and observation[0, 0] == -1.0  # the opponent's disc, from player_1's side
    with pytest.raises(ValueError, match=r"interface dict has no entry for seats \['player_1'\]"):
        SingleAgentEnv("tic_tac_toe", interface={"player_0": EgoBoard()})
