"""The whole path in a few seconds: `arena train` with self-play, save, load as an agent, tournament."""

from __future__ import annotations

import argparse
import json

import pytest

pytest.importorskip("sb3_contrib")
pytest.importorskip("matplotlib")
pytest.importorskip("rich")

from arena.agent_wrapper import AgtItfWrapper  # noqa: E402
from arena.cli import main  # noqa: E402
from arena.registry import make_agent  # noqa: E402
from arena.tournament import AgentSpec, run_tournament  # noqa: E402
from arena.training.report import read_csv  # noqa: E402


def test_train_promote_save_load_and_play_a_tournament(tmp_path, capsys) -> None:
    import matplotlib.image

    out = tmp_path / "run"
    code = main(
        [
            "train",
            "tic_tac_toe",
            "--algo",
            "maskable-ppo",
            "--timesteps",
            "512",
            "--self-play",
            "latest",
            "--promote-at",
            "0",
            "--eval-every",
            "256",
            "--eval-games",
            "6",
            "--n-envs",
            "2",
            "--interface",
            "ego_board",
            "--out",
            str(out),
        ]
    )
    assert code == 0
    printed = capsys.readouterr()
    assert "trained maskable-ppo on tic_tac_toe for 512 timesteps" in printed.out
    assert "(batched path, 2 games)" in printed.out  # the fast path is the default where it can run
    assert "self-play pool: 3 members, 2 promotions" in printed.out
    assert "train tic_tac_toe" in printed.err  # the progress bar

    records = read_csv(out / "evaluations.csv")
    assert [r["timesteps"] for r in records] == [0, 256, 512]
    assert [r["promoted"] for r in records] == [0, 1, 1]
    assert all(0.0 <= r["random_win_rate"] <= 1.0 for r in records)
    height, width, _ = matplotlib.image.imread(out / "learning_curve.png").shape
    assert (width, height) == (700, 400)

    manifest = json.loads((out / "agent.json").read_text())
    assert manifest["format"] == "arena-agent" and manifest["interface"] == "ego_board"
    assert manifest["env"] == "tic_tac_toe" and manifest["timesteps"] == 512
    assert {"python", "arena-marl", "stable-baselines3", "torch"} <= set(manifest["versions"])
    agent = AgentSpec.parse(str(out)).build()
    assert isinstance(agent, AgtItfWrapper) and str(agent.interface) == "EgoBoard()"

    # The folder is the entrant: nothing else to say.
    result = run_tournament("tic_tac_toe", [str(out), "random"], games=8, seed=0)
    assert result.scheduled == len(result.games) == 8
    assert result.forfeits == [] and result.errors == []  # the trained agent never moved illegally
    assert result.pairings["run", "random"].games == 8

    # --out onto an existing folder refuses; --load continues (timesteps, optimizer state kept).
    assert main(["train", "tic_tac_toe", "--timesteps", "64", "--out", str(out), "--progress", "none"]) == 2
    assert f"--out {out} exists and is not empty; pass --force" in capsys.readouterr().err
    adam_steps = _adam_steps(out)
    code = main(
        [
            "train",
            "tic_tac_toe",
            "--load",
            str(out),
            "--timesteps",
            "256",
            "--eval-games",
            "2",
            "--n-envs",
            "2",
            "--progress",
            "none",
        ]
    )
    assert code == 0
    assert "for 768 timesteps" in capsys.readouterr().out
    assert _adam_steps(out) > adam_steps  # Adam went on counting: half the timesteps alone would give fewer steps
    assert json.loads((out / "agent.json").read_text())["timesteps"] == 768
    assert main(["train", "tic_tac_toe", "--load", str(out), "--algo", "ppo", "--progress", "none"]) == 2
    assert "the run was trained with --algo 'maskable-ppo' (got 'ppo')" in capsys.readouterr().err


def _adam_steps(folder) -> float:
    """The step count in the saved optimizer state of the folder's model."""
    from safetensors.torch import load_file

    optimizer = json.loads((folder / "agent.json").read_text())["training"]["optimizer"]
    state = load_file(folder / optimizer)
    return float(state["0.step"])


def test_a_model_without_its_interface_fails_at_load_not_in_games(tmp_path) -> None:
    import envs
    from arena.errors import ArenaError
    from arena.training import load_sb3_agent

    out = tmp_path / "flat"
    assert (
        main(
            [
                "train",
                "tic_tac_toe",
                "--timesteps",
                "64",
                "--eval-games",
                "2",
                "--n-envs",
                "1",
                "--progress",
                "none",
                "--interface",
                "flatten(ego_board)",
                "--sb3-zip",  # SB3's own zip beside the folder's weights, for load_sb3_agent
                "--out",
                str(out),
            ]
        )
        == 0
    )
    with pytest.raises(ArenaError, match=r"the policy was trained on observations Box\(-1.0, 1.0, \(9,\), float32\)"):
        load_sb3_agent(out / "model.zip", env=envs.make("tic_tac_toe"))
    manifest = json.loads((out / "agent.json").read_text())
    (out / "agent.json").write_text(json.dumps({**manifest, "interface": None, "interface_state": None}))
    with pytest.raises(ArenaError, match=r"trained agent '.*flat' does not fit <TicTacToe> seat 'player_0'"):
        AgentSpec.parse(str(out)).build()


