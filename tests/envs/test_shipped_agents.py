"""Every agent arena ships loads from its package folder and plays a short game through the CLI."""

from __future__ import annotations

import json
from pathlib import Path

import numpy as np
import pytest

from arena.errors import UnknownNameError
from arena.registry import resolve
from envs.shipped import SHIPPED, load_shipped, shipped_folder
from tests.envs.shipped_games import VIZDOOM_OPTIONS

pytest.importorskip("stable_baselines3")
pytest.importorskip("rich")

#: A shipped agent -> the opponent and env options of its short test game.
SHORT_GAMES = {
    "pong_ppo": ("pong_ai", {"rounds": 1, "max_round_steps": 200}),
    "magent_army_ppo": ("magent_attack_nearest", {"map_size": 16, "max_steps": 30}),
    "pommerman_team_ppo": ("pommerman_simple", {"mode": "team", "max_steps": 30}),
    "pommerman_radio_ppo": ("pommerman_simple", {"mode": "radio", "max_steps": 30}),
    "pommerman_ffa_ppo": ("pommerman_simple", {"max_steps": 30}),
    "soccer_ppo": ("random", {"time_limit": 0.5}),
    "vizdoom_ppo": ("vizdoom_aim", {**VIZDOOM_OPTIONS, "time_limit": 1.0}),
}
MAX_FOLDER_BYTES = 5_000_000  # "a few MB at most"


def test_every_shipped_agent_has_a_short_game() -> None:
    assert set(SHORT_GAMES) == set(SHIPPED)


@pytest.mark.parametrize("name", sorted(SHIPPED))
def test_shipped_agent_is_package_data_with_its_command_and_seed(name: str) -> None:
    from arena.training.trained import read_manifest

    folder = shipped_folder(name)
    manifest = read_manifest(folder)
    assert manifest["command"].startswith("arena train ") and isinstance(manifest["seed"], int)
    assert f"--seed {manifest['seed']}" in manifest["command"]
    assert sum(path.stat().st_size for path in folder.rglob("*") if path.is_file()) < MAX_FOLDER_BYTES
    assert {manifest["model"], "agent.json", "recipe.json", "evaluations.csv", "learning_curve.png"} <= {
        path.name for path in folder.iterdir()
    }
    assert resolve("agent", name) is not None  # registered through the arena.agents entry points


@pytest.mark.parametrize("name", sorted(SHIPPED))
def test_shipped_agent_is_tensors_and_json_only(name: str) -> None:
    """Format 2: safetensors weights with their SHA-256, no pickle (no SB3 zip, no .pt/.pkl), no optimizer state."""
    from arena.training.trained import check_digest, read_manifest

    folder = shipped_folder(name)
    manifest = read_manifest(folder)
    assert manifest["format_version"] == 2 and manifest["training"]["optimizer"] is None  # hyperparameters only
    assert manifest["model"].endswith(".safetensors")
    assert check_digest(folder, manifest["model"], manifest["model_sha256"]) == folder / manifest["model"]
    assert not [path.name for path in folder.iterdir() if path.suffix in (".zip", ".pt", ".pkl", ".pth")]


@pytest.mark.parametrize("name", sorted(SHIPPED))
def test_shipped_agent_acts_as_recorded_in_its_seeded_game(name: str) -> None:
    """Every action of a seeded short game is the one recorded in tests/envs/data/shipped_actions.json
    (tests/envs/shipped_games.py): for the agents shipped as SB3 zips, by SB3's own load before they were
    converted; for the later ones, from their folders. The same weights, a deterministic policy."""
    from tests.envs.shipped_games import seeded_actions

    recorded = json.loads((Path(__file__).parent / "data" / "shipped_actions.json").read_text())[name]
    played = seeded_actions(name)
    if any(isinstance(value, float) for value in np.asarray(recorded, dtype=object).reshape(-1)):
        # continuous controls: MuJoCo's last bits differ between CPUs, the policy's decisions do not
        assert np.allclose(np.asarray(played, dtype=float), np.asarray(recorded, dtype=float), atol=1e-3)
    else:
        assert played == recorded


@pytest.mark.parametrize("name", sorted(SHIPPED))
def test_shipped_agent_plays_a_short_game_through_the_cli(name: str, tmp_path: Path, capsys) -> None:
    from arena.cli import main

    opponent, env_options = SHORT_GAMES[name]
    env = json.loads((shipped_folder(name) / "agent.json").read_text())["env"]
    export = tmp_path / "games.json"
    code = main(
        [
            "tournament",
            env,
            "--agents",
            f"{name},{opponent}",
            "--games",
            "2",
            "--backend",
            "inline",
            "--env-options",
            json.dumps(env_options),
            "--progress",
            "none",
            "--export",
            str(export),
        ]
    )
    out = capsys.readouterr().out
    assert code == 0, out
    games = json.loads(export.read_text())["games"]
    assert len(games) == 2
    assert "forfeit" not in out and "excluded" not in out, out


def test_unknown_shipped_name_lists_the_shipped_ones() -> None:
    with pytest.raises(UnknownNameError, match="no shipped agent 'nope'; arena ships"):
        load_shipped("nope")


@pytest.mark.parametrize("seat", [0, 1])
def test_pong_ppo_wins_more_rounds_than_pong_ai_at_the_default_physics(seat: int) -> None:
    import envs
    from arena import play
    from arena.registry import make_agent

    env = envs.make("pong_2p", rounds=8)
    players = [make_agent("pong_ppo"), make_agent("pong_ai")]
    episode = play(env, players if seat == 0 else players[::-1], seed=11)
    assert episode.returns[f"player_{seat}"] > 0, episode.returns  # rounds won minus rounds lost


def test_a_shipped_agent_warns_when_its_env_is_not_the_game_it_learned() -> None:
    """pong_ppo learned ball_spin=6: entered at spin 3 it warns (its rounds and step limits may differ freely)."""
    import warnings

    import envs
    from arena.training.trained import trained_elsewhere

    with pytest.warns(UserWarning, match=r"'pong_ppo' was trained on pong_2p .*ball_spin=6.0 \(here: 3.0\)"):
        load_shipped("pong_ppo", env=envs.make("pong_2p", ball_spin=3))
    with warnings.catch_warnings():
        warnings.simplefilter("error")  # the game it learned, with other episode lengths: no warning
        load_shipped("pong_ppo", env=envs.make("pong_2p", rounds=20, max_round_steps=1000))
    manifest = {"env_options": {"mode": "team", "max_steps": 400, "no_such_option": 1}}
    assert trained_elsewhere(manifest, envs.make("pommerman", mode="ffa")) == ["mode='team' (here: 'ffa')"]
    assert trained_elsewhere(manifest, envs.make("pommerman", mode="team", max_steps=800)) == []
