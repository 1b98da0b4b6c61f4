"""`arena train pommerman` in team mode trains on the one batched trainer: the shipped stack, and a user's levels around it."""

from __future__ import annotations

import json

import numpy as np
import pytest

pytest.importorskip("sb3_contrib")
pytest.importorskip("matplotlib")

from sb3_contrib import MaskablePPO  # noqa: E402

from arena import (  # noqa: E402
    AgtItfWrapper,
    Interface,  # noqa: E402
    make_agent,
    make_env,
)
from arena.cli import main  # noqa: E402
from arena.specs.interfaces import build_interface  # noqa: E402
from arena.training import OpponentPool, SB3Agent  # noqa: E402
from arena.training.batched import BatchVecEnv  # noqa: E402
from arena.training.recipe import recipe_for  # noqa: E402
from arena.training.vectorised import choose_path  # noqa: E402
from envs.pommerman.planes import SELF  # noqa: E402
from envs.pommerman.recipe import TEAM_ALGO_OPTIONS, team_interface  # noqa: E402
from interfaces.pommerman_safety import safe_moves_planes  # noqa: E402

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
    assert "(batched path, 2 games)" in printed  # the one batched trainer, not one SingleAgentEnv per game
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


class HalfReward(Interface):
    """A user's level, written per game only."""

    def reward(self, reward):
        return 0.5 * reward


class StayPenalty(Interface):
    """A user's shaping that reads the observation (the planes, on one game and on the batch): a small
    penalty each time the agent's cell did not change, per-episode state kept by the level."""

    def reset(self, observation):
        self.previous, self.owed = None, 0.0

    def observation(self, observation):
        here = np.asarray(observation)[SELF]
        if self.previous is not None and here.any() and (here == self.previous).all():
            self.owed -= 0.01
        self.previous = here.copy()
        return observation

    def reward(self, reward):
        reward, self.owed = reward + self.owed, 0.0
        return reward


def test_the_team_command_trains_a_users_per_game_levels_around_the_shipped_stack(tmp_path, capsys) -> None:
    # issue 46's first acceptance, as a user types it: levels from their own module, no --path
    here = "tests.envs.test_pommerman_team_training"
    spec = f"{here}:HalfReward({here}:StayPenalty({team_interface(60)}))"
    out = tmp_path / "user"
    argv = ["train", "pommerman", "--env-options", json.dumps(SHORT), "--timesteps", "128", "--n-envs", "2"]
    argv += ["--eval-games", "2", "--progress", "none", "--interface", spec, "--out", str(out)]
    argv += ["--algo-options", '{"n_steps": 32, "batch_size": 64, "n_epochs": 1}']
    assert main(argv) == 0, capsys.readouterr().err
    assert "(batched path, 2 games)" in capsys.readouterr().out
    assert json.loads((out / "agent.json").read_text())["interface"] == spec


def test_a_stack_that_cannot_read_the_batchs_planes_trains_one_game_at_a_time() -> None:
    # pommerman_features reads the single env's dict; the batch shows planes, so the run is not sent there
    from arena.training.vectorised import batch_reasons

    team, stack = make_env("pommerman", **SHORT), build_interface("pommerman_features")
    reasons = batch_reasons(team, stack)
    assert len(reasons) == 1 and "Box(22, 11, 11)" in reasons[0] and "reads the batch's view" in reasons[0]
    assert choose_path(team, "maskable-ppo", [make_agent("random")], stack) == "single"
    assert choose_path(team, "maskable-ppo", [make_agent("random")], stack, control="shared") == "workers"
    assert batch_reasons(team, build_interface(team_interface(60))) == []  # the planes level reads it


def test_a_batch_the_env_refuses_is_a_reason_in_its_own_words() -> None:
    from arena.training.vectorised import batch_reasons

    frames = make_env("pong_2p", observation="frame")
    (reason,) = batch_reasons(frames, None)
    assert "makes no batch here" in reason and "observation='vector'" in reason
    assert choose_path(frames, "maskable-ppo", [make_agent("random")], None) == "single"


def _cnn_kwargs():
    from envs.pommerman.policy import PlanesCNN

    kwargs = dict(TEAM_ALGO_OPTIONS["policy_kwargs"])
    kwargs["features_extractor_class"] = PlanesCNN
    kwargs["features_extractor_kwargs"] = {"features_dim": 32}
    return kwargs


def test_a_users_per_game_levels_around_the_shipped_stack_train_on_the_batch() -> None:
    stack = HalfReward(StayPenalty(build_interface(team_interface(60))))
    simple = make_agent("pommerman_simple")
    team = make_env("pommerman", **SHORT)
    assert choose_path(team, "maskable-ppo", [simple], stack, control="shared") == "batched"  # no refusal
    venv = BatchVecEnv("pommerman", 2, simple, team=True, interface=stack, env_kwargs=SHORT)
    assert venv.batch.ego and venv.num_envs == 4  # the stack's planes level asked for the ego batch
    model = MaskablePPO("MlpPolicy", venv, n_steps=32, batch_size=64, n_epochs=1, seed=0, policy_kwargs=_cnn_kwargs())
    venv.seed(0)
    model.learn(128)
    rewards = model.rollout_buffer.rewards
    assert (rewards < 0).any()  # the user's shaping reached the learner
    stacks = venv.get_attr("interface")
    assert all(isinstance(each, HalfReward) for each in stacks) and len({id(each) for each in stacks}) == 4


def test_pommerman_simple_and_snapshots_play_the_batch_as_opponents() -> None:
    stack = build_interface(team_interface(60))
    venv = BatchVecEnv("pommerman", 2, make_agent("pommerman_simple"), team=True, interface=stack, env_kwargs=SHORT)
    model = MaskablePPO("MlpPolicy", venv, n_steps=16, batch_size=32, n_epochs=1, seed=0, policy_kwargs=_cnn_kwargs())
    calls: list[int] = []
    filtered: list[bool] = []
    snapshot = SB3Agent(model.policy, deterministic=False, seed=0)
    act_batch = snapshot.act_batch

    def counted(views, masks=None):
        calls.append(len(views))
        # the batch sends no masks: the snapshot's filter masks its moves, as in a tournament
        filtered.append(masks is not None and bool((np.asarray(masks) == safe_moves_planes(views)).all()))
        return act_batch(views, masks)

    snapshot.act_batch = counted  # type: ignore[method-assign]
    pool = OpponentPool([make_agent("pommerman_simple")], strategy="uniform")
    pool.add(AgtItfWrapper(snapshot, build_interface(team_interface(60))), name="snapshot@0")
    venv.env_method("set_opponents", pool)  # what PromotionCallback.promote does
    venv.seed(0)
    model.learn(96)
    assert calls and max(calls) <= 4  # one forward a step for every enemy seat it fills
    assert all(filtered), filtered
    not_ego = AgtItfWrapper(make_agent("random"), build_interface("pommerman_batch_planes(max_steps=60)"))
    venv.env_method("set_opponents", not_ego)
    with pytest.raises(ValueError, match=r"needs the batch made with \{'ego': False\}"):
        venv.reset()
    assert recipe_for("pommerman", SHORT).control == "shared"
