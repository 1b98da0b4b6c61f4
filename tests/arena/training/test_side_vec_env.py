"""The side path: SideVecEnv plays every member of the learner's side as one sub-env (parameter sharing)."""

from __future__ import annotations

import importlib.util

import numpy as np
import pytest

from arena.agents.base import Agent
from arena.interface import Interface
from arena.training.side_vec_env import SideVecEnv
from arena.training.vectorised import choose_path

pytestmark = pytest.mark.skipif(importlib.util.find_spec("magent2") is None, reason="needs magent2 (magent extra)")

_SMALL = {"map_size": 16, "max_steps": 60}


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


def _play(venv: SideVecEnv, steps: int, seed: int = 0):
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
    venv = SideVecEnv("magent_battle", 3, "magent_attack_nearest", env_kwargs=_SMALL)
    width = len(venv.games[0].teams["red"])
    assert venv.width == width and venv.num_envs == 3 * width
    frames, rewards, _, _ = _play(venv, 20)
    assert frames.shape == (21, 3 * width, 13, 13, 5)
    assert all(venv.observation_space.contains(frame) for frame in frames[:, 0])
    assert rewards.dtype == np.float32 and np.any(rewards != 0)


def test_the_same_seed_plays_the_same_battles() -> None:
    first = _play(SideVecEnv("magent_battle", 2, "magent_attack_nearest", env_kwargs=_SMALL), 80, seed=3)
    second = _play(SideVecEnv("magent_battle", 2, "magent_attack_nearest", env_kwargs=_SMALL), 80, seed=3)
    for a, b in zip(first[:3], second[:3]):
        np.testing.assert_array_equal(a, b)
    other = _play(SideVecEnv("magent_battle", 2, "magent_attack_nearest", env_kwargs=_SMALL), 80, seed=4)
    assert not np.array_equal(first[0], other[0])


def test_a_killed_member_is_done_once_then_sees_zeros_and_earns_nothing() -> None:
    venv = SideVecEnv("magent_battle", 1, "magent_attack_nearest", env_kwargs={"map_size": 16, "max_steps": 400})
    venv.seed(0)
    venv.reset()
    game, members = venv.games[0], venv._members[0]
    for _ in range(400):
        before = list(game.agents)
        obs, reward, done, info = venv.step(np.full(venv.num_envs, 6))  # the learner stands still
        if not game.agents or set(before) == set(game.agents):
            continue
        if not game.agents:
            break
        dead = [i for i, seat in enumerate(members) if seat in before and seat not in game.agents]
        if not dead:
            continue
        i = dead[0]
        assert done[i] and "terminal_observation" in info[i] and info[i]["terminal_observation"].any()
        assert not obs[i].any()
        obs, reward, done, info = venv.step(np.full(venv.num_envs, 6))
        if game.agents:  # the battle goes on: the dead slot is quiet
            assert not done[i] and reward[i] == 0 and not obs[i].any()
        return
    pytest.fail("no member of the learner's side died in 400 steps against magent_attack_nearest")


def test_a_battle_that_ends_makes_every_slot_done_and_the_sides_take_turns() -> None:
    venv = SideVecEnv("magent_battle", 1, _Recorder(), env_kwargs={"map_size": 16, "max_steps": 5})
    venv.seed(0)
    venv.reset()
    sides = [venv._members[0][0].split("_")[0]]
    for step in range(1, 16):
        _, _, done, info = venv.step(np.full(venv.num_envs, 6))
        if step % 5 == 0:
            assert done.all() and all(i["TimeLimit.truncated"] for i in info)
            sides.append(venv._members[0][0].split("_")[0])
        else:
            assert not done.any()
    assert sides == ["red", "blue", "red", "blue"]


def test_the_opponent_acts_for_its_whole_side_in_one_call_per_step() -> None:
    recorder = _Recorder()
    venv = SideVecEnv("magent_battle", 2, recorder, env_kwargs=_SMALL)
    venv.seed(0)
    venv.reset()
    venv.step(np.zeros(venv.num_envs, dtype=np.int64))
    assert recorder.calls == [venv.width, venv.width]  # one call per game, the whole enemy side


@pytest.mark.parametrize(
    "env,opponent,message",
    [
        ("tic_tac_toe", "random", "has no sides"),
        ("magent_battle", _OneAtATime(), "cannot act for a side at once"),
    ],
)
def test_runs_the_side_path_cannot_take_say_why(env, opponent, message) -> None:
    kwargs = _SMALL if env == "magent_battle" else {}
    with pytest.raises(ValueError, match=message):
        SideVecEnv(env, 1, opponent, env_kwargs=kwargs)


