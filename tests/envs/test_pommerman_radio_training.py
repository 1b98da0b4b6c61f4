"""`arena train pommerman` in radio mode: the team trainer on the batch, the model choosing a move and two words."""

from __future__ import annotations

import json
from pathlib import Path

import numpy as np
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

pytest.importorskip("sb3_contrib")
pytest.importorskip("matplotlib")

import torch  # noqa: E402
from sb3_contrib import MaskablePPO  # noqa: E402

from arena import make_agent, make_env  # noqa: E402
from arena.cli import main  # noqa: E402
from arena.errors import AgentFolderError  # noqa: E402
from arena.specs.interfaces import build_interface  # noqa: E402
from arena.training.batched import BatchVecEnv  # noqa: E402
from arena.training.recipe import recipe_for  # noqa: E402
from arena.training.trained import load_trained_agent  # noqa: E402
from arena.training.vectorised import choose_path, path_reasons  # noqa: E402
from envs.pommerman.planes import RADIO_PLANE_NAMES  # noqa: E402
from envs.pommerman.policy import PlanesCNN  # noqa: E402
from envs.pommerman.recipe import PLANES_ALGO_OPTIONS, planes_interface  # noqa: E402
from interfaces.pommerman_safety import safe_moves_planes  # noqa: E402
from tests.tool_scripts import load_tool  # noqa: E402

RADIO = {"mode": "radio", "max_steps": 60}
ROOT = Path(__file__).resolve().parents[2]
TEAM_AGENT = ROOT / "envs" / "pommerman_trained" / "pommerman_team_ppo"
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

    # tools/warm_start.py: the team agent's weights start the radio folder, which then moves as the team agent
    load_tool("warm_start").warm_start(TEAM_AGENT, out)
    manifest = json.loads((out / "agent.json").read_text())
    assert manifest["warm_start"]["from"] == "pommerman_team_ppo" and manifest["training"]["optimizer"] is None
    assert len(list(out.glob("model-*.safetensors"))) == 1 and not list(out.glob("optimizer-*"))
    team, radio = (
        _policy(load_trained_agent(TEAM_AGENT)),
        _policy(load_trained_agent(out, env=make_env("pommerman", **RADIO))),
    )
    high = radio.observation_space.high.astype(np.int64)
    views = np.random.default_rng(0).integers(0, high + 1, (16, *high.shape)).astype(np.float32)
    with torch.no_grad():
        moves = team.get_distribution(torch.as_tensor(views[:, :22])).distribution.logits
        spoken = radio.get_distribution(torch.as_tensor(views)).distributions
        views[:, 22:] = 7 - views[:, 22:]  # other words heard: the same moves (the word planes start unread)
        heard = radio.get_distribution(torch.as_tensor(views)).distributions
    assert torch.allclose(spoken[0].logits, moves, atol=1e-5) and torch.allclose(heard[0].logits, moves, atol=1e-5)
    assert torch.allclose(spoken[1].probs, torch.full((16, 8), 1 / 8)) and torch.allclose(
        spoken[2].probs, heard[2].probs
    )
    assert (
        main(["train", "pommerman", "--load", str(out), "--timesteps", "64", "--eval-games", "2", "--progress", "none"])
        == 0
    )
    assert json.loads((out / "agent.json").read_text())["warm_start"]["from"] == "pommerman_team_ppo"  # kept


def _policy(agent):
    """The SB3 policy of a loaded trained agent (behind its interface stack)."""
    return agent.agent.policy


def test_a_warm_start_takes_every_weight_that_fits_and_refuses_one_that_does_not() -> None:
    grown = load_tool("warm_start").grown
    source = {
        "conv.weight": torch.ones(2, 3),
        "scale": torch.ones(3),
        "head.bias": torch.ones(2),
        "bn.running_var": torch.zeros(3),
    }
    target = {"conv.weight": torch.full((2, 5), 9.0), "scale": torch.full((5,), 4.0), "head.bias": torch.zeros(2)}
    started = grown(source, {**target, "bn.running_var": torch.ones(4)})
    assert started["conv.weight"].tolist() == [[1, 1, 1, 0, 0]] * 2  # new inputs start unread
    assert started["scale"].tolist() == [4.0] * 5  # a buffer made from the spaces: the target's own
    assert started["head.bias"].tolist() == [1, 1]
    assert started["bn.running_var"].tolist() == [0, 0, 0, 1]  # learned statistics: the source's, then the target's
    assert grown({**source, "scale": torch.ones(5)}, target)["scale"].tolist() == [4.0] * 5  # of the same shape too
    with pytest.raises(AgentFolderError, match=r"conv.weight is \(2, 5\) in the source and \(2, 3\) in the target"):
        grown({**source, "conv.weight": torch.ones(2, 5)}, {**target, "conv.weight": torch.ones(2, 3)})
    with pytest.raises(AgentFolderError, match=r"the source has no weights named \['extra.weight'\]"):
        grown(source, {**target, "extra.weight": torch.ones(1)})


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
