# No `from __future__ import annotations`: the levels here are written as a user writes them.
"""The batched trainer runs any interface stack, a user's per-game levels included, and any batchable opponent.

The levels below are what a user writes in their own module: per-game hooks only, state reset
in ``reset``. ``arena train`` names them as ``tests.arena.training.test_one_batched_trainer:...``.
"""

import numpy as np
import pytest
import torch
from gymnasium import spaces
from stable_baselines3.common.vec_env import DummyVecEnv

from arena import Agent, AgtItfWrapper, Interface, RandomAgent
from arena.cli import main
from arena.training import SingleAgentEnv
from arena.training.batched import BatchVecEnv
from arena.training.vectorised import choose_path
from interfaces import FrameStack

torch.set_num_threads(1)  # small nets on a busy machine
HERE = "tests.arena.training.test_one_batched_trainer"
SNAKE = {"height": 8, "width": 8, "num_snakes": 3, "max_steps": 40}


# ------------------------------------------------------------------ a user's levels, per game only
class ShapeByCells(Interface):
    """Reward shaping that reads the observation: pays 0.01 per cell that became non-zero."""

    def reset(self, observation):
        self.previous = np.count_nonzero(observation)
        self.bonus = 0.0

    def observation(self, observation):
        cells = np.count_nonzero(observation)
        self.bonus += 0.01 * (cells - self.previous)
        self.previous = cells
        return observation

    def reward(self, reward):
        reward, self.bonus = reward + self.bonus, 0.0
        return reward


class Halve(Interface):
    """An observation transform: the board as float32, halved."""

    def setup(self, observation_space, action_space):
        super().setup(observation_space, action_space)
        box = self.inner_observation_space
        self.observation_space = spaces.Box((box.low / 2).astype(np.float32), (box.high / 2).astype(np.float32))

    def observation(self, observation):
        return np.asarray(observation, dtype=np.float32) / 2


class EndBonus(Interface):
    """Per-episode state read at the end: the first board's cell count, paid back when the episode ends."""

    def reset(self, observation):
        self.first = np.count_nonzero(observation)

    def done(self, reward, *, terminated, truncated):
        return reward + 0.5 + self.first


def user_stack():
    """The user's stack: the shaping level under the transform."""
    return Halve(ShapeByCells())


#: The same stack as ``arena train --interface`` names it.
USER_SPEC = f"{HERE}:Halve({HERE}:ShapeByCells)"


class FirstLegal(Agent):
    """Always the first legal move: a deterministic opponent both bridges see play alike."""

    def act(self, observation, action_mask=None, reward=0.0):
        return int(np.flatnonzero(action_mask)[0])

    def act_batch(self, observations, action_masks=None):
        return np.argmax(np.asarray(action_masks, dtype=bool), axis=1)


def _learner_moves(masks, step):
    """Deterministic learner moves that vary with the step: the k-th legal move."""
    return np.array([np.flatnonzero(m)[(step * 3 + i) % int(m.sum())] for i, m in enumerate(masks)])


# ------------------------------------------------------------------------------------ the tests
def test_a_stateful_user_stack_is_no_reason_to_leave_the_batched_path():
    import envs

    stack = user_stack()
    assert stack.stateful
    assert choose_path(envs.make("connect_four"), "maskable-ppo", RandomAgent(), stack) == "batched"
    assert choose_path(envs.make("snake", **SNAKE), "maskable-ppo", RandomAgent(), stack) == "batched"


