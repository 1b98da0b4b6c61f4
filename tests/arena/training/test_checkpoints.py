"""Checkpoints: a Ctrl-C saves a folder that ``--load`` continues and a tournament plays; periodic saves
survive a kill; the second Ctrl-C and the saves in between."""

from __future__ import annotations

import json
import os
import signal
import sys
import time
from pathlib import Path

import pytest

pytest.importorskip("sb3_contrib")
pytest.importorskip("matplotlib")

from arena.cli import main  # noqa: E402
from arena.tournament import Execution, run_tournament  # noqa: E402
from arena.training.checkpoints import FolderCheckpoints, Interrupt  # noqa: E402
from arena.training.report import read_csv  # noqa: E402
from arena.training.trained import load_trained_agent, read_manifest  # noqa: E402
from tests.faults.helpers import finish, start_cli  # noqa: E402

# A hang guard, far above what these tiny runs need on a loaded box; nothing is timed.
_WAIT = 120.0
_TINY = ["--eval-every", "128", "--eval-games", "2", "--n-envs", "2", "--interface", "ego_board", "--progress", "none"]


def _wait_for(process, ready) -> None:
    """Poll until ``ready()`` (the run got that far) or fail, showing what the run printed."""
    deadline = time.monotonic() + _WAIT
    while not ready():
        if process.poll() is not None or time.monotonic() > deadline:
            os.killpg(process.pid, signal.SIGKILL)
            out, err = process.communicate()
            raise AssertionError(f"the run ended or hung before it got there (rc {process.returncode})\n{out}\n{err}")
        time.sleep(0.1)


def _evaluated_past_the_start(folder: Path):
    def ready() -> bool:
        try:
            return any(record["timesteps"] >= 128 for record in read_csv(folder / "evaluations.csv"))
        except (OSError, KeyError):
            return False

    return ready


def test_ctrl_c_saves_a_folder_that_load_continues_and_a_tournament_plays(tmp_path, capsys) -> None:
    out = tmp_path / "run"
    # No periodic checkpoint: whatever agent.json the folder gets comes from the Ctrl-C.
    process = start_cli(
        "train", "tic_tac_toe", "--timesteps", "1000000", "--out", str(out), "--checkpoint-every", "0", *_TINY
    )
    _wait_for(process, _evaluated_past_the_start(out))
    assert not (out / "agent.json").exists()
    process.send_signal(signal.SIGINT)
    done = finish(process)

    assert done.returncode == 130, done.stderr
    assert "arena train: interrupted; stopping at the next step to save" in done.stderr
    assert "Traceback" not in done.stderr
    manifest = read_manifest(out)
    stopped_at = manifest["timesteps"]
    assert 128 <= stopped_at < 1_000_000
    assert f"interrupted maskable-ppo on tic_tac_toe at {stopped_at:,} of 1,000,000 timesteps" in done.stdout
    assert "  vs random: win rate " in done.stdout and " over 2 games: " in done.stdout
    continuing = f"continue training: arena train tic_tac_toe --load {out} --timesteps {1_000_000 - stopped_at}"
    assert continuing in done.stdout
    assert f"the folder is an agent: arena tournament tic_tac_toe --agents {out},random" in done.stdout
    before = read_csv(out / "evaluations.csv")
    assert not any(name.endswith(".partial") for name in os.listdir(out))

    # The printed command goes on from the saved count (fewer timesteps here: the test is short).
    assert main(["train", "tic_tac_toe", "--load", str(out), "--timesteps", "64", "--progress", "none"]) == 0
    assert read_manifest(out)["timesteps"] >= stopped_at + 64
    after = read_csv(out / "evaluations.csv")
    assert after[: len(before)] == before and after[-1]["timesteps"] >= stopped_at + 64
    assert "trained maskable-ppo on tic_tac_toe" in capsys.readouterr().out

    result = run_tournament("tic_tac_toe", [str(out), "random"], games=4, seed=0, execution=Execution.make("inline"))
    assert len(result.games) == 4 and result.forfeits == [] and result.errors == []


def test_periodic_checkpoints_leave_a_loadable_folder_when_the_run_is_killed(tmp_path) -> None:
    out = tmp_path / "run"
    process = start_cli("train", "tic_tac_toe", "--timesteps", "1000000", "--out", str(out), *_TINY)
    _wait_for(process, lambda: (out / "agent.json").exists())  # the first checkpoint: at the evaluation at 128
    os.killpg(process.pid, signal.SIGKILL)
    finish(process)

    manifest = read_manifest(out)
    assert manifest["timesteps"] >= 128
    assert json.loads((out / "recipe.json").read_text())["fixed_eval_every"] == 128
    records = read_csv(out / "evaluations.csv")
    assert records[0]["timesteps"] == 0 and records[-1]["timesteps"] >= 128
    load_trained_agent(out)  # the model is the one the manifest names (its SHA-256 checked)


