"""`arena train pommerman` in radio mode: the team trainer on the batch, the model choosing a move and two words."""

from __future__ import annotations

import json

import numpy as np
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

pytest.importorskip("sb3_contrib")
pytest.importorskip("matplotlib")

from sb3_contrib import MaskablePPO  # noqa: E402

from arena import make_agent, make_env  # noqa: E402
from arena.cli import main  # noqa: E402
from arena.specs.interfaces import build_interface  # noqa: E402
from arena.training.batched import BatchVecEnv  # noqa: E402
from arena.training.recipe import recipe_for  # noqa: E402
from arena.training.vectorised import choose_path, path_reasons  # noqa: E402
from envs.pommerman.planes import RADIO_PLANE_NAMES  # noqa: E402
from envs.pommerman.policy import PlanesCNN  # noqa: E402
from envs.pommerman.recipe import PLANES_ALGO_OPTIONS, planes_interface  # noqa: E402
from interfaces.pommerman_safety import safe_moves_planes  # noqa: E402

RADIO = {"mode": "radio", "max_steps": 60}
WORDS = RADIO_PLANE_NAMES.index("word_0")
TEAMMATE_ALIVE = RADIO_PLANE_NAMES.index("teammate_alive")


def test_the_radio_recipe_takes_the_batched_path() -> None:
    recipe = recipe_for("pommerman", RADIO)
    assert (recipe.control, recipe.teammate, recipe.interface) == ("shared", None, planes_interface(60))
    env, stack = make_env("pommerman", **RADIO), build_interface(recipe.interface)
    opponents = [make_agent(name) for name in recipe.opponents]
    assert path_reasons(env, recipe.algo, opponents, stack, control=recipe.control) == ("batched", [])


def test_a_shared_run_the_batch_cannot_serve_is_refused_in_words_against_pommerman_simple() -> None:
    # PPO takes no masks, so not the game's batch; pommerman_simple reads that batch, so not a worker batch
    env, stack = make_env("pommerman", **RADIO), build_interface(planes_interface(60))
    with pytest.raises(
        ValueError, match=r"PommermanSimpleAgent acts by reading the game's own batch .* \(nor can the "
    ):
        choose_path(env, "ppo", [make_agent("pommerman_simple")], stack, control="shared")
    assert choose_path(env, "ppo", [make_agent("random")], stack, control="shared") == "workers"


def test_the_radio_command_trains_on_the_batch_and_its_folder_plays_radio_games(tmp_path, capsys) -> None:
    out = tmp_path / "radio"
    argv = ["train", "pommerman", "--env-options", json.dumps(RADIO), "--timesteps", "128", "--n-envs", "2"]
    argv += ["--eval-games", "2", "--self-play", "uniform", "--promote-at", "0", "--progress", "none"]
    argv += ["--out", str(out), "--algo-options", '{"n_steps": 32, "batch_size": 64, "n_epochs": 1}']
    assert main(argv) == 0, capsys.readouterr().err
    printed = capsys.readouterr().out
    assert "(batched path, 2 games)" in printed
    assert "self-play pool: 3 members, 2 promotions" in printed  # talking snapshots joined the opponents
    manifest = json.loads((out / "agent.json").read_text())
    assert manifest["interface"] == planes_interface(60)
    assert manifest["spaces"]["action"] == "MultiDiscrete([6 8 8])"  # the model picks its words
    assert "(24, 11, 11)" in manifest["spaces"]["observation"]  # with the teammate's words

    agents = f"r={out}+{out},simple=pommerman_simple+pommerman_simple"
    tournament = ["tournament", "pommerman", "--env-options", json.dumps(RADIO), "--agents", agents]
    tournament += ["--games", "4", "--backend", "inline", "--db", str(tmp_path / "results.db")]
    assert main(tournament) == 0, capsys.readouterr().err
    assert "4 of 4 games stored" in capsys.readouterr().out


def _radio_trainer(games: int) -> BatchVecEnv:
    stack = build_interface(planes_interface(60))
    return BatchVecEnv("pommerman", games, make_agent("pommerman_simple"), team=True, interface=stack, env_kwargs=RADIO)


def test_the_learners_moves_respect_the_filter_on_the_batch() -> None:
    venv = _radio_trainer(4)
    kwargs = dict(PLANES_ALGO_OPTIONS["policy_kwargs"])
    kwargs["features_extractor_class"] = PlanesCNN
    kwargs["features_extractor_kwargs"] = {"features_dim": 32}
    model = MaskablePPO("MlpPolicy", venv, n_steps=64, batch_size=128, n_epochs=1, seed=0, policy_kwargs=kwargs)
    venv.seed(0)
    model.learn(64 * venv.num_envs)
    buffer = model.rollout_buffer
    views = buffer.observations.reshape(-1, *venv.observation_space.shape).astype(np.uint8)
    masks = buffer.action_masks.reshape(len(views), 22).astype(bool)
    actions = buffer.actions.reshape(len(views), 3).astype(np.int64)
    assert masks[:, 6:].all()  # every word allowed
    assert (masks[:, :6] == safe_moves_planes(views).astype(bool)).all()  # the moves: the filter's mask
    assert not masks[:, :6].all()  # ... which forbade some moves in these games
    assert masks[np.arange(len(views)), actions[:, 0]].all()  # and the learner kept to it
    assert len(np.unique(actions[:, 1:])) == 8  # it chose its words


@pytest.fixture(scope="module")
def radio_trainer() -> BatchVecEnv:
    return _radio_trainer(3)


@settings(max_examples=12, deadline=None)
@given(seed=st.integers(0, 2**16), steps=st.lists(st.integers(0, 2**32 - 1), min_size=1, max_size=30))
def test_words_reach_the_teammates_planes(radio_trainer: BatchVecEnv, seed: int, steps: list[int]) -> None:
    venv = radio_trainer
    venv.seed(seed)
    venv.reset()
    partner = np.arange(venv.num_envs) ^ 1  # sub-envs 2g and 2g + 1 are game g's two members
    for step_seed in steps:
        actions = np.random.default_rng(step_seed).integers(0, [6, 8, 8], (venv.num_envs, 3))
        views, _rewards, dones, _infos = venv.step(actions)
        words = views[:, WORDS : WORDS + 2, 0, 0].astype(np.int64)
        sent = actions[partner, 1:] * views[:, TEAMMATE_ALIVE, 0, :1]  # a teammate out of play sends nothing
        expected = np.where(dones[:, None], 0, sent)  # a new game starts silent
        assert (words == expected).all(), (words, expected, dones)
        assert (views[:, WORDS : WORDS + 2] == words[:, :, None, None]).all()  # a constant plane each
