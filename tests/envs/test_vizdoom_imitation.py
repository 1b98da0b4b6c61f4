"""tools/imitate.py on Discrete actions: ViZDoom's move set behind the rule that fires, vizdoom_aim the teacher."""

from __future__ import annotations

import numpy as np
import pytest
from gymnasium import spaces
from hypothesis import given, settings
from hypothesis import strategies as st

from arena.errors import InvalidValueError, SpaceMismatchError
from arena.specs.interfaces import build_interface
from tests.tool_scripts import load_tool

imitate = load_tool("imitate")
STACK = 'doom_target(doom_aim_shaping(doom_variable_bonus(doom_actions(doom_auto_fire(), actions="move"), index=4)))'
RAW = spaces.Dict(
    {
        "enemies": spaces.Box(0.0, 1.0, (1, 5), np.float32),
        "variables": spaces.Box(-np.inf, np.inf, (5,), np.float32),
    }
)


def _stack():
    stack = build_interface(STACK)
    stack.setup(RAW, spaces.MultiBinary(7))
    return stack


@settings(max_examples=40, deadline=None)
@given(choice=st.integers(0, 7), trigger=st.integers(0, 1))
def test_each_raw_action_of_the_move_set_labels_back_to_its_model_action(choice, trigger) -> None:
    """Whatever the teacher does with the trigger (the rule owns it), the buttons of move i label as i."""
    inverse = imitate.labeller(_stack())
    raw = _stack().transform_action(choice).copy()
    raw[0] = trigger
    assert int(inverse(raw)) == choice


def test_a_teachers_combination_outside_the_set_labels_as_the_nearest_first() -> None:
    inverse = imitate.nearest_inverse(_stack())
    forward_and_strafe = np.array([1, 1, 0, 1, 0, 0, 0], np.int8)  # vizdoom_aim's nudge while walking
    assert int(inverse(forward_and_strafe)) == 0  # forward and strafe_left are both 1 off: the first wins
    assert int(inverse(np.array([0, 0, 0, 0, 0, 1, 1], np.int8))) == 2  # both turns: turn_left, the first
    box = build_interface("rescale_action")
    box.setup(spaces.Box(-1, 1, (2,)), spaces.Box(-2.0, 2.0, (3,), np.float64))
    with pytest.raises(SpaceMismatchError, match=r"^imitate: needs Discrete model actions here, got Box"):
        imitate.nearest_inverse(box)


def test_a_discrete_policy_fits_its_labels_by_cross_entropy() -> None:
    pytest.importorskip("stable_baselines3")
    import torch
    from stable_baselines3.common.policies import ActorCriticPolicy

    torch.manual_seed(0)
    policy = ActorCriticPolicy(spaces.Box(-1, 1, (3,), np.float32), spaces.Discrete(4), lambda _: 1e-3)
    rng = np.random.default_rng(0)
    observations = rng.uniform(-1, 1, (512, 3)).astype(np.float32)
    labels = (observations[:, 0] > 0).astype(np.float32) + 2 * (observations[:, 1] > 0)  # a rule of the inputs
    loss = imitate.fit(policy, observations, labels, np.zeros(512, np.float32), epochs=60, seed=0)
    predicted = policy.predict(observations, deterministic=True)[0]
    assert loss < 0.3 and (predicted == labels).mean() > 0.9


def _pupil(folder, stack: str, options: str, *more: str):
    """A folder ``arena train`` wrote after 64 PPO steps on ``stack`` in games of ``options`` (JSON)."""
    pytest.importorskip("vizdoom")
    pytest.importorskip("stable_baselines3")
    from arena.cli import main

    options = options[:-1] + ', "game_variables": ["HEALTH", "ARMOR", "FRAGCOUNT", "SELECTED_WEAPON_AMMO", "HITCOUNT"]}'
    argv = ["train", "vizdoom_deathmatch", "--algo", "ppo", "--interface", stack, "--env-options", options, *more]
    argv += ["--timesteps", "64", "--n-envs", "1", "--eval-games", "1", "--progress", "none", "--out", str(folder)]
    argv += ["--algo-options", '{"n_steps": 64, "batch_size": 64, "n_epochs": 1}']
    assert main(argv) == 0
    return folder


