"""A learner's seat in an env without a compiled batch (soccer, ViZDoom) trains on a worker batch of single envs,
through the one trainer; turn-based envs and runs the worker batch cannot express keep one SingleAgentEnv per game."""

from __future__ import annotations

from typing import Any

import numpy as np
import pytest

pytest.importorskip("dm_control")
pytest.importorskip("stable_baselines3")

import envs  # noqa: E402
from arena import Agent, RandomAgent  # noqa: E402
from arena.seeding import game_seeds  # noqa: E402
from arena.specs.interfaces import build_interface  # noqa: E402
from arena.training import SingleAgentEnv  # noqa: E402
from arena.training.batched import BatchVecEnv  # noqa: E402
from arena.training.vectorised import choose_path, path_reasons  # noqa: E402

_SHORT = {"team_size": 1, "time_limit": 0.25}  # 1v1, 10 steps a game
_STACK = "soccer_features(soccer_shaping(ball=0.1, goal=0.3), relative=true)"  # dense rewards, a flat view


class StandStill(Agent):
    """Every walker's zero force, one game or many at once (no randomness: both paths see the same opponent)."""

    def act(self, observation: Any, action_mask: Any = None, reward: float = 0.0) -> np.ndarray:
        return np.zeros(self.action_space.shape, self.action_space.dtype)

    def act_batch(self, observations: Any, action_masks: Any = None) -> np.ndarray:
        rows = len(next(iter(observations.values())) if isinstance(observations, dict) else observations)
        return np.zeros((rows, *self.action_space.shape), self.action_space.dtype)


class OneGameAtATime(StandStill):
    act_batch = Agent.act_batch  # type: ignore[assignment]


def test_a_seat_in_an_env_without_a_batch_whose_agents_move_at_once_takes_the_worker_batch() -> None:
    soccer = envs.make("soccer", **_SHORT)
    assert soccer.simultaneous and not soccer.batchable
    assert choose_path(soccer, "ppo", RandomAgent(), None) == "workers"
    assert choose_path(soccer, "ppo", [RandomAgent(), StandStill()], build_interface(_STACK)) == "workers"
    path, reasons = path_reasons(soccer, "ppo", OneGameAtATime(), None)
    assert path == "single" and (
        "the opponent OneGameAtATime cannot act for many games at once nor be copied per game (copy_per_game)"
        in reasons
    )
    path, reasons = path_reasons(soccer, "ppo", RandomAgent(), None, teammate="random")
    assert path == "single" and "the learner plays beside a teammate or for a whole side" in reasons
    assert choose_path(soccer, "ppo", RandomAgent(), None, control="team") == "single"
    kuhn = envs.make("kuhn_poker")  # turn-based, no batch
    assert choose_path(kuhn, "maskable-ppo", RandomAgent(), None) == "single"
    # rock-paper-scissors moves at once and masks nothing: ppo trains on the worker batch
    rps = envs.make("rock_paper_scissors")
    assert rps.simultaneous and choose_path(rps, "ppo", RandomAgent(), None) == "workers"
    assert choose_path(envs.make("connect_four"), "ppo", RandomAgent(), None) == "single"  # its batch wants masks


def _worker_episodes(seed: int, games: int, steps: int, actions: np.ndarray) -> tuple[list[int], list[list[Any]]]:
    """The per-game seeds the worker batch got and each game's first-episode stream (obs, reward, done)."""
    venv = BatchVecEnv(
        "soccer",
        games,
        StandStill(),
        ["home_0"],
        interface=build_interface(_STACK),
        env_kwargs=_SHORT,
        num_workers=0,
    )
    given: list[int] = []
    reset = venv.batch.reset

    def spy(*, seed: Any = None, options: Any = None) -> Any:
        given.append(seed)
        return reset(seed=seed, options=options)

    venv.batch.reset = spy  # type: ignore[method-assign]
    venv.seed(seed)
    observations = venv.reset()
    streams: list[list[Any]] = [[("obs", observations[g])] for g in range(games)]
    ended = np.zeros(games, bool)
    for step in range(steps):
        observations, rewards, dones, infos = venv.step(actions[step])
        for g in np.flatnonzero(~ended).tolist():
            shown = infos[g]["terminal_observation"] if dones[g] else observations[g]
            streams[g] += [("obs", shown), ("reward", rewards[g]), ("done", bool(dones[g]))]
        ended |= dones
    venv.close()
    assert ended.all()
    return game_seeds(given[0], games, venv), streams


def _single_episode(seed: int, steps: int, actions: np.ndarray) -> list[Any]:
    env = SingleAgentEnv(envs.make("soccer", **_SHORT), StandStill(), ["home_0"], interface=build_interface(_STACK))
    observation, _ = env.reset(seed=seed)
    stream: list[Any] = [("obs", observation)]
    for step in range(steps):
        observation, reward, terminated, truncated, _ = env.step(actions[step])
        stream += [("obs", observation), ("reward", np.float32(reward)), ("done", terminated or truncated)]
        if terminated or truncated:
            break
    env.close()
    return stream


def test_each_worker_game_plays_the_single_envs_episode_for_its_seed() -> None:
    """dm_env-style: the same per-game seed and the same actions give the learner the same observations,
    rewards and dones in a game's first episode. (Later episodes differ in their seeds: the single env draws
    each episode's seed from its own generator, a worker game resets its env unseeded; docs/architecture.md.)"""
    games, steps = 2, 11
    actions = np.random.default_rng(0).uniform(-1, 1, (steps, games, 3)).astype(np.float32)
    seeds, streams = _worker_episodes(7, games, steps, actions)
    assert len(set(seeds)) == games
    for g in range(games):
        single = _single_episode(seeds[g], steps, actions[:, g])
        assert [kind for kind, _ in streams[g]] == [kind for kind, _ in single]
        assert single[-1] == ("done", True) and len(single) == 1 + 3 * 10  # the whole 10-step episode
        for (kind, ours), (_, theirs) in zip(streams[g], single):
            np.testing.assert_array_equal(np.asarray(ours, np.float32), np.asarray(theirs, np.float32), err_msg=kind)
        assert any(value != 0 for kind, value in single if kind == "reward")  # the shaping pays: a stream to compare


def test_arena_train_soccer_in_one_seat_gives_the_same_run_for_any_number_of_processes(tmp_path, capsys) -> None:
    from arena.cli import main

    argv = ["train", "soccer", "--control", "seat", "--timesteps", "32", "--n-envs", "2", "--progress", "none"]
    argv += ["--env-options", '{"team_size": 1, "time_limit": 0.25}', "--eval-games", "2", "--eval-every", "32"]
    argv += ["--algo-options", '{"n_steps": 16, "batch_size": 16, "n_epochs": 1}']
    for workers in (0, 1):
        assert main([*argv, "--workers", str(workers), "--out", str(tmp_path / str(workers))]) == 0
        assert "(workers path, 2 games)" in capsys.readouterr().out
    weights = [next((tmp_path / run).glob("model-*.safetensors")).read_bytes() for run in ("0", "1")]
    assert weights[0] == weights[1]  # the same games, so the same model (the file name is its hash)
