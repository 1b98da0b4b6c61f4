"""`arena train pommerman` in team mode trains on the batch (the recipe's own vectorised env, the "env" path)."""

from __future__ import annotations

import json

import numpy as np
import pytest

pytest.importorskip("sb3_contrib")
pytest.importorskip("matplotlib")

from sb3_contrib import MaskablePPO  # noqa: E402

from arena import AgtItfWrapper, make_agent, make_env  # noqa: E402
from arena.cli import main  # noqa: E402
from arena.errors import PluginError, UnknownNameError, UntrustedCodeError  # noqa: E402
from arena.specs.interfaces import build_interface  # noqa: E402
from arena.training import OpponentPool, SB3Agent, TrainingRecipe  # noqa: E402
from arena.training.recipe import recipe_for  # noqa: E402
from arena.training.vectorised import choose_path, own_vec_env  # noqa: E402
from envs.pommerman.recipe import TEAM_ALGO_OPTIONS, team_interface  # noqa: E402
from envs.pommerman.training import team_vec_env  # noqa: E402
from interfaces.pommerman import PommermanBatchPlanes, PommermanFeatures  # noqa: E402
from interfaces.pommerman_safety import PommermanSafeMoves, safe_moves_planes  # noqa: E402

SHORT = {"mode": "team", "max_steps": 60}


def test_the_team_command_trains_on_the_batch_and_its_folder_plays_a_tournament(tmp_path, capsys) -> None:
    out = tmp_path / "team"
    argv = ["train", "pommerman", "--env-options", json.dumps(SHORT), "--timesteps", "256", "--n-envs", "2"]
    argv += [
        "--eval-games",
        "2",
        "--self-play",
        "uniform",
        "--promote-at",
        "0",
        "--progress",
        "none",
        "--out",
        str(out),
    ]
    argv += ["--algo-options", '{"n_steps": 32, "batch_size": 64, "n_epochs": 1}']
    assert main(argv) == 0, capsys.readouterr().err
    printed = capsys.readouterr().out
    assert "(env path, 2 games)" in printed  # the batch, not one SingleAgentEnv per game
    assert "self-play pool: 3 members, 2 promotions" in printed  # snapshots joined the batch's opponents
    manifest = json.loads((out / "agent.json").read_text())
    assert manifest["interface"] == team_interface(60)  # the single env's way to the batch's planes
    extractor = manifest["policy"]["kwargs"]["features_extractor_class"]
    assert extractor == {"$class": "envs.pommerman.policy:PlanesCNN"}  # named by its package path, as JSON

    agents = f"ppo={out}+{out},simple=pommerman_simple+pommerman_simple"
    results = tmp_path / "results.db"
    tournament = ["tournament", "pommerman", "--env-options", json.dumps(SHORT), "--agents", agents]
    tournament += ["--games", "2", "--backend", "inline", "--db", str(results)]
    assert main(tournament) == 0, capsys.readouterr().err
    assert "2 of 2 games stored" in capsys.readouterr().out


