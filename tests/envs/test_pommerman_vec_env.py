"""PommermanVecEnv: learner seats of a PommermanBatch for Stable-Baselines3, the other seats scripted."""

from __future__ import annotations

import numpy as np
import pytest

pytest.importorskip("stable_baselines3")

from envs.pommerman.vec_env import PommermanVecEnv  # noqa: E402


@pytest.mark.parametrize("mode, seats", [("team", "team"), ("ffa", "one"), ("radio", "one")])
def test_learner_seats_rotate_and_sides_share_their_outcome(mode, seats):
    venv = PommermanVecEnv(6, mode, seats=seats, opponents="simple", seed=3, max_steps=60)
    obs = venv.reset()
    per_game = 2 if seats == "team" else 1
    assert obs.shape == (6 * per_game, 24 if mode == "radio" else 22, 11, 11) and obs.dtype == np.uint8
    seen_seats, finals = set(), []
    rng = np.random.default_rng(0)
    for _ in range(130):
        obs, rewards, dones, infos = venv.step(rng.integers(0, 6, venv.num_envs))
        assert all(venv.observation_space.contains(o) for o in obs)
        seen_seats |= {info["seat"] for info in infos}
        finals += rewards[dones].tolist()
        if seats == "team":  # both members of a side get the side's reward, and end together
            assert (rewards[0::2] == rewards[1::2]).all() and (dones[0::2] == dones[1::2]).all()
        assert all("terminal_observation" in infos[k] for k in np.flatnonzero(dones))
    assert finals and set(finals) <= {-1.0, 1.0}
    assert len(seen_seats) >= (4 if seats == "team" else 2)  # the sides alternate between episodes


@pytest.mark.parametrize("mode, seats", [("team", "team"), ("ffa", "one")])
def test_the_terminal_observation_is_the_batchs_final_view_not_the_one_before(mode, seats):
    venv = PommermanVecEnv(4, mode, seats=seats, opponents="simple", seed=1, max_steps=12)
    batch_infos: list[dict] = []
    step = venv.batch.step

    def recording_step(actions):  # what the batch itself said about the step
        result = step(actions)
        batch_infos.append(result[-1])
        return result

    venv.batch.step = recording_step
    previous = venv.reset()
    rng = np.random.default_rng(0)
    checked = differs = 0
    for _ in range(30):
        previous = previous.copy()
        _, _, dones, infos = venv.step(rng.integers(0, 6, venv.num_envs))
        over = batch_infos[-1]["episode_over"]
        for k in np.flatnonzero(dones).tolist():
            game, seat = k // (2 if seats == "team" else 1), int(infos[k]["seat"][-1])
            terminal = infos[k]["terminal_observation"]
            assert venv.observation_space.contains(terminal)
            if over[game]:  # the game ended: the batch's final view of this learner's seat
                row = int(np.flatnonzero(over).tolist().index(game))
                assert np.array_equal(terminal, batch_infos[-1]["final_observation"][row, seat])
                checked += 1
            else:  # an FFA learner out of a game that goes on: the batch draws no view for it
                assert not terminal.any()
            differs += not np.array_equal(terminal, previous[k])
    assert checked and differs  # the step limit ends games with learners alive: their last view moved on


def test_a_frozen_policy_opponent_gets_its_views_and_ppo_learns_a_few_steps():
    from stable_baselines3 import PPO

    calls = []

    def policy(views):
        calls.append(views.shape)
        return np.full(len(views), 5)

    venv = PommermanVecEnv(2, "team", seats="team", opponents=policy, seed=0, max_steps=30)
    venv.reset()
    venv.step(np.zeros(4, dtype=np.int64))
    assert calls and calls[0][1:] == (22, 11, 11)
    model = PPO(
        "MlpPolicy",
        PommermanVecEnv(2, "ffa", seats="one", opponents="random", seed=0, max_steps=30),
        n_steps=16,
        batch_size=16,
        n_epochs=1,
        seed=0,
    )
    model.learn(32)
    with pytest.raises(ValueError, match=r"seats must be one of \['one'\] in mode 'ffa', got 'team'"):
        PommermanVecEnv(2, "ffa", seats="team")
    with pytest.raises(ValueError, match="opponents must be 'simple', 'random' or a callable"):
        PommermanVecEnv(2, opponents="pommerman_simple")


def test_a_new_pool_reaches_each_game_at_its_next_episode_and_retired_players_are_let_go():
    first_views: list[int] = []

    def first(views: np.ndarray) -> np.ndarray:  # a frozen policy: counts the seats it plays
        first_views.append(len(views))
        return np.zeros(len(views), dtype=np.int64)

    venv = PommermanVecEnv(4, "ffa", seats="one", opponents=first, seed=0, max_steps=30)
    venv.reset()
    venv.set_opponents("simple")
    venv.step(np.zeros(4, dtype=np.int64))
    assert first_views[-1] == 12  # the running games keep it: 3 seats of 4 games
    for _ in range(30):  # every game ends within 30 steps and draws from the new pool
        venv.step(np.random.default_rng(0).integers(0, 6, 4))
    calls = len(first_views)
    venv.step(np.zeros(4, dtype=np.int64))
    assert len(first_views) == calls and venv._drawn.table == ["simple"]  # the retired player is let go
