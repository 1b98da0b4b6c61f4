"""A shared side on the one trainer: every member of the learner's side is a sub-env (parameter sharing) of
BatchVecEnv(team=True, member_done=True) over a worker batch of MAgent2 battles."""

from __future__ import annotations

import importlib.util

import numpy as np
import pytest

from arena.agents.base import Agent
from arena.interface import Interface
from arena.training.batched import BatchVecEnv
from arena.training.vectorised import batch_vec_env, choose_path

pytestmark = pytest.mark.skipif(importlib.util.find_spec("magent2") is None, reason="needs magent2 (magent extra)")

_SMALL = {"map_size": 16, "max_steps": 60}


def _side(num_games: int, opponent, env_kwargs=_SMALL, **kwargs) -> BatchVecEnv:
    """The shared side as ``arena train --control shared`` builds it for an env without a usable batch."""
    venv = batch_vec_env(
        "magent_battle",
        num_games,
        opponent,
        env_kwargs=env_kwargs,
        team=True,
        member_done=True,
        num_workers=0,
        **kwargs,
    )
    assert isinstance(venv, BatchVecEnv)
    return venv


def _width(venv: BatchVecEnv) -> int:
    return len(venv.env.teams["red"])


class _Recorder(Agent):
    """Batchable: attacks nothing, stays put; records each act_batch call's batch size."""

    def __init__(self) -> None:
        self.calls: list[int] = []

    @property
    def batchable(self) -> bool:
        return True

    def act(self, observation, action_mask=None, reward=0.0):
        return 6

    def act_batch(self, observations, action_masks=None):
        self.calls.append(len(observations))
        return np.full(len(observations), 6, dtype=np.int64)


class _OneAtATime(Agent):
    """Acts for one soldier per call only (not batchable)."""

    def act(self, observation, action_mask=None, reward=0.0):
        return 6


def _spaces():
    import envs

    battle = envs.make("magent_battle", map_size=16)
    return battle.observation_space("red_0"), battle.action_space("red_0")


def _play(venv: BatchVecEnv, steps: int, seed: int = 0):
    rng = np.random.default_rng(seed)
    venv.seed(seed)
    frames = [venv.reset()]
    rewards, dones, infos = [], [], []
    for _ in range(steps):
        obs, reward, done, info = venv.step(rng.integers(21, size=venv.num_envs))
        frames.append(obs)
        rewards.append(reward)
        dones.append(done)
        infos.append(info)
    return np.stack(frames), np.stack(rewards), np.stack(dones), infos


def test_every_member_of_the_side_is_a_sub_env_in_the_declared_space() -> None:
    venv = _side(3, "magent_attack_nearest")
    width = _width(venv)
    assert venv.num_envs == 3 * width
    frames, rewards, _, _ = _play(venv, 20)
    assert frames.shape == (21, 3 * width, 13, 13, 5)
    assert all(venv.observation_space.contains(frame) for frame in frames[:, 0])
    assert rewards.dtype == np.float32 and np.any(rewards != 0)


def test_the_same_seed_plays_the_same_battles() -> None:
    first = _play(_side(2, "magent_attack_nearest"), 80, seed=3)
    second = _play(_side(2, "magent_attack_nearest"), 80, seed=3)
    for a, b in zip(first[:3], second[:3]):
        np.testing.assert_array_equal(a, b)
    other = _play(_side(2, "magent_attack_nearest"), 80, seed=4)
    assert not np.array_equal(first[0], other[0])


def test_a_killed_member_is_done_once_then_sees_zeros_and_earns_nothing() -> None:
    venv = _side(1, "magent_attack_nearest", {"map_size": 16, "max_steps": 400})
    venv.seed(0)
    last = venv.reset()
    for _ in range(400):
        obs, reward, done, info = venv.step(np.full(venv.num_envs, 6))  # the learner stands still
        if done.all():
            break
        if not done.any():
            last = obs
            continue
        i = int(np.flatnonzero(done)[0])
        # its last view as the terminal observation, then zeros from this step on
        np.testing.assert_array_equal(info[i]["terminal_observation"], last[i])
        assert info[i]["terminal_observation"].any() and not info[i]["TimeLimit.truncated"] and not obs[i].any()
        obs, reward, done, info = venv.step(np.full(venv.num_envs, 6))
        if not done.all():  # the battle goes on: the dead slot is quiet
            assert not done[i] and reward[i] == 0 and not obs[i].any()
        return
    pytest.fail("no member of the learner's side died in 400 steps against magent_attack_nearest")