def test_per_slot_observations_and_rewards_equal_single_agent_envs():
    """A stack with per-episode state (reset, done) and a frame stack: every slot equals its SingleAgentEnv."""

    def stack():
        return EndBonus(FrameStack(Halve(), frames=2))

    games = 3
    batched = BatchVecEnv("connect_four", games, FirstLegal(), interface=stack())
    single = DummyVecEnv(
        [lambda: SingleAgentEnv("connect_four", FirstLegal(), interface=stack()) for _ in range(games)]
    )
    batched.seed(0)
    single.seed(0)
    obs_b, obs_s = batched.reset(), single.reset()
    ends = 0
    for step in range(60):
        np.testing.assert_array_equal(obs_b, obs_s)
        masks = np.stack(batched.env_method("action_masks"))
        np.testing.assert_array_equal(masks, np.stack(single.env_method("action_masks")))
        moves = _learner_moves(masks, step)
        obs_b, rewards_b, dones_b, infos_b = batched.step(moves)
        obs_s, rewards_s, dones_s, infos_s = single.step(moves)
        np.testing.assert_array_equal(dones_b, dones_s)
        np.testing.assert_allclose(rewards_b, rewards_s)
        assert [i["seat"] for i in infos_b] == [i["seat"] for i in infos_s]
        ends += int(dones_b.sum())
    assert ends >= games  # episodes ended and restarted, the end bonus paid from per-game state


def test_the_shaping_level_pays_its_last_bonus_from_the_final_observation():
    """Against the same games without an interface: each reward is the raw one plus the change of
    non-zero cells the level saw, the final board's included."""
    games = 3
    shaped = BatchVecEnv("connect_four", games, FirstLegal(), interface=ShapeByCells())
    plain = BatchVecEnv("connect_four", games, FirstLegal())
    shaped.seed(4)
    plain.seed(4)
    obs, _ = shaped.reset(), plain.reset()
    bonus_at_ends = []
    for step in range(50):
        moves = _learner_moves(plain.action_masks(), step)
        before = np.array([np.count_nonzero(o) for o in obs])
        obs, rewards, dones, infos = shaped.step(moves)
        _, raw_rewards, raw_dones, raw_infos = plain.step(moves)
        assert dones.tolist() == raw_dones.tolist()
        after = np.array([np.count_nonzero(o) for o in obs])
        for g in np.flatnonzero(dones):
            after[g] = np.count_nonzero(raw_infos[g]["terminal_observation"])  # the final board
            np.testing.assert_array_equal(infos[g]["terminal_observation"], raw_infos[g]["terminal_observation"])
            bonus_at_ends.append(after[g] - before[g])
        np.testing.assert_allclose(rewards, raw_rewards + 0.01 * (after - before))
    assert bonus_at_ends and max(bonus_at_ends) >= 1  # final boards hold moves the learner had not seen


def test_opponents_behind_a_stateful_stack_act_in_batches_with_state_per_game():
    """A snapshot-like opponent behind a frame stack: its stack keeps one history per game."""

    class Recorder(Agent):
        def act_batch(self, observations, action_masks=None):
            self.seen.append(np.asarray(observations).copy())
            return np.argmax(np.asarray(action_masks, dtype=bool), axis=1)

    inner = Recorder()
    inner.seen = []
    opponent = AgtItfWrapper(inner, FrameStack(frames=2))
    assert not opponent.batchable  # its own act_batch cannot keep the frames; the trainer's slots can
    venv = BatchVecEnv("tic_tac_toe", 2, opponent, seats="player_1")  # the opponent moves first
    venv.seed(0)
    venv.reset()
    first = inner.seen[0]
    assert first.shape == (2, 2, 3, 3) and np.array_equal(first[:, 0], first[:, 1])  # a reset repeats the board
    venv.step(_learner_moves(venv.action_masks(), 0))
    second = inner.seen[1]
    # each game's history: the board of its previous move, then the board now
    np.testing.assert_array_equal(second[:, 0], first[:, 1])
    assert not np.array_equal(second[:, 0], second[:, 1])


def test_a_side_plays_every_seat_of_its_team_with_one_policy():
    pytest.importorskip("envs.pommerman")
    venv = BatchVecEnv("pommerman", 2, "random", team=True, env_kwargs={"mode": "team", "max_steps": 30})
    assert venv.num_envs == 4  # two games, two seats of the learner's side in each
    venv.seed(0)
    obs = venv.reset()
    assert obs.shape[0] == 4
    sides = []
    rng = np.random.default_rng(0)
    ends = 0
    for _ in range(80):
        obs, rewards, dones, infos = venv.step(rng.integers(0, 6, size=4))
        seats = [i["seat"] for i in infos]
        sides.append((seats[0], seats[1]))
        for g in range(2):  # both seats of one game end together: the side's episode
            assert dones[2 * g] == dones[2 * g + 1]
            if dones[2 * g]:
                ends += 1
                assert rewards[2 * g] == rewards[2 * g + 1]  # the side's outcome, paid to each seat
    assert ends >= 2
    assert {("agent_0", "agent_2"), ("agent_1", "agent_3")} <= set(sides)  # the sides take turns


