"""PongTraining: the learner sees and earns what its stack gives it on the single env; opponents from the pool."""

from __future__ import annotations

import numpy as np
import pytest

from arena import AgtItfWrapper, RandomAgent
from arena.agents.base import Agent
from arena.errors import ArenaError
from arena.specs.interfaces import build_interface
from arena.training.pool import OpponentPool
from envs.pong import Pong2p
from envs.pong_agents import PongAIAgent
from envs.pong_batch import PongBatch
from envs.pong_training import PongTraining, pong_stack_levels, pong_vec_env
from interfaces.pong import PongHitBonus
from interfaces.pong_aim import PongAim

STACK = "pong_moves(pong_frames(pong_hit_bonus(bonus=0.02, steep=0.05, edge=0.1, edge_from=0.5), scale=4, frames=2))"
AIMED = "pong_moves(pong_frames(pong_aim(pong_hit_bonus(bonus=0.02, edge=0.1), weight=0.3), scale=4, frames=2))"


class RecordingBatch(PongBatch):
    """A PongBatch that keeps what each step returned (the raw vectors and rewards)."""

    def step(self, actions):
        self.sent = np.array(actions)
        self.last = super().step(actions)
        return self.last


@pytest.mark.parametrize("stack", [STACK, AIMED])
def test_the_learner_sees_and_earns_what_its_stack_gives_it_on_the_single_env(stack: str) -> None:
    batch = RecordingBatch(2, rounds=2, max_round_steps=80)
    venv = PongTraining(batch, build_interface(stack), PongAIAgent(), seed=3)
    env = Pong2p()
    stacks = [build_interface(stack) for _ in range(2)]
    for stack in stacks:
        stack.setup(env.observation_space("player_0"), env.action_space("player_0"))
    obs = venv.reset()
    vectors = batch.vectors()
    seats = [0, 0]
    for game in range(2):
        assert np.array_equal(obs[game], stacks[game].transform_reset(vectors[game, 0]))
    games_done, steps, paid = 0, 0, 0.0
    while games_done < 3:
        learners = batch.vectors()[np.arange(2), seats]
        moves = np.searchsorted([0, 2, 3], PongAIAgent().act_batch(learners))  # pong_ai's play, as pong_moves' moves
        opponents = PongAIAgent().act_batch(batch.vectors()[np.arange(2), [1 - seat for seat in seats]])
        obs, rewards, dones, infos = venv.step(moves)
        assert batch.sent[np.arange(2), [1 - seat for seat in seats]].tolist() == opponents.tolist()
        steps += 1
        vectors, raw_rewards, _, _, batch_infos = batch.last
        over = batch_infos["episode_over"]
        final_scores = dict(zip(np.flatnonzero(over).tolist(), batch_infos.get("final_score", [])))
        for game in range(2):
            seat = seats[game]
            assert batch.sent[game, seat] == stacks[game].transform_action(int(moves[game]))
            assert infos[game]["seat"] == f"player_{seat}"
            if over[game]:
                assert dones[game]
                assert infos[game]["score"] == (final_scores[game][seat], final_scores[game][1 - seat])
                games_done += 1
                seats[game] = 1 - seat  # the next game from the other side
                assert np.array_equal(obs[game], stacks[game].transform_reset(vectors[game, seats[game]]))
                continue
            assert np.array_equal(obs[game], stacks[game].transform_observation(vectors[game, seat]))
            expected = stacks[game].transform_reward(float(raw_rewards[game, seat]))
            assert rewards[game] == pytest.approx(expected)
            paid += expected - float(raw_rewards[game, seat])
    assert paid > 0 if stack == STACK else paid != 0  # returns were paid for; the aim's potential moved


