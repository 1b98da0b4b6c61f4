"""`arena train ENV` on every bundled env with its own recipe; flags over the recipe; progress lines; --load."""

from __future__ import annotations

import importlib.util
import io
import json
import re
import shlex
import threading

import pytest

pytest.importorskip("sb3_contrib")
pytest.importorskip("matplotlib")

import envs
from arena.cli import main
from arena.errors import ArenaError, PluginError
from arena.training import TrainingConfig, TrainingRecipe, recipe_for
from arena.training.recipe import MIN_EVAL_GAMES
from arena.training.report import read_csv
from arena.training.run import registered_interface_spec

# The engine an env needs, when it needs one the base install lacks (its extra).
_EXTRA_MODULE = {
    "vizdoom_deathmatch": "vizdoom",
    "soccer": "dm_control",
    "magent_battle": "magent2",
    "magent_combined_arms": "magent2",
}
# Shorter games where the default ones would take most of a test's time (the recipe stays the env's).
_QUICK_OPTIONS = {
    "soccer": {"time_limit": 0.5},
    "vizdoom_deathmatch": {"time_limit": 2.0},
    "pong_2p": {"rounds": 1, "max_round_steps": 60},
    "pommerman": {"max_steps": 60},
    "magent_battle": {"max_steps": 10, "map_size": 12},
    "magent_combined_arms": {"max_steps": 10, "map_size": 16},
}


@pytest.mark.parametrize(
    "name,options",
    [(name, {}) for name in envs.names()] + [("pommerman", {"mode": "team"}), ("pommerman", {"mode": "radio"})],
)
def test_the_bare_command_trains_every_bundled_env_with_its_recipe(name: str, options: dict, tmp_path, capsys) -> None:
    if name in _EXTRA_MODULE and importlib.util.find_spec(_EXTRA_MODULE[name]) is None:
        pytest.skip(f"{name} needs {_EXTRA_MODULE[name]} (its extra)")
    out = tmp_path / name
    options = {**_QUICK_OPTIONS.get(name, {}), **options}
    argv = [
        "train",
        name,
        "--timesteps",
        "32",
        "--eval-games",
        "2",
        "--n-envs",
        "1",
        "--out",
        str(out),
        "--algo-options",
        '{"n_steps": 32, "batch_size": 32, "n_epochs": 1}',
    ]
    if options:
        argv += ["--env-options", json.dumps(options)]
    assert main(argv) == 0, capsys.readouterr().err
    printed = capsys.readouterr().out
    recipe = recipe_for(name, options)
    assert f"trained {recipe.algo} on {name}" in printed
    manifest = json.loads((out / "agent.json").read_text())
    stored = json.loads((out / "recipe.json").read_text())
    assert stored["interface"] == registered_interface_spec(recipe.interface)  # the recipe's, in canonical form
    assert stored["opponents"] == list(recipe.opponents)
    assert stored["env_options"] == manifest["env_options"]  # the run's env options, not only the recipe's
    assert (manifest["interface"] is None) == (recipe.interface is None)
    assert read_csv(out / "evaluations.csv")[0]["timesteps"] == 0

    # The command it prints works as printed (N seats, team modes: a single entrant fills its side).
    command = printed.split("the folder is an agent: ")[1].strip()
    words = shlex.split(command)
    assert words[:3] == ["arena", "tournament", name]
    assert main([*words[1:], "--games", "2", "--backend", "inline"]) == 0, capsys.readouterr().err


def test_every_bundled_env_declares_a_recipe() -> None:
    from importlib import metadata

    declared = {entry.name for entry in metadata.entry_points(group="arena.recipes")}
    assert set(envs.names()) - declared == set()
    assert recipe_for("pommerman").control == "seat"  # one seat of the batch (test_pommerman_ffa_training.py)
    assert recipe_for("pommerman", {"mode": "team"}).control == "shared"  # one policy for its side, on the batch
    assert recipe_for("pommerman", {"mode": "radio"}).control == "shared"  # the same trainer, words learned


def test_raw_spaces_with_a_start_are_refused_with_the_fix(tmp_path, capsys) -> None:
    # SB3 one-hot encodes MultiDiscrete([5 5 5], start=9) as if it were 0..4: a torch error in a game, before.
    code = main(
        [
            "train",
            "pommerman",
            "--interface",
            "none",
            "--timesteps",
            "32",
            "--n-envs",
            "1",
            "--progress",
            "none",
            "--out",
            str(tmp_path / "raw"),
        ]
    )
    assert code == 2
    err = capsys.readouterr().err
    assert (
        "the learner's observation 'enemies' is MultiDiscrete([5 5 5], start=[9 9 9]): Stable-Baselines3 reads "
        "Discrete and MultiDiscrete values as 0..n-1 whatever their start"
    ) in err
    assert "--interface flatten or one_hot" in err