def test_train_against_a_fixed_opponent_with_plain_ppo_on_dict_observations(tmp_path, capsys) -> None:
    import envs
    from arena import RandomAgent, play

    out = tmp_path / "ppo"
    code = main(
        [
            "train",
            "connect_four",
            "--algo",
            "ppo",
            "--timesteps",
            "256",
            "--eval-games",
            "2",
            "--eval-every",
            "256",
            "--n-envs",
            "1",
            "--progress",
            "none",
            "--reference",
            "random,connect_four_heuristic",
            "--self-play",
            "off",
            "--opponent",
            "random",  # the flags override connect four's self-play recipe
            "--interface",
            "action_mask_in_observation",
            "--sb3-zip",
            "--out",
            str(out),
        ]
    )
    assert code == 0
    records = read_csv(out / "evaluations.csv")
    assert "pool_size" not in records[0] and records[-1]["timesteps"] == 256
    assert {"random_win_rate", "connect_four_heuristic_win_rate"} <= set(records[0])
    assert "vs connect_four_heuristic: win rate" in capsys.readouterr().out
    agent = make_agent(
        "arena.training:load_sb3_agent",
        path=str(out / "model.zip"),
        algo="ppo",
        interface="interfaces.observation:ActionMaskInObservation",
    )
    assert str(agent) == "AgtItfWrapper(ppo:model.zip, ActionMaskInObservation())"
    assert type(agent.agent.policy).__name__ == "MultiInputActorCriticPolicy"
    assert play(envs.make("connect_four"), [agent, RandomAgent()], seed=1).length >= 7


@pytest.mark.parametrize(
    "argv,message",
    [
        (["--algo", "trpo"], "unknown algorithm 'trpo'; expected one of maskable-ppo, ppo, a2c, dqn"),
        (["--algo-options", "{oops"], "--algo-options must be a JSON object, got '{oops'"),
        (["--timesteps", "0"], "--timesteps must be at least 1, got 0"),
        (["--interface", "ego"], "unknown interface 'ego'; known interfaces: "),
    ],
)
def test_bad_input_exits_2_with_a_reason(tmp_path, capsys, argv: list[str], message: str) -> None:
    assert main(["train", "tic_tac_toe", "--out", str(tmp_path), *argv]) == 2
    assert message in capsys.readouterr().err


def test_unknown_env_names_the_known_ones(tmp_path, capsys) -> None:
    assert main(["train", "chess", "--out", str(tmp_path)]) == 2
    assert "unknown env 'chess'" in capsys.readouterr().err


def test_the_path_is_chosen_from_what_the_run_trains(tmp_path, capsys) -> None:
    import envs
    from arena import RandomAgent
    from arena.training.vectorised import choose_path
    from interfaces.history import FrameStack

    c4 = envs.make("connect_four")
    assert choose_path(c4, "maskable-ppo", RandomAgent(), None) == "batched"
    assert choose_path(c4, "ppo", RandomAgent(), None) == "single"  # no masks: the batch enforces them
    assert choose_path(envs.make("kuhn_poker"), "maskable-ppo", RandomAgent(), None) == "single"  # turns, no batch
    # no batch, every agent acts at once: a worker batch of single envs (tests/arena/training/test_seat_workers.py)
    assert choose_path(envs.make("soccer"), "ppo", RandomAgent(), None) == "workers"
    # a stack with per-episode state trains on the batch: its state is kept per game slot
    assert FrameStack(frames=2).stateful
    assert choose_path(c4, "maskable-ppo", RandomAgent(), FrameStack(frames=2)) == "batched"
    assert main(["train", "kuhn_poker", "--timesteps", "64", "--eval-games", "2", "--out", str(tmp_path / "k")]) == 0
    printed = capsys.readouterr().out
    assert "(single path, 4 games)" in printed
    # and why: no batch of its own, and turns, which a worker batch of single envs does not take
    assert "  (single path: <KuhnPoker> has no batch (make_batch); <KuhnPoker> is turn-based" in printed
    assert main(["train", "connect_four", "--timesteps", "64", "--eval-games", "2", "--out", str(tmp_path / "c")]) == 0
    assert "(batched path, 64 games)" in capsys.readouterr().out


