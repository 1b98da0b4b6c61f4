"""A shared side on MuJoCo soccer (a worker batch on the one trainer): the recipe's stateful stack, a copy per
walker, random forces for the other side."""

from __future__ import annotations

import json

import numpy as np
import pytest

pytest.importorskip("dm_control")
pytest.importorskip("stable_baselines3")

from arena.cli import main  # noqa: E402
from arena.registry import make_agent  # noqa: E402
from arena.specs.interfaces import build_interface  # noqa: E402
from arena.training.matches import match_sides  # noqa: E402
from arena.training.vectorised import batch_vec_env  # noqa: E402

_SHORT = {"team_size": 2, "time_limit": 0.25}
_STACK = "rescale_action(normalize_observation(soccer_features(soccer_shaping(ball=0.1, goal=0.3), relative=true)))"


def test_every_walker_of_a_side_is_a_slot_with_its_own_shaping_stack() -> None:
    venv = batch_vec_env(
        "soccer",
        2,
        "random",
        env_kwargs=_SHORT,
        interface=build_interface(_STACK),
        team=True,
        member_done=True,
        num_workers=0,
    )
    stacks = venv.get_attr("interface")
    assert venv.num_envs == 4 and len({id(stack) for stack in stacks}) == 4
    venv.seed(0)
    observations = venv.reset()
    assert observations.shape == (4, *venv.observation_space.shape)
    shaped = []
    for _ in range(12):  # past the end of a 10-step game: every slot done once, the games restart
        observations, rewards, dones, infos = venv.step(np.zeros((4, *venv.action_space.shape), np.float32))
        assert all(venv.observation_space.contains(o) for o in observations)
        shaped.append(rewards)
        if dones.any():
            assert dones.all() and all(info["TimeLimit.truncated"] for info in infos)
    # Standing still, the walkers' shaping still pays (the ball rolls, the walkers settle): rewards differ from 0.
    assert np.any(np.stack(shaped) != 0)


def test_random_forces_act_for_a_whole_side_and_a_stateful_learner_plays_a_copy_per_seat() -> None:
    import envs
    from arena.agent_wrapper import AgtItfWrapper

    env = envs.make("soccer", **_SHORT)
    learner = AgtItfWrapper(make_agent("random"), build_interface(_STACK))
    assert not learner.batchable  # the stack keeps per-episode state: one copy per seat
    score = match_sides(env, learner, make_agent("random"), 2, seed=0)
    assert len(score.outcomes) == 2 and all(o in (0.0, 0.5, 1.0) for o in score.outcomes)


def test_arena_train_soccer_on_a_shared_side_drops_the_recipes_teammate(tmp_path, capsys) -> None:
    out = tmp_path / "side"
    argv = ["train", "soccer", "--timesteps", "64", "--n-envs", "1", "--progress", "none"]
    argv += ["--env-options", json.dumps(_SHORT), "--eval-games", "2", "--out", str(out)]
    argv += ["--algo-options", '{"n_steps": 16, "batch_size": 16}']
    assert main(argv) == 0
    printed = capsys.readouterr().out
    assert "(workers path, 1 games)" in printed
    assert f"--agents {out},random" in printed  # the folder plays its whole side, no teammate beside it
    assert json.loads((out / "recipe.json").read_text())["teammate"] is None
    assert main([*argv[:-2], "--force", "--control", "shared", "--teammate", "random"]) != 0
    assert "with --control shared the model plays every seat of its side" in capsys.readouterr().err


def test_the_recipes_shared_side_yields_to_a_teammate_or_a_side_model(capsys) -> None:
    from arena.training import TrainingConfig

    shared = TrainingConfig("soccer", out="x").recipe()
    assert (shared.control, shared.teammate) == ("shared", None)
    beside = TrainingConfig("soccer", out="x", overrides={"teammate": "random"}).recipe()
    assert (beside.control, beside.teammate) == ("seat", "random")
    whole = TrainingConfig("soccer", out="x", overrides={"control": "team"}).recipe()
    assert (whole.control, whole.teammate) == ("team", None)