def test_bad_game_counts_and_steps_before_reset_are_refused() -> None:
    with pytest.raises(ValueError, match="num_games must be a positive integer, got 0"):
        SideVecEnv("magent_battle", 0, "magent_attack_nearest", env_kwargs=_SMALL)
    venv = SideVecEnv("magent_battle", 1, "magent_attack_nearest", env_kwargs=_SMALL)
    with pytest.raises(Exception, match="before reset"):
        venv.step(np.zeros(venv.num_envs, dtype=np.int64))


def test_choose_path_takes_the_side_path_for_a_shared_side_only_where_possible() -> None:
    import envs
    from arena.registry import make_agent

    battle = envs.make("magent_battle", **_SMALL)
    nearest = make_agent("magent_attack_nearest")
    assert choose_path(battle, "ppo", nearest, None, control="shared") == "workers"
    assert choose_path(battle, "ppo", nearest, None) == "single"
    with pytest.raises(ValueError, match="--control shared cannot train this run: .*has no sides"):
        choose_path(envs.make("tic_tac_toe"), "ppo", make_agent("random"), None, control="shared")


def test_arena_train_on_the_side_path_writes_a_folder_that_plays_a_whole_side(tmp_path) -> None:
    from arena.cli import main
    from arena.training.trained import load_trained_agent

    out = tmp_path / "army"
    options = '{"map_size": 16, "max_steps": 20}'
    argv = ["train", "magent_battle", "--timesteps", "256", "--eval-games", "2", "--n-envs", "1"]
    assert main([*argv, "--env-options", options, "--out", str(out), "--control", "shared"]) in (0, None)
    agent = load_trained_agent(out)
    battle = SideVecEnv("magent_battle", 1, agent, env_kwargs={"map_size": 16, "max_steps": 20})
    battle.seed(0)
    battle.reset()
    battle.step(np.zeros(battle.num_envs, dtype=np.int64))  # the trained folder acts for a side in one call


def test_ship_agent_writes_a_smaller_folder_that_loads_and_names_its_command(tmp_path) -> None:
    import importlib.util as util
    import json
    from pathlib import Path

    from arena.cli import main
    from arena.training.trained import load_trained_agent

    run = tmp_path / "run"
    argv = ["train", "magent_battle", "--timesteps", "256", "--eval-games", "2", "--n-envs", "1", "--seed", "5"]
    assert main([*argv, "--env-options", '{"map_size": 16, "max_steps": 20}', "--out", str(run)]) in (0, None)
    spec = util.spec_from_file_location("ship_agent", Path(__file__).parents[3] / "tools" / "ship_agent.py")
    assert spec is not None and spec.loader is not None
    tool = util.module_from_spec(spec)
    spec.loader.exec_module(tool)
    shipped = tool.ship(run, tmp_path / "shipped", "arena train magent_battle --seed 5", 5)
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
    own = _play(SideVecEnv("magent_battle", 1, "magent_attack_nearest", env_kwargs=_SMALL), 40, seed=2)[1]
    shared = SideVecEnv("magent_battle", 1, "magent_attack_nearest", env_kwargs=_SMALL, team_spirit=1.0)
    mixed = _play(shared, 40, seed=2)[1]
    assert not np.array_equal(own, mixed)
    for step_own, step_mixed in zip(own, mixed):  # all in play at the start: the same side's mean for each
        playing = step_own != 0
        if playing.all():
            np.testing.assert_allclose(step_mixed, np.full_like(step_own, step_own.mean()), rtol=1e-5)
    with pytest.raises(ValueError, match="team_spirit must be a number in \\[0, 1\\], got 2"):
        SideVecEnv("magent_battle", 1, "magent_attack_nearest", env_kwargs=_SMALL, team_spirit=2)


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
    raw = SideVecEnv("magent_battle", 2, _Recorder(), env_kwargs=short)
    _EpisodeClock.ENDS.clear()
    clocked = SideVecEnv("magent_battle", 2, _Recorder(), env_kwargs=short, interface=_EpisodeClock())
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
    # Each slot's own stack ended each battle once, after 5 views (the battle's end sends none), cut short.
    assert sorted(_EpisodeClock.ENDS) == sorted((id(stack), 5, False, True) for stack in stacks for _ in range(2))


def test_a_stateless_stack_is_shared_and_its_reward_hook_applies() -> None:
    class _Double(Interface):
        def reward(self, reward):
            return 2 * reward

    raw = _play(SideVecEnv("magent_battle", 1, "magent_attack_nearest", env_kwargs=_SMALL), 30, seed=5)[1]
    venv = SideVecEnv("magent_battle", 1, "magent_attack_nearest", env_kwargs=_SMALL, interface=_Double())
    assert len({id(stack) for stack in venv.get_attr("interface")}) == 1
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
