"""tools/imitate.py: a folder's policy learns soccer_chaser's actions (behaviour cloning with DAgger)."""

from __future__ import annotations

import json

import numpy as np
import pytest
from gymnasium import spaces
from hypothesis import given, settings
from hypothesis import strategies as st

pytest.importorskip("dm_control")
pytest.importorskip("stable_baselines3")

from stable_baselines3 import PPO  # noqa: E402

import envs  # noqa: E402
from arena import make_agent, play  # noqa: E402
from arena.cli import main  # noqa: E402
from arena.errors import AgentFolderError, SpaceMismatchError  # noqa: E402
from arena.interface import Interface  # noqa: E402
from arena.specs.interfaces import build_interface  # noqa: E402
from arena.training import SingleAgentEnv, load_trained_agent  # noqa: E402
from arena.training.config import stored_recipe  # noqa: E402
from arena.training.trained import read_manifest, save_trained_agent  # noqa: E402
from envs.soccer.recipe import training_recipe  # noqa: E402
from tests.tool_scripts import load_tool  # noqa: E402

imitate = load_tool("imitate")
OPTIONS = {"team_size": 1, "time_limit": 0.5}  # 20 steps a game


def _folder(path, interface: str | None = training_recipe().interface):
    env = SingleAgentEnv("soccer", "random", env_kwargs=OPTIONS, interface=interface and build_interface(interface))
    model = PPO("MlpPolicy" if interface else "MultiInputPolicy", env, n_steps=32, batch_size=32, seed=0)
    save_trained_agent(path, model, algo="ppo", env="soccer", env_options=OPTIONS, interface=interface)
    return path


def _error_to_teacher(folder) -> float:
    """The folder's agent's mean squared distance to soccer_chaser's actions in the first game imitate plays."""
    env = envs.make("soccer", **OPTIONS)
    player, teacher = load_trained_agent(folder, env=env), make_agent("soccer_chaser")
    seen: list = []
    teach = teacher.act

    def act(observation, action_mask=None, reward=0.0):
        seen.append(observation)
        return teach(observation, action_mask, reward)

    teacher.act = act  # type: ignore[method-assign]
    play(env, {"home_0": teacher, "away_0": make_agent("random")}, seed=5)  # round 0's first game
    player.reset()
    return float(np.mean([np.mean((player.act(obs) - teach(obs)) ** 2) for obs in seen]))


def test_imitation_brings_the_policy_to_the_teachers_actions_and_records_how(tmp_path) -> None:
    folder = _folder(tmp_path / "pupil")
    before, old_model = _error_to_teacher(folder), read_manifest(folder)["model"]
    curve = imitate.imitate(
        folder,
        teacher="soccer_chaser",
        opponent="random",
        rounds=2,
        games=2,
        seed=5,
        epochs=40,
        env_options={"time_limit": 0.5},  # laid over the folder's own (the same value: 20 steps a game)
    )
    manifest = read_manifest(folder)
    assert [who for _round, who, _score, _samples in curve] == ["soccer_chaser", "policy"]
    assert manifest["imitation"]["teacher"] == "soccer_chaser" and len(manifest["imitation"]["scores"]) == 2
    # what a rerun needs: the epochs and the options the games were played with, the folder's and the overlay's
    assert manifest["imitation"]["epochs"] == 40 and manifest["imitation"]["env_options"] == OPTIONS
    assert {"games": 2, "seed": 5, "opponent": "random"}.items() <= manifest["imitation"].items()
    assert manifest["imitation"]["samples"] == curve[-1][3] == 4 * 20  # 2 rounds x 2 games x 20 steps, one seat
    assert manifest["interface_state"].startswith("interface_state-") and manifest["training"]["optimizer"] is None
    assert not (folder / old_model).exists() and (folder / "imitation.png").stat().st_size > 0
    assert (folder / "imitation.csv").read_text().splitlines()[0] == "round,played_by,score,samples"
    after = _error_to_teacher(folder)
    assert after < before / 2, (before, after)
    # PPO goes on from the imitated policy with a fresh optimizer, and the folder still says where it began
    argv = ["train", "soccer", "--load", str(folder), "--timesteps", "64", "--eval-games", "1", "--progress", "none"]
    assert main(argv) in (0, None)
    continued = read_manifest(folder)
    assert continued["imitation"] == manifest["imitation"] and continued["timesteps"] > manifest["timesteps"]


def test_a_run_stopped_in_a_later_round_keeps_the_last_finished_one(tmp_path, monkeypatch) -> None:
    folder = _folder(tmp_path / "pupil")
    old_model, fit, fits = read_manifest(folder)["model"], imitate.fit, []

    def stopped_in_round_1(*args, **kwargs):
        if fits:
            raise KeyboardInterrupt  # a run stopped by hand while it fits round 1
        fits.append(1)
        return fit(*args, **kwargs)

    monkeypatch.setattr(imitate, "fit", stopped_in_round_1)
    with pytest.raises(KeyboardInterrupt):
        imitate.imitate(
            folder, teacher="soccer_chaser", opponent="random", rounds=3, games=1, seed=5, epochs=2, env_options={}
        )
    manifest = read_manifest(folder)
    assert manifest["model"] != old_model and not (folder / old_model).exists()
    assert manifest["imitation"]["rounds"] == 1 and manifest["imitation"]["samples"] == 20
    rows = (folder / "imitation.csv").read_text().splitlines()[1:]
    assert len(rows) == 1 and rows[0].startswith("0,soccer_chaser,") and rows[0].endswith(",20")
    load_trained_agent(folder, env=envs.make("soccer", **OPTIONS))  # it loads: round 0's policy