def test_a_battle_that_ends_makes_every_slot_done_and_the_sides_take_turns() -> None:
    venv = _side(1, _Recorder(), {"map_size": 16, "max_steps": 5})
    venv.seed(0)
    venv.reset()
    sides = [info["seat"].split("_")[0] for info in venv.step(np.full(venv.num_envs, 6))[3][:1]]
    for step in range(2, 16):
        _, _, done, info = venv.step(np.full(venv.num_envs, 6))
        if step % 5 == 0:
            assert done.all() and all(i["TimeLimit.truncated"] for i in info)
        else:
            assert not done.any()
        if step % 5 == 1:
            sides.append(info[0]["seat"].split("_")[0])
    assert sides == ["red", "blue", "red"]


def test_the_opponent_acts_for_its_whole_side_in_one_call_per_step() -> None:
    recorder = _Recorder()
    venv = _side(2, recorder)
    venv.seed(0)
    venv.reset()
    venv.step(np.zeros(venv.num_envs, dtype=np.int64))
    assert recorder.calls == [2 * _width(venv)]  # one call a step: the whole enemy side of every game


def test_an_opponent_playing_a_whole_side_starts_a_new_episode_in_every_new_game() -> None:
    venv = _side(2, _Recorder(), {"map_size": 16, "max_steps": 5})
    venv.seed(0)
    venv.reset()
    players = len(venv.env.possible_agents)
    lineup = venv._turns.lineup  # each seat's opponent code, -1 for the learner's
    opponent_seats = lineup.reshape(-1) >= 0
    # the flag that resets a stateful opponent's stack at its first move of a game
    assert venv._fresh.reshape(2, players)[lineup >= 0].all() and opponent_seats.any()


def test_a_pool_draws_one_opponent_per_game_for_the_whole_other_side() -> None:
    from arena.training.pool import OpponentPool

    first, second = _Recorder(), _Recorder()
    venv = _side(4, OpponentPool([first, second]), {"map_size": 16, "max_steps": 5})
    venv.seed(1)
    venv.reset()
    venv.step(np.zeros(venv.num_envs, dtype=np.int64))
    calls, width = first.calls + second.calls, _width(venv)
    assert sum(calls) == 4 * width and all(size % width == 0 for size in calls)  # whole sides, never a mix


def test_choose_path_takes_the_worker_batch_for_a_shared_side_and_says_why_it_cannot() -> None:
    import envs
    from arena.registry import make_agent

    battle = envs.make("magent_battle", **_SMALL)
    nearest = make_agent("magent_attack_nearest")
    assert choose_path(battle, "ppo", nearest, None, control="shared") == "workers"
    assert choose_path(battle, "ppo", nearest, None) == "workers"  # one soldier's seat: a worker batch too
    with pytest.raises(ValueError, match="--control shared cannot train this run: .*has no sides"):
        choose_path(envs.make("tic_tac_toe"), "ppo", make_agent("random"), None, control="shared")
    with pytest.raises(ValueError, match="the opponent .* cannot act for a side at once"):
        choose_path(battle, "ppo", _OneAtATime(), None, control="shared")
    arms = envs.make("magent_combined_arms", map_size=16)
    with pytest.raises(ValueError, match="do not share one observation space and one action space"):
        choose_path(arms, "ppo", nearest, None, control="shared")
    # a seat of an army whose units differ: the worker batch stacks one space, so one game at a time
    assert choose_path(arms, "ppo", nearest, None) == "single"


def test_member_done_and_team_spirit_need_a_team_and_steps_need_a_reset() -> None:
    with pytest.raises(ValueError, match="member_done and team_spirit .* need team=True"):
        batch_vec_env("magent_battle", 1, "random", env_kwargs=_SMALL, member_done=True, num_workers=0)
    with pytest.raises(ValueError, match="team_spirit must be a number in \\[0, 1\\], got 2"):
        _side(1, "random", team_spirit=2)
    venv = _side(1, "magent_attack_nearest")
    with pytest.raises(Exception, match="before reset"):
        venv.step(np.zeros(venv.num_envs, dtype=np.int64))