def test_opponents_come_from_the_pool_and_unfit_ones_are_refused() -> None:
    stack = build_interface(STACK)
    venv = pong_vec_env(
        "pong_2p",
        4,
        OpponentPool([PongAIAgent(), PongAIAgent(gain=5.0)], strategy="uniform"),
        interface=stack,
        env_options={"rounds": 1, "max_round_steps": 40},
    )
    venv.seed(0)
    venv.reset()
    assert set(venv._drawn.codes.tolist()) <= {0, 1}
    with pytest.raises(ValueError, match="cannot play RandomAgent"):
        venv.set_opponents(RandomAgent())
    with pytest.raises(ValueError, match="runs pong_moves\\(pong_frames\\(...\\)\\)"):
        pong_stack_levels(build_interface("pong_moves(pong_frames(pong_moves, scale=4))"))
    with pytest.raises(ValueError, match="an optional pong_hit_bonus and pong_aim under the frames"):
        pong_stack_levels(build_interface("pong_moves(pong_frames(pong_aim(pong_aim), scale=4))"))  # twice
    either_order = pong_stack_levels(build_interface("pong_moves(pong_frames(pong_hit_bonus(pong_aim), scale=4))"))
    assert isinstance(either_order.aim, PongAim) and isinstance(either_order.shaping, PongHitBonus)
    with pytest.raises(ValueError, match="vector observations"):
        pong_vec_env("pong_2p", 2, PongAIAgent(), interface=stack, env_options={"observation": "frame"})
    with pytest.raises(ValueError, match="trains the pong_2p env, got 'snake'"):
        pong_vec_env("snake", 2, PongAIAgent(), interface=stack, env_options={})


class Watcher(Agent):
    """A frozen 'policy' for many games at once: records the pictures it is shown, always moves up."""

    def __init__(self) -> None:
        self.seen: list[np.ndarray] = []

    def act(self, observation, action_mask=None, reward=0.0):
        return 1

    def act_batch(self, observations, action_masks=None):
        self.seen.append(np.array(observations))
        return np.ones(len(observations), dtype=np.int64)


def test_a_snapshot_opponent_sees_its_own_seats_pictures_and_moves_for_all_its_games_at_once() -> None:
    batch = RecordingBatch(3, rounds=1, max_round_steps=50)
    watcher = Watcher()
    venv = PongTraining(batch, build_interface(STACK), AgtItfWrapper(watcher, build_interface(STACK)), seed=1)
    env = Pong2p()
    stacks = [build_interface(STACK) for _ in range(3)]
    for stack in stacks:
        stack.setup(env.observation_space("player_1"), env.action_space("player_1"))
    venv.reset()
    expected = [stacks[game].transform_reset(batch.vectors()[game, 1]) for game in range(3)]
    for _ in range(20):
        venv.step(np.zeros(3, dtype=np.int64))
        assert np.array_equal(watcher.seen[-1], np.stack(expected))  # one call a step, every game's view
        assert (batch.sent[:, 1] == 2).all()  # its move 1 (up) sent as the raw 'up'
        expected = [stacks[game].transform_observation(batch.last[0][game, 1]) for game in range(3)]


def test_a_step_before_reset_and_moves_outside_pong_moves_are_refused() -> None:
    venv = PongTraining(PongBatch(2), build_interface(STACK), PongAIAgent(), seed=0)
    with pytest.raises(ArenaError, match=r"step\(\) called before reset\(\)"):
        venv.step(np.zeros(2, dtype=np.int64))
    venv.reset()
    with pytest.raises(ArenaError, match=r"actions must be pong_moves' 0-2, got \[0, 3\]"):
        venv.step(np.array([0, 3]))


def test_a_new_pool_reaches_each_game_at_its_next_game_and_retired_snapshots_are_let_go() -> None:
    first, second = Watcher(), Watcher()
    stack = build_interface(STACK)
    venv = PongTraining(PongBatch(6, rounds=1, max_round_steps=30), stack, AgtItfWrapper(first, build_interface(STACK)))
    venv.seed(0)
    venv.reset()
    venv.set_opponents(OpponentPool([PongAIAgent(), AgtItfWrapper(second, build_interface(STACK))], strategy="uniform"))
    venv.step(np.zeros(6, dtype=np.int64))
    assert len(first.seen[-1]) == 6 and not second.seen  # the running games keep their opponent
    for _ in range(40):  # every game ends within 30 steps and draws from the new pool
        venv.step(np.zeros(6, dtype=np.int64))
    calls = len(first.seen)
    venv.step(np.zeros(6, dtype=np.int64))
    assert len(first.seen) == calls and second.seen  # the retired snapshot plays no more
    assert len(venv._drawn.table) <= 2 and len(venv._players) == 2  # only the new pool's players are held