def test_the_action_filter_masks_reach_maskable_ppo_and_snapshots_act_in_one_forward() -> None:
    stack = build_interface(team_interface(60))
    learner_view = PommermanBatchPlanes(PommermanSafeMoves(), ego=True, max_steps=60)
    model_env = team_vec_env("pommerman", 2, make_agent("pommerman_simple"), interface=stack, env_options=SHORT)
    kwargs = dict(TEAM_ALGO_OPTIONS["policy_kwargs"])
    from envs.pommerman.policy import PlanesCNN

    kwargs["features_extractor_class"] = PlanesCNN
    kwargs["features_extractor_kwargs"] = {"features_dim": 32}
    model = MaskablePPO("MlpPolicy", model_env, n_steps=16, batch_size=32, n_epochs=1, seed=0, policy_kwargs=kwargs)

    calls: list[int] = []
    snapshot = SB3Agent(model.policy, deterministic=False, seed=0)
    act_batch = snapshot.act_batch

    def counted(views, masks=None):
        calls.append(len(views))
        assert masks is not None and (masks == safe_moves_planes(views)).all()  # behind the filter, as the learner
        return act_batch(views, masks)

    snapshot.act_batch = counted  # type: ignore[method-assign]
    pool = OpponentPool([make_agent("pommerman_simple")], strategy="latest")
    pool.add(AgtItfWrapper(snapshot, learner_view), name="snapshot@0")
    model_env.env_method("set_opponents", pool)  # what PromotionCallback.promote does
    model_env.seed(0)
    model.learn(64)
    buffer = model.rollout_buffer
    views = buffer.observations.reshape(-1, 22, 11, 11).astype(np.uint8)
    masks = buffer.action_masks.reshape(-1, 6).astype(bool)
    assert (masks == safe_moves_planes(views).astype(bool)).all()  # each slot's filter, as MaskablePPO stored it
    assert not masks.all()  # and the filter forbade something in these games
    assert calls and max(calls) <= 4  # one call a step for both enemy seats of both games


def not_a_vec_env(env, num_games, opponents, *, interface, env_options):
    return [env, num_games]


def test_the_hook_refuses_bad_input_with_clear_errors() -> None:
    with pytest.raises(TypeError, match=r"vec_env must name a registered vectorised env factory .* got 3"):
        TrainingRecipe(vec_env=3)  # type: ignore[arg-type]
    with pytest.raises(UnknownNameError, match="registered in arena.vec_envs: .*pommerman_team"):
        own_vec_env("pommerman_teams", "pommerman", 2, None, interface=None, env_options=SHORT)
    with pytest.raises(PluginError, match="must return a Stable-Baselines3 VecEnv, got list"):
        own_vec_env(f"{__name__}:not_a_vec_env", "pommerman", 2, None, interface=None, env_options=SHORT)
    with pytest.raises(UntrustedCodeError):  # a loaded run's recipe is data: only registered names
        own_vec_env(f"{__name__}:not_a_vec_env", "pommerman", 2, None, interface=None, env_options={}, from_data="x")

    simple = make_agent("pommerman_simple")
    stack = build_interface(team_interface(60))
    with pytest.raises(ValueError, match="trains Pommerman's team mode.* got mode 'ffa'"):
        team_vec_env("pommerman", 2, simple, interface=stack, env_options={"max_steps": 60})
    with pytest.raises(ValueError, match="needs a stack topped by pommerman_batch_planes"):
        team_vec_env("pommerman", 2, simple, interface=build_interface("pommerman_features"), env_options=SHORT)
    with pytest.raises(ValueError, match="cannot run PommermanLegalMoves"):
        spec = "pommerman_batch_planes(pommerman_legal_moves, ego=true, max_steps=60)"
        team_vec_env("pommerman", 2, simple, interface=build_interface(spec), env_options=SHORT)
    with pytest.raises(ValueError, match="max_steps=800; the batch gives ego=True, max_steps=60"):
        team_vec_env("pommerman", 2, simple, interface=build_interface(team_interface()), env_options=SHORT)
    features_player = AgtItfWrapper(make_agent("random"), PommermanFeatures())
    with pytest.raises(ValueError, match=r"cannot play AgtItfWrapper\(RandomAgent, .* on the batch"):
        team_vec_env("pommerman", 2, features_player, interface=stack, env_options=SHORT)

    # A teammate beside a one-seat learner is not what the team trainer trains: one game at a time.
    team = make_env("pommerman", **SHORT)
    assert choose_path(team, "maskable-ppo", [simple], None, vec_env="pommerman_team") == "env"
    assert choose_path(team, "maskable-ppo", [simple], None, teammate="pommerman_simple", vec_env="pommerman_team") == (
        "single"
    )
    assert recipe_for("pommerman", SHORT).vec_env == "pommerman_team"
