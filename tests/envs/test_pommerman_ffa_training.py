"""`arena train pommerman` in free-for-all trains one seat on the batch against three `pommerman_simple`."""

from __future__ import annotations

import json

import pytest

pytest.importorskip("sb3_contrib")
pytest.importorskip("matplotlib")

from arena import make_agent, make_env  # noqa: E402
from arena.cli import main  # noqa: E402
from arena.specs.interfaces import build_interface  # noqa: E402
from arena.training.recipe import recipe_for  # noqa: E402
from arena.training.vectorised import path_reasons  # noqa: E402
from envs.pommerman.recipe import PLANES_ALGO_OPTIONS, planes_interface, team_interface  # noqa: E402

SHORT = {"max_steps": 60}


def test_the_ffa_recipe_is_the_batched_one_against_pommerman_simple() -> None:
    recipe = recipe_for("pommerman")
    assert recipe.interface == planes_interface(800)
    assert recipe_for("pommerman", SHORT).interface == planes_interface(60)  # the games' length
    assert recipe.algo == "maskable-ppo" and recipe.algo_options == PLANES_ALGO_OPTIONS
    assert recipe.opponents == ("pommerman_simple",) and recipe.references == ("pommerman_simple",)
    assert (recipe.control, recipe.n_envs, recipe.teammate, recipe.self_play) == ("seat", 64, None, None)
    assert recipe.full_budget == 4_000_000 and recipe.evaluations_for(4_000_000) == 8  # one every 500k steps
    assert team_interface is planes_interface  # the earlier name, which the team's code still uses
    opponent = make_agent(recipe.opponents[0])
    path = path_reasons(make_env("pommerman", **SHORT), recipe.algo, opponent, build_interface(recipe.interface))
    assert path == ("batched", [])


def test_the_bare_ffa_command_trains_on_the_batch_continues_and_plays_a_tournament(tmp_path, capsys) -> None:
    out, more = tmp_path / "ffa", tmp_path / "ffa_more"
    # the recipe as it is (its CNN, its algorithm options) on 2 short games: one rollout of 64 steps each
    common = ["--env-options", json.dumps(SHORT), "--timesteps", "128", "--n-envs", "2", "--eval-games", "2"]
    assert main(["train", "pommerman", *common, "--progress", "none", "--out", str(out)]) == 0, capsys.readouterr().err
    assert "(batched path, 2 games)" in capsys.readouterr().out  # not one SingleAgentEnv per game
    manifest = json.loads((out / "agent.json").read_text())
    assert manifest["interface"] == planes_interface(60)
    assert manifest["policy"]["kwargs"]["features_extractor_class"] == {"$class": "envs.pommerman.policy:PlanesCNN"}

    # a segment continued with --load alone keeps the run's opponents and path (the recipe's, from recipe.json)
    argv = ["train", "pommerman", "--load", str(out), "--timesteps", "128", "--n-envs", "2", "--eval-games", "2"]
    assert main([*argv, "--seed", "107", "--progress", "none", "--out", str(more)]) == 0, capsys.readouterr().err
    assert "(batched path, 2 games)" in capsys.readouterr().out
    stored = json.loads((more / "recipe.json").read_text())
    assert stored["opponents"] == ["pommerman_simple"] and stored["env_options"] == SHORT

    tournament = ["tournament", "pommerman", "--env-options", json.dumps(SHORT), "--games", "4", "--backend", "inline"]
    tournament += ["--agents", f"{more},pommerman_simple", "--db", str(tmp_path / "results.db")]
    assert main(tournament) == 0, capsys.readouterr().err
    assert "4 of 4 games stored" in capsys.readouterr().out