def test_flags_override_the_recipe_field_by_field() -> None:
    config = TrainingConfig(
        "pommerman",
        timesteps=20_000,
        out="x",
        overrides={
            "interface": "flatten(pommerman_features)",
            "references": ("pommerman_simple",),
            "algo": "ppo",
            "algo_options": {"n_epochs": 2},
        },
    )
    recipe = config.recipe()
    assert recipe.interface == "flatten(pommerman_features)" and recipe.references == ("pommerman_simple",)
    assert recipe.opponents == ("pommerman_simple",)  # not given: the recipe's
    assert recipe.algo == "ppo" and recipe.algo_options == {"n_epochs": 2}  # another algorithm: the recipe's dropped
    soccer = TrainingConfig("soccer", out="x", overrides={"algo_options": {"batch_size": 64}}).recipe()
    # the recipe's algorithm keeps its options, the given one replaced
    assert soccer.algo_options == {"n_steps": 512, "batch_size": 64, "policy_kwargs": {"log_std_init": -0.5}}
    assert TrainingConfig("pommerman", out="x", overrides={"interface": "none"}).recipe().interface is None
    connect_four = TrainingConfig("connect_four", out="x", overrides={"self_play": "off"}).recipe()
    assert connect_four.self_play is None and recipe_for("connect_four").self_play == "uniform"
    # the evaluation budget scales with the run: short runs play fewer games, but never so few that
    # the curve reads 0% or 100% off 2 games, and the last evaluation (the reported one) plays them all
    assert recipe_for("vizdoom_deathmatch").eval_games_for(20_000) == 10  # its full 10
    assert recipe_for("connect_four").eval_games_for(20_000) == MIN_EVAL_GAMES == 10
    assert recipe_for("connect_four").eval_games_for(400_000) == 24
    assert recipe_for("connect_four").eval_games_for(1_600_000) == 100
    assert recipe_for("connect_four").final_eval_games() == 100


@pytest.mark.parametrize(
    "kwargs,message",
    [
        ({"timesteps": 0}, "--timesteps must be at least 1, got 0"),
        ({"overrides": {"fixed_eval_games": -1}}, "--eval-games must be a positive integer or None, got -1"),
        (
            {"overrides": {"self_play": "best"}},
            "unknown --self-play value 'best'; expected one of latest, uniform, off",
        ),
        ({"overrides": {"opponents": ()}}, "--opponent needs at least one agent name, got none"),
        ({"overrides": {"promote_at": 2.0}}, "--promote-at must be a number in [0, 1], got 2.0"),
        ({"overrides": {"n_envs": 0}}, "--n-envs must be a positive integer or None, got 0"),
        ({"overrides": {"colour": "red"}}, "overrides names no recipe field 'colour'; expected some of interface,"),
        ({"overrides": {"env_options": {}}}, "(env_options is the config's own field)"),
        ({"out": None}, "--out is required"),
        ({"progress_every": 0}, "--progress-every must be a positive number of seconds, got 0"),
    ],
)
def test_a_bad_config_says_which_flag(kwargs, message) -> None:
    with pytest.raises((ValueError, TypeError, ArenaError)) as caught:
        TrainingConfig(**{"env": "tic_tac_toe", "out": "x", **kwargs})
    assert message in str(caught.value)


def test_a_stored_recipe_written_with_a_path_still_loads(tmp_path) -> None:
    from arena.training.config import RECIPE_FILE, stored_recipe
    from envs.shipped import shipped_folder

    # The shipped army was trained on the side path ("path": "side" in its recipe.json): a --load of it
    # goes on training one policy in every seat of its side.
    army = stored_recipe(shipped_folder("magent_army_ppo"))
    assert army is not None and army.control == "shared" and army.team_spirit == 0.5
    for path in ("auto", "batched", "single", "env"):  # how games were stepped: the run now chooses it
        (tmp_path / RECIPE_FILE).write_text(json.dumps({**TrainingRecipe(algo="ppo").to_json(), "path": path}))
        assert stored_recipe(tmp_path) == TrainingRecipe(algo="ppo")
    # The removed env trainers (arena.vec_envs): Pommerman's played both seats of a side, Pong's one seat.
    for vec_env, control in (("pommerman_team", "shared"), ("pong_2p", "seat")):
        old = {**TrainingRecipe().to_json(), "path": "auto", "vec_env": vec_env}
        (tmp_path / RECIPE_FILE).write_text(json.dumps(old))
        assert stored_recipe(tmp_path) == TrainingRecipe(control=control)
    assert not {"path", "vec_env"} & set(TrainingRecipe().to_json())