def test_the_path_flag_is_gone_and_says_what_to_write_instead(capsys) -> None:
    from arena.cli import build_parser

    subparsers = next(a for a in build_parser()._actions if isinstance(a, argparse._SubParsersAction))
    assert "--path" not in subparsers.choices["train"].format_help()
    for flag in (["--path", "side"], ["--path=batched"]):
        with pytest.raises(SystemExit) as stopped:
            main(["train", "soccer", *flag, "--out", "never"])
        assert stopped.value.code == 2
        assert "--path was removed: use --control shared for one policy in every seat of its side" in (
            capsys.readouterr().err
        )


def test_the_folder_plays_in_arena_play_and_force_writes_over_it(tmp_path, monkeypatch, capsys) -> None:
    import io
    import sys

    out = tmp_path / "ttt"
    train = [
        "train",
        "tic_tac_toe",
        "--timesteps",
        "64",
        "--eval-games",
        "2",
        "--n-envs",
        "1",
        "--progress",
        "none",
        "--interface",
        "flatten(ego_board)",
        "--out",
        str(out),
    ]
    assert main(train) == 0
    capsys.readouterr()
    assert main(["play", "tic_tac_toe", "--agents", f"{out},random", "--seed", "3"]) == 0
    printed = capsys.readouterr().out
    assert f"player_0 ({out})" in printed and "result: " in printed and "forfeit" not in printed
    monkeypatch.setattr(sys, "stdin", io.StringIO("0\n1\n2\n3\n4\n5\n6\n7\n8\n"))
    assert main(["play", "tic_tac_toe", "--human", "player_0", "--vs", str(out), "--seed", "3"]) in (0, 3)
    assert f"player_1 ({out})" in capsys.readouterr().out
    # --force writes a new run into the folder: a fresh count, the new interface
    assert main([*train[:-2], "--interface", "ego_board", "--out", str(out), "--force"]) == 0
    manifest = json.loads((out / "agent.json").read_text())
    assert manifest["timesteps"] == 64 and manifest["interface"] == "ego_board"


def test_load_continues_the_statistics_of_a_stateful_interface(tmp_path) -> None:
    out = tmp_path / "norm"
    base = ["--timesteps", "256", "--eval-games", "2", "--n-envs", "2", "--progress", "none"]
    assert (
        main(
            [
                "train",
                "tic_tac_toe",
                *base,
                "--interface",
                "normalize_observation(flatten(ego_board))",
                "--out",
                str(out),
            ]
        )
        == 0
    )
    before = _statistics_count(out)
    assert main(["train", "tic_tac_toe", "--load", str(out), *base]) == 0
    after = _statistics_count(out)
    assert after > before + 200  # the continued run added its observations to the trained statistics


def _statistics_count(folder) -> float:
    """How many observations the folder's normalize_observation level (index 2 from the root) has seen."""
    name = json.loads((folder / "agent.json").read_text())["interface_state"]
    return json.loads((folder / name).read_text())["2"]["count"]


def test_batched_path_defaults_to_the_recipe_and_several_opponents_make_a_pool(tmp_path, capsys) -> None:
    import torch

    from arena.training import SB3Agent
    from arena.training.recipe import BATCHED_RECIPE, default_algo_options

    options = default_algo_options("maskable-ppo", 100_000, 64, "batched")
    assert options == {
        "n_steps": 32,
        "batch_size": 1024,
        "n_epochs": 4,
        "learning_rate": 3e-4,
        "ent_coef": 0.01,
        "gamma": 0.99,
        "policy_kwargs": {"net_arch": [128, 128]},
    }
    assert BATCHED_RECIPE["n_envs"] * options["n_steps"] == 2048  # samples per update, as the single path's
    assert default_algo_options("maskable-ppo", 100_000, 2, "batched")["batch_size"] == 64  # one rollout at most
    assert "net_arch" not in str(default_algo_options("maskable-ppo", 100_000, 4, "single"))

    out = tmp_path / "pool"
    code = main(
        [
            "train",
            "connect_four",
            "--timesteps",
            "128",
            "--n-envs",
            "2",
            "--eval-games",
            "4",
            "--opponent",
            "random,connect_four_heuristic,connect_four_heuristic",
            "--self-play",
            "off",
            "--progress",
            "none",
            "--out",
            str(out),
        ]
    )
    assert code == 0, capsys.readouterr().err
    printed = capsys.readouterr().out
    assert "(batched path, 2 games)" in printed and "opponent pool: 3 members, 0 promotions" in printed
    assert "pool_score" in read_csv(out / "evaluations.csv")[0]  # evaluated against the pool, never promoted
    agent = AgentSpec.parse(str(out)).build()
    policy = agent.agent.policy if isinstance(agent, AgtItfWrapper) else agent.policy
    assert isinstance(agent, (AgtItfWrapper, SB3Agent))
    widths = [layer.out_features for layer in policy.mlp_extractor.policy_net if isinstance(layer, torch.nn.Linear)]
    assert widths == [128, 128]