def test_arena_train_on_a_shared_side_writes_a_folder_that_plays_a_whole_side(tmp_path) -> None:
    from arena.cli import main
    from arena.training.trained import load_trained_agent

    out = tmp_path / "army"
    options = '{"map_size": 16, "max_steps": 20}'
    argv = ["train", "magent_battle", "--timesteps", "256", "--eval-games", "2", "--n-envs", "1"]
    assert main([*argv, "--env-options", options, "--out", str(out), "--control", "shared"]) in (0, None)
    agent = load_trained_agent(out)
    battle = _side(1, agent, {"map_size": 16, "max_steps": 20})
    battle.seed(0)
    battle.reset()
    battle.step(np.zeros(battle.num_envs, dtype=np.int64))  # the trained folder acts for a side in one call


def test_ship_agent_writes_a_smaller_folder_that_loads_and_names_its_command(tmp_path) -> None:
    import json

    from arena.cli import main
    from arena.training.trained import load_trained_agent
    from tests.tool_scripts import load_tool

    run = tmp_path / "run"
    argv = ["train", "magent_battle", "--timesteps", "256", "--eval-games", "2", "--n-envs", "1", "--seed", "5"]
    assert main([*argv, "--env-options", '{"map_size": 16, "max_steps": 20}', "--out", str(run)]) in (0, None)
    shipped = load_tool("ship_agent").ship(run, tmp_path / "shipped", "arena train magent_battle --seed 5", 5)
    manifest = json.loads((shipped / "agent.json").read_text())
    assert manifest["command"] == "arena train magent_battle --seed 5" and manifest["seed"] == 5
    size = sum(path.stat().st_size for path in shipped.iterdir() if path.is_file())
    assert manifest["training"]["optimizer"] is None and size < sum(
        path.stat().st_size for path in run.iterdir() if path.is_file()
    )
    assert not list(shipped.glob("optimizer-*"))  # no optimiser moments
    agent = load_trained_agent(shipped)  # the SHA-256 in the manifest is the new file's
    observation = np.zeros((3, 13, 13, 5), np.float32)
    agent.setup(*_spaces())
    assert agent.act_batch(observation).shape == (3,)


def test_match_sides_plays_whole_armies_seeded_and_scores_by_survivors() -> None:
    import envs
    from arena.registry import make_agent
    from arena.training.matches import match_sides

    battle = envs.make("magent_battle", map_size=16, max_steps=200)
    nearest, random_army = make_agent("magent_attack_nearest"), make_agent("random")
    score = match_sides(battle, nearest, random_army, 4, seed=0)
    assert score.outcomes == [1.0, 1.0, 1.0, 1.0]  # the scripted army beats a random one from either side
    again = match_sides(battle, make_agent("magent_attack_nearest"), make_agent("random"), 4, seed=0)
    assert again.outcomes == score.outcomes
    assert match_sides(battle, random_army, nearest, 2, seed=0).outcomes == [0.0, 0.0]
    # A player that acts one soldier at a time plays through a copy per seat (standing still, it loses).
    assert match_sides(battle, _OneAtATime(), nearest, 2, seed=0).outcomes == [0.0, 0.0]
    with pytest.raises(ValueError, match="must have two sides"):
        match_sides(envs.make("tic_tac_toe"), nearest, nearest, 1)


def test_team_spirit_mixes_each_members_reward_with_its_sides_mean() -> None:
    own = _play(_side(1, "magent_attack_nearest"), 40, seed=2)[1]
    shared = _side(1, "magent_attack_nearest", team_spirit=1.0)
    mixed = _play(shared, 40, seed=2)[1]
    assert not np.array_equal(own, mixed)
    for step_own, step_mixed in zip(own, mixed):  # all in play at the start: the same side's mean for each
        playing = step_own != 0
        if playing.all():
            np.testing.assert_allclose(step_mixed, np.full_like(step_own, step_own.mean()), rtol=1e-5)