@pytest.mark.parametrize(
    "game, options, turns",
    [("connect_four", {}, "alternating"), ("snake", {"height": 8, "width": 8}, "simultaneous")],
)
def test_one_class_steps_every_batch_by_its_declared_turns(game, options, turns):
    venv = BatchVecEnv(game, 2, "random", env_kwargs=options)
    assert type(venv) is BatchVecEnv and venv.turns == turns == venv.batch.turns


@pytest.mark.parametrize("option", [{"team": True}, {"team": True, "member_done": True}, {"team_spirit": 0.5}])
def test_side_options_on_a_board_game_are_refused_naming_its_turns(option):
    from arena.errors import InvalidValueError

    with pytest.raises(InvalidValueError, match="turns='alternating'"):
        BatchVecEnv("tic_tac_toe", 2, "random", **option)


def _around_pongs_stack() -> str:
    """The user's shaping wrapped around pong_2p's recipe stack (its frames feed the recipe's CNN)."""
    from arena.training.recipe import recipe_for

    return f"{HERE}:ShapeByCells({recipe_for('pong_2p').interface})"


@pytest.mark.parametrize(
    "game,extra",
    [
        ("connect_four", ["--interface", USER_SPEC]),
        ("snake", ["--env-options", '{"height": 8, "width": 8}', "--interface", USER_SPEC]),
        ("pong_2p", ["--interface", _around_pongs_stack()]),
        ("pong_2p", ["--interface", USER_SPEC, "--policy", "MlpPolicy", "--algo-options", '{"policy_kwargs": {}}']),
    ],
)
def test_arena_train_runs_a_user_stack_on_the_batched_path(tmp_path, capsys, game, extra):
    out = tmp_path / game
    argv = ["train", game, "--timesteps", "256", "--n-envs", "4", "--eval-games", "2"]
    argv += ["--progress", "none", *extra, "--out", str(out)]
    assert main(argv) == 0
    printed = capsys.readouterr()
    assert "(batched path, 4 games)" in printed.out, printed.err
    assert (out / "agent.json").exists()


def test_a_recipes_image_policy_under_a_users_vector_stack_is_refused_in_words(tmp_path, capsys):
    # pong_2p's recipe names CnnPolicy for its frames; the user's stack shows the raw vector
    argv = ["train", "pong_2p", "--timesteps", "64", "--n-envs", "2", "--eval-games", "2", "--progress", "none"]
    assert main([*argv, "--interface", USER_SPEC, "--out", str(tmp_path / "p")]) == 2
    error = capsys.readouterr().err
    assert "CnnPolicy reads images" in error and "Box(" in error and "--policy MlpPolicy" in error


def test_a_batch_without_masks_gets_the_masks_a_stack_filters():
    """Snake's batch has no masks: a level that filters masks (as pommerman_safe_moves does) still reaches MaskablePPO."""

    class NoFirstMove(Interface):
        def action_mask_batch(self, masks, slots=None):
            masks = np.array(masks, dtype=bool, copy=True)
            masks[:, 0] = False
            return masks

    venv = BatchVecEnv("snake", 2, "random", interface=NoFirstMove(), env_kwargs=SNAKE)
    venv.seed(0)
    venv.reset()
    for _ in range(5):
        assert venv.action_masks().tolist() == [[False, True, True]] * 2
        venv.step(np.array([1, 2]))
    plain = BatchVecEnv("snake", 2, "random", env_kwargs=SNAKE)
    plain.reset()
    assert plain.action_masks().all()