def test_a_run_checkpoints_every_n_timesteps_and_at_the_end(tmp_path, monkeypatch) -> None:
    import tempfile

    from arena.tournament.stats import wilson_interval
    from arena.training import TrainingConfig, recipe_for
    from arena.training.recipe import MIN_EVAL_GAMES
    from arena.training.run import train

    config = TrainingConfig(
        "tic_tac_toe",
        timesteps=256,
        out=tmp_path / "run",
        overrides={"n_envs": 2, "fixed_eval_every": 128},
        progress="none",
        checkpoint_every=64,
    )
    scratch = tmp_path / "tmp"
    scratch.mkdir()
    monkeypatch.setattr(tempfile, "tempdir", str(scratch))  # SB3's default logger folder would go here
    monkeypatch.delenv("SB3_LOGDIR", raising=False)
    run = train(config)
    assert not list(scratch.glob("SB3-*"))  # SB3's default logger made a folder per learn()
    assert run.checkpoints == [64, 128, 192, 256, 256]  # the last one at the end, with the last evaluation
    assert not run.interrupted
    # A short run's evaluations play MIN_EVAL_GAMES, its last (the reported one) the recipe's full count.
    records = read_csv(tmp_path / "run" / "evaluations.csv")
    assert [r["random_games"] for r in records] == [
        MIN_EVAL_GAMES,
        MIN_EVAL_GAMES,
        recipe_for("tic_tac_toe").eval_games,
    ]
    for record in records:
        wins = round(record["random_win_rate"] * record["random_games"])
        low, high = wilson_interval(wins, record["random_games"])
        assert (record["random_win_low"], record["random_win_high"]) == (round(low, 4), round(high, 4))
    assert f"over {recipe_for('tic_tac_toe').eval_games} games: " in run.summary()[1]
    assert TrainingConfig("tic_tac_toe", out="x", checkpoint_every=0).checkpoint_every == 0
    with pytest.raises(ValueError, match="--checkpoint-every must be a number of timesteps, 0 or more, got -1"):
        TrainingConfig("tic_tac_toe", out="x", checkpoint_every=-1)


class _Model:
    """What a callback reads of an SB3 model, no more."""

    num_timesteps = 0
    logger = None

    def get_env(self):
        return None


def test_the_second_ctrl_c_stops_at_once_but_never_inside_a_save() -> None:
    saves: list[int] = []
    model = _Model()
    with Interrupt(stream=sys.stdout) as interrupt:
        callback = FolderCheckpoints(lambda: saves.append(model.num_timesteps), every=10, interrupt=interrupt)
        callback.init_callback(model)
        callback.on_training_start({}, {})
        model.num_timesteps = 10
        assert callback.on_step() and saves == [10]
        model.num_timesteps = 15
        assert callback.on_step() and saves == [10]
        os.kill(os.getpid(), signal.SIGINT)  # the first: a request, training ends at the next step
        assert interrupt.requested and not callback.on_step()
        with pytest.raises(KeyboardInterrupt):  # the second: at once
            os.kill(os.getpid(), signal.SIGINT)

        def save_interrupted() -> None:
            os.kill(os.getpid(), signal.SIGINT)
            saves.append(-1)  # the save goes on to its end

        callback.save = save_interrupted
        with pytest.raises(KeyboardInterrupt):  # raised once the save is done
            callback.checkpoint()
        assert saves == [10, -1]
    assert signal.getsignal(signal.SIGINT) is signal.default_int_handler


def test_checkpoints_need_a_positive_interval() -> None:
    with pytest.raises(ValueError, match="every must be a positive number of timesteps or None, got 0"):
        FolderCheckpoints(lambda: None, every=0)


def test_an_out_folder_without_an_agent_is_not_offered_to_load(tmp_path, capsys) -> None:
    out = tmp_path / "run"
    out.mkdir()
    (out / "evaluations.csv").write_text("timesteps\n0\n")
    assert main(["train", "tic_tac_toe", "--timesteps", "64", "--out", str(out), "--progress", "none"]) == 2
    err = capsys.readouterr().err
    assert f"--out {out} exists and is not empty, and holds no trained agent (agent.json) to continue" in err
    assert "--load" not in err