def test_the_options_the_games_were_played_with_become_the_folders(tmp_path) -> None:
    folder = _folder(tmp_path / "pupil")
    shorter = {"time_limit": 0.25}  # 10 steps a game: the folder learned in this game, not its own
    imitate.imitate(
        folder, teacher="soccer_chaser", opponent="random", rounds=1, games=1, seed=5, epochs=1, env_options=shorter
    )
    manifest = read_manifest(folder)
    assert manifest["env_options"] == manifest["imitation"]["env_options"] == {**OPTIONS, **shorter}
    assert manifest["imitation"]["samples"] == 10
    recipe = stored_recipe(folder)  # `arena train --load` goes on in the same game, with the folder's model
    assert recipe is not None and recipe.env_options == {**OPTIONS, **shorter}
    assert (recipe.interface, recipe.algo) == (manifest["interface"], "ppo")


@settings(max_examples=25, deadline=None)
@given(st.lists(st.floats(-2.0, 2.0), min_size=3, max_size=3))
def test_a_raw_action_maps_back_to_the_model_action_that_gives_it(raw) -> None:
    stack = build_interface("rescale_action")
    stack.setup(spaces.Box(-1, 1, (2,)), spaces.Box(-2.0, 2.0, (3,), np.float64))
    inverse = imitate.affine_inverse(stack)
    model_action = inverse(np.array(raw))
    assert stack.action_space.contains(model_action)
    assert np.allclose(stack.transform_action(model_action), raw, atol=1e-5)


class _Cubed(Interface):
    def action(self, action):
        return np.asarray(action) ** 3


def test_stacks_whose_actions_cannot_be_labelled_are_refused() -> None:
    cubed = _Cubed()
    cubed.setup(spaces.Box(-1, 1, (2,)), spaces.Box(-1.0, 1.0, (3,)))
    with pytest.raises(SpaceMismatchError, match="does not map the model's actions affinely"):
        imitate.affine_inverse(cubed)
    discrete = _Cubed()
    discrete.setup(spaces.Box(-1, 1, (2,)), spaces.Discrete(3))
    with pytest.raises(SpaceMismatchError, match="needs flat Box model actions, got Discrete"):
        imitate.affine_inverse(discrete)


def test_a_folder_without_a_stack_is_refused_and_kept(tmp_path) -> None:
    folder = _folder(tmp_path / "bare", interface=None)
    before = json.loads((folder / "agent.json").read_text())
    with pytest.raises(AgentFolderError, match="needs a folder with an interface stack"):
        imitate.imitate(
            folder, teacher="soccer_chaser", opponent="random", rounds=1, games=1, seed=0, epochs=1, env_options={}
        )
    assert json.loads((folder / "agent.json").read_text()) == before


def test_each_seat_of_a_side_keeps_its_own_record(tmp_path) -> None:
    folder = _folder(tmp_path / "pupil")
    env = envs.make("soccer", team_size=2, time_limit=0.25)  # 10 steps a game
    episodes, score = imitate.play_round(env, folder, None, "soccer_chaser", "random", None, 2, 3, leads=True)
    assert len(episodes) == 2 * 2 and 0.0 <= score <= 1.0  # two games, two seats each
    for episode in episodes:
        assert len(episode.observations) == len(episode.labels) == len(episode.rewards) == 10
    assert not np.allclose(episodes[0].labels, episodes[1].labels)  # two walkers, two teachers' actions


@pytest.mark.parametrize(
    ("arguments", "code", "message"),
    [
        (["--env-options", "{bad"], 2, "--env-options must be a JSON object, got '{bad'"),
        (["--rounds", "0"], 2, "--rounds, --games and --epochs must be at least 1, got 0, 20, 10"),
        ([], 1, "imitate: no such agent folder: "),
        (["--also-env-options", "[1]"], 2, "--also-env-options must be a JSON object, got '[1]'"),
        (["--snapshots", "."], 1, "imitate: --snapshots . already holds round-0; give an empty folder"),
    ],
)
def test_the_command_line_says_what_was_wrong_in_one_line(tmp_path, arguments, code, message) -> None:
    import subprocess
    import sys

    from tests.tool_scripts import TOOLS

    (tmp_path / "round-0").mkdir()  # a snapshot already there (--snapshots .)
    command = [sys.executable, str(TOOLS / "imitate.py"), str(tmp_path / "none"), "--teacher", "soccer_chaser"]
    result = subprocess.run([*command, *arguments], capture_output=True, text=True, timeout=120, cwd=tmp_path)
    assert result.returncode == code and message in result.stderr and "Traceback" not in result.stderr, result.stderr
    assert "imitate: imitate:" not in result.stderr  # one prefix, the tool's checks name it already