def test_a_recipe_that_is_not_a_recipe_is_a_plugin_error(monkeypatch) -> None:
    import arena.training.recipe as recipes

    monkeypatch.setattr(recipes, "resolve", lambda kind, name: lambda **options: {"interface": "flatten"})
    with pytest.raises(
        PluginError,
        match=r"the training recipe of 'tic_tac_toe' must be an "
        r"arena.training.TrainingRecipe \(or a callable returning one\), got dict",
    ):
        recipes.recipe_for("tic_tac_toe")
    with pytest.raises(ValueError, match=r"expected a mapping of .*; got \['colour'\]"):
        TrainingRecipe.from_json({"colour": "red"})


def test_an_unknown_recipe_field_is_named_with_the_fields_there_are(monkeypatch) -> None:
    import arena.training.recipe as recipes

    with pytest.raises(TypeError) as caught:
        TrainingRecipe(path="batched")
    assert str(caught.value).startswith(
        "TrainingRecipe: unknown field 'path' (path and vec_env were removed: the run chooses how to step its games"
    )
    assert str(caught.value).endswith(
        "; the fields are interface, algo, algo_options, policy, opponents, "
        "references, teammate, control, seats, self_play, promote_at, pool_size, window, evaluations, eval_games, "
        "full_budget, fixed_eval_every, fixed_eval_games, n_envs, team_spirit, env_options"
    )
    with pytest.raises(TypeError, match=r"^TrainingRecipe: unknown fields 'colour', 'vec_env' \(path and vec_env"):
        TrainingRecipe(algo="ppo").replace(colour="red", vec_env="pong_2p")
    with pytest.raises(TypeError, match=r"^TrainingRecipe: unknown field 'colour'; the fields are interface, "):
        TrainingRecipe(colour="red")
    # An env's recipe that builds one with a removed field fails as the recipe's error, not the env options'.
    monkeypatch.setattr(recipes, "resolve", lambda kind, name: lambda **options: TrainingRecipe(path="batched"))
    with pytest.raises(PluginError) as failed:
        recipes.recipe_for("tic_tac_toe", {"size": 3})
    assert str(failed.value).startswith(
        "the training recipe of 'tic_tac_toe' failed (env options {'size': 3}): TrainingRecipe: unknown field 'path'"
    )
    monkeypatch.setattr(recipes, "resolve", lambda kind, name: lambda mode="ffa": TrainingRecipe())
    with pytest.raises(
        PluginError, match=r"refused the env options \{'size': 3\}: .*unexpected keyword argument 'size'"
    ):
        recipes.recipe_for("tic_tac_toe", {"size": 3})


def test_piped_output_shows_progress_lines(tmp_path, capsys) -> None:
    out = tmp_path / "lines"
    assert (
        main(
            [
                "train",
                "tic_tac_toe",
                "--timesteps",
                "64",
                "--eval-games",
                "2",
                "--eval-every",
                "32",
                "--n-envs",
                "2",
                "--out",
                str(out),
            ]
        )
        == 0
    )
    lines = [line for line in capsys.readouterr().err.splitlines() if line.startswith("train tic_tac_toe: ")]
    assert lines[0].startswith("train tic_tac_toe: 0/64 steps (0%)")
    assert any("steps/s, eta " in line and "last evaluation at 64: vs random" in line for line in lines)


def test_progress_lines_keep_coming_while_training_is_busy() -> None:
    from arena.training.progress import ProgressLinesCallback

    stream = io.StringIO()
    lines = ProgressLinesCallback(1000, "train x", every=0.01, stream=stream)
    lines._on_training_start()
    beats = threading.Event()
    for _ in range(500):  # no step happens meanwhile: the heartbeat alone prints
        if stream.getvalue().count("\n") >= 3:
            beats.set()
            break
        beats.wait(0.01)
    lines.set_status("last evaluation at 0: vs random 50%")
    lines._on_training_end()
    printed = stream.getvalue().splitlines()
    assert beats.is_set() and printed[0] == "train x: 0/1,000 steps (0%), 0 steps/s, eta ?"
    assert printed[-1].endswith(", last evaluation at 0: vs random 50%")