class _EpisodeClock(Interface):
    """Stateful: counts its views since reset; adds the count to each reward, 100 at the end."""

    ENDS: list = []  # (stack id, views, terminated, truncated) of every episode end, shared by all copies

    def __init__(self) -> None:
        super().__init__()
        self.count = 0

    def reset(self, observation):
        self.count = 0

    def observation(self, observation):
        self.count += 1
        return observation

    def reward(self, reward):
        return reward + self.count

    def done(self, reward, *, terminated, truncated):
        _EpisodeClock.ENDS.append((id(self), self.count, terminated, truncated))
        return reward + 100.0


def test_a_stateful_stack_gets_one_copy_per_slot_reset_by_game_and_its_rewards_and_end() -> None:
    short = {"map_size": 16, "max_steps": 5}
    raw = _side(2, _Recorder(), short)
    _EpisodeClock.ENDS.clear()
    clocked = _side(2, _Recorder(), short, interface=_EpisodeClock())
    stacks = clocked.get_attr("interface")
    assert len(stacks) == clocked.num_envs and len({id(stack) for stack in stacks}) == clocked.num_envs
    assert clocked.get_attr("interface", indices=[3]) == [stacks[3]]
    for venv in (raw, clocked):
        venv.seed(0)
        venv.reset()
    for step in range(1, 11):  # two battles of 5 steps, every soldier standing still
        stand = np.full(raw.num_envs, 6)
        _, raw_reward, raw_done, _ = raw.step(stand)
        _, reward, done, _ = clocked.step(stand)
        np.testing.assert_array_equal(done, raw_done)
        # transform_reset observes the first view: the count is k + 1 at a battle's k-th step
        expected = raw_reward + (100.0 if step % 5 == 0 else (step - 1) % 5 + 2)
        np.testing.assert_allclose(reward, expected, rtol=1e-6)
    # Each slot's own stack ended each battle once, cut short, after 6 views: the first, 4 more, and the final
    # one (the battle's last view, observed before done, as on every batched trainer).
    assert sorted(_EpisodeClock.ENDS) == sorted((id(stack), 6, False, True) for stack in stacks for _ in range(2))


def test_a_stateless_stacks_reward_hook_applies() -> None:
    class _Double(Interface):
        def reward(self, reward):
            return 2 * reward

    raw = _play(_side(1, "magent_attack_nearest"), 30, seed=5)[1]
    venv = _side(1, "magent_attack_nearest", interface=_Double())
    doubled = _play(venv, 30, seed=5)[1]
    assert np.any(raw != 0)
    np.testing.assert_allclose(doubled, 2 * raw, rtol=1e-6)


def test_team_spirit_without_a_shared_side_is_refused(tmp_path, capsys) -> None:
    from arena.cli import main

    argv = ["train", "tic_tac_toe", "--timesteps", "64", "--out", str(tmp_path / "t"), "--team-spirit", "0.5"]
    assert main(argv) != 0
    assert "--team-spirit mixes the rewards of a side that shares one policy: it needs --control shared" in (
        capsys.readouterr().err
    )


def test_arena_train_workers_gives_the_same_run_for_any_number_of_processes(tmp_path, capsys) -> None:
    from arena.cli import main

    argv = ["train", "magent_battle", "--timesteps", "128", "--eval-games", "2", "--n-envs", "2", "--progress", "none"]
    argv += [
        "--env-options",
        '{"map_size": 12, "max_steps": 20}',
        "--algo-options",
        '{"n_steps": 16, "batch_size": 32}',
    ]
    for workers in (0, 2):
        assert main([*argv, "--workers", str(workers), "--out", str(tmp_path / str(workers))]) == 0
    assert "(workers path, 2 games)" in capsys.readouterr().out
    weights = [next((tmp_path / run).glob("model-*.safetensors")).read_bytes() for run in ("0", "2")]
    assert weights[0] == weights[1]  # the same games, so the same model (the file name is its hash)
    assert main(["train", "tic_tac_toe", "--timesteps", "64", "--workers", "1", "--out", str(tmp_path / "t")]) != 0
    assert "--workers 1 sets the processes of a worker batch, and this run steps none" in capsys.readouterr().err