def test_imitation_in_the_duel_labels_the_teacher_and_records_the_rounds(tmp_path) -> None:
    from arena.training.trained import read_manifest

    options = '{"players": 1, "bots": 1, "screen_format": "grey", "enemies": true, "time_limit": 1.5}'
    folder = _pupil(tmp_path / "pupil", STACK, options)
    curve = imitate.imitate(
        folder,
        teacher="vizdoom_aim",
        opponent="random",
        rounds=2,
        games=2,
        seed=3,
        epochs=2,
        env_options={"players": 2, "bots": 0},  # the duel: a side per seat, seats alternating
    )
    assert [who for _round, who, _score, _samples in curve] == ["vizdoom_aim", "policy"]
    assert all(0.0 <= score <= 1.0 for _round, _who, score, _samples in curve)
    record = read_manifest(folder)["imitation"]
    assert record["teacher"] == "vizdoom_aim" and record["env_options"]["players"] == 2
    assert record["samples"] == curve[-1][3] > 0


def test_a_further_setting_adds_its_games_samples_and_scores(tmp_path) -> None:
    """The duel and, every round, games alone against a bot: the samples of both, each setting's score kept."""
    from arena.training.trained import read_manifest

    options = '{"players": 2, "bots": 0, "screen_format": "grey", "enemies": true, "time_limit": 1.0}'
    stack = f"episode_clock(doom_target({STACK[len('doom_target(') : -1]}, radar=True), period=4)"
    folder = _pupil(tmp_path / "pupil", stack, options, "--opponent", "vizdoom_aim", "--reference", "vizdoom_aim")
    played = read_manifest(folder)["env_options"]
    alone = {"players": 1, "bots": 1}
    kwargs = {"teacher": "vizdoom_aim", "opponent": "vizdoom_aim", "games": 2, "seed": 3, "epochs": 1}
    snapshots = tmp_path / "rounds"
    only_duels = imitate.imitate(folder, rounds=1, env_options={}, snapshots=snapshots, **kwargs)
    assert read_manifest(snapshots / "round-0")["imitation"]["rounds"] == 1  # a copy of the folder, an agent
    with pytest.raises(InvalidValueError, match=r"^imitate: --snapshots .*rounds already holds round-0; give an empty"):
        imitate.imitate(folder, rounds=1, env_options={}, snapshots=snapshots, **kwargs)
    with_bots = imitate.imitate(folder, rounds=1, env_options={}, also_env_options=[alone], **kwargs)
    assert with_bots[0][3] > only_duels[0][3]  # the games alone added their samples to the duels'
    record = read_manifest(folder)["imitation"]
    assert record["also_env_options"] == [{**played, **alone}]
    assert len(record["also_scores"]) == 1 and len(record["also_scores"][0]) == 1  # one setting, one round
    assert record["env_options"]["players"] == 2  # the folder plays on in the main games
    radar_less = {"players": 2, "radar": False}  # doom_target(radar=True) then reads zeros, the same size
    six = ["HEALTH", "ARMOR", "FRAGCOUNT", "SELECTED_WEAPON_AMMO", "HITCOUNT", "DEATHCOUNT"]
    bad = {"game_variables": six}  # one more variable: a longer vector
    imitate.imitate(folder, rounds=1, env_options={}, also_env_options=[radar_less], **{**kwargs, "games": 1})
    with pytest.raises(SpaceMismatchError, match=r"^imitate: a further setting must give the model the main games"):
        imitate.imitate(folder, rounds=1, env_options={}, also_env_options=[bad], **kwargs)
    assert read_manifest(folder)["imitation"]["also_env_options"] == [{**played, **radar_less}]