def test_load_goes_on_with_the_stored_recipe_and_appends(tmp_path, capsys) -> None:
    out = tmp_path / "run"
    common = ["--eval-games", "2", "--n-envs", "2", "--progress", "none"]
    assert (
        main(
            [
                "train",
                "tic_tac_toe",
                "--timesteps",
                "128",
                "--eval-every",
                "32",
                "--self-play",
                "latest",
                "--promote-at",
                "0",
                "--opponent",
                "random,random",
                "--reference",
                "random",
                "--interface",
                "flatten",
                "--out",
                str(out),
                *common,
            ]
        )
        == 0
    )
    first = read_csv(out / "evaluations.csv")
    assert "self-play pool: 6 members, 4 promotions" in capsys.readouterr().out  # random twice, 4 snapshots
    assert json.loads((out / "pool.json").read_text())[0]["name"].startswith("snapshot@")

    # Nothing but --load: the stored recipe (self-play, pool, interface, the fixed evaluation schedule:
    # every 32 steps, 2 games, where the recipe's would scale to 64), the snapshots back in the pool.
    assert (
        main(["train", "tic_tac_toe", "--load", str(out), "--timesteps", "128", "--n-envs", "2", "--progress", "none"])
        == 0
    )
    printed = capsys.readouterr().out
    assert "self-play pool: 10 members, 4 promotions" in printed  # 4 snapshots back, 4 new
    records = read_csv(out / "evaluations.csv")
    assert records[: len(first)] == first  # appended, not overwritten
    assert [r["timesteps"] for r in records] == [r["timesteps"] for r in first] + [160, 192, 224, 256]
    stored = json.loads((out / "recipe.json").read_text())
    assert (stored["fixed_eval_every"], stored["fixed_eval_games"]) == (32, 2)
    assert records[-1]["wall_s"] >= first[-1]["wall_s"]  # time counts on
    assert json.loads((out / "recipe.json").read_text())["self_play"] == "latest"

    # A flag overrides the stored recipe.
    assert main(["train", "tic_tac_toe", "--load", str(out), "--timesteps", "64", "--self-play", "off", *common]) == 0
    assert "opponent pool: 2 members, 0 promotions" in capsys.readouterr().out  # no snapshots, no self-play
    assert json.loads((out / "recipe.json").read_text())["self_play"] is None


def test_load_applies_algo_options_to_the_model_and_refuses_what_cannot_change(tmp_path, capsys) -> None:
    out = tmp_path / "run"
    common = [
        "--eval-games",
        "2",
        "--eval-every",
        "64",
        "--n-envs",
        "2",
        "--progress",
        "none",
        "--interface",
        "flatten",
    ]
    assert main(["train", "tic_tac_toe", "--timesteps", "64", "--out", str(out), *common]) == 0
    before = _stored_model(out)
    changes = {"learning_rate": 1.25e-4, "gamma": 0.875, "n_epochs": 3, "clip_range": 0.05}
    args = ["train", "tic_tac_toe", "--load", str(out), "--timesteps", "64", *common]
    assert main([*args, "--algo-options", json.dumps(changes)]) == 0
    model = _stored_model(out)
    assert {name: model["algo_options"][name] for name in changes} == changes  # the model's own values, saved
    assert model["optimizer_groups"][0]["lr"] == 1.25e-4
    assert before["algo_options"]["gamma"] != 0.875 and before["algo_options"]["learning_rate"] != 1.25e-4
    assert model["timesteps"] > before["timesteps"]
    stored = json.loads((out / "recipe.json").read_text())["algo_options"]
    assert {name: stored[name] for name in changes} == changes  # the record says what the model trained with

    capsys.readouterr()
    assert main([*args, "--algo-options", '{"learnin_rate": 0.001}']) != 0
    assert re.search(r"takes no option 'learnin_rate'; expected some of .*learning_rate", capsys.readouterr().err)
    assert main([*args, "--algo-options", '{"policy_kwargs": {"net_arch": [8]}}']) != 0
    assert "'policy_kwargs' cannot change on a trained model" in capsys.readouterr().err
    assert _stored_model(out)["timesteps"] == model["timesteps"]  # nothing trained or lost


def _stored_model(folder) -> dict:
    """The hyperparameters, optimizer groups and step count a folder's manifest keeps."""
    manifest = json.loads((folder / "agent.json").read_text())
    return {**manifest["training"], "timesteps": manifest["timesteps"]}


def test_a_folder_names_registered_interfaces_so_a_tournament_trusts_it(tmp_path, capsys) -> None:
    out = tmp_path / "ego"
    assert (
        main(
            [
                "train",
                "tic_tac_toe",
                "--timesteps",
                "32",
                "--eval-games",
                "2",
                "--n-envs",
                "1",
                "--progress",
                "none",
                "--interface",
                "interfaces.board:EgoBoard",
                "--out",
                str(out),
            ]
        )
        == 0
    )
    assert json.loads((out / "agent.json").read_text())["interface"] == "ego_board"
    command = capsys.readouterr().out.split("the folder is an agent: ")[1].strip()
    assert main([*shlex.split(command)[1:], "--games", "2", "--backend", "inline"]) == 0, capsys.readouterr().err
    # --load with the spelling it was trained with is the same interface
    assert (
        main(
            [
                "train",
                "tic_tac_toe",
                "--load",
                str(out),
                "--timesteps",
                "32",
                "--eval-games",
                "2",
                "--n-envs",
                "1",
                "--progress",
                "none",
                "--interface",
                "interfaces.board:EgoBoard",
            ]
        )
        == 0
    )
