"""Radio mode's actions as moves with silent words (PommermanSilentRadio)."""

from __future__ import annotations

import json
import shlex

import numpy as np
import pytest
from gymnasium import spaces

import envs
from arena.errors import InvalidActionError, MaskTranslationError, SpaceMismatchError
from arena.specs.interfaces import build_interface
from interfaces.pommerman_radio import PommermanSilentRadio
from interfaces.pommerman_safety import PommermanSafeMoves, safe_moves


def test_radio_games_take_moves_with_silent_words_under_the_move_interfaces() -> None:
    env = envs.make("pommerman", mode="radio")
    stack = build_interface("pommerman_features(pommerman_safe_moves(pommerman_silent_radio))")
    stack.setup(env.observation_space("agent_0"), env.action_space("agent_0"))
    assert stack.action_space == spaces.Discrete(6)
    obs, _ = env.reset(seed=2)
    stack.transform_reset(obs["agent_0"])
    for move in range(6):
        raw = stack.transform_action(move)
        assert env.action_space("agent_0").contains(raw) and raw[1:].tolist() == [0, 0]
    env.step({agent: stack.transform_action(0) if agent == "agent_0" else np.zeros(3, np.int64) for agent in obs})
    assert str(stack) == "PommermanFeatures(PommermanSafeMoves(PommermanSilentRadio()))"


def test_silent_radio_refuses_other_actions_moves_and_masks() -> None:
    with pytest.raises(SpaceMismatchError, match=r"needs pommerman's radio actions .* got Discrete\(6\)"):
        PommermanSilentRadio().setup(spaces.Discrete(2), spaces.Discrete(6))
    itf = PommermanSilentRadio()
    itf.setup(spaces.Discrete(2), spaces.MultiDiscrete([6, 8, 8]))
    with pytest.raises(InvalidActionError, match=r"action 6 is not in Discrete\(6\)"):
        itf.transform_action(6)
    allowed = np.ones(22, dtype=np.int8)
    allowed[2] = 0
    assert itf.transform_action_mask(allowed).tolist() == [1, 1, 0, 1, 1, 1]
    allowed[6] = 0  # the first word may not be silent
    with pytest.raises(MaskTranslationError, match="allowing the silent word 0"):
        itf.transform_action_mask(allowed)
    with pytest.raises(MaskTranslationError, match="needs radio's 22 mask flags"):
        itf.transform_action_mask(np.ones(6, dtype=np.int8))


STOP, RIGHT = 0, 4


def _radio_observation_with_flames_to_the_right() -> dict:
    """agent_0's radio-mode observation at reset, with fresh flames on the cell to its right."""
    observations, _ = envs.make("pommerman", mode="radio").reset(seed=0)
    observation = {key: np.array(value, copy=True) for key, value in observations["agent_0"].items()}
    row, col = observation["position"].tolist()
    observation["flame_life"][row, col + 1] = 3
    return observation


def _radio_filter() -> PommermanSafeMoves:
    env = envs.make("pommerman", mode="radio")
    itf = PommermanSafeMoves()
    itf.setup(env.observation_space("agent_0"), env.action_space("agent_0"))
    return itf


def test_the_filter_masks_radio_moves_only_and_keeps_the_words() -> None:
    observation = _radio_observation_with_flames_to_the_right()
    moves = safe_moves(observation)  # the plain-move filter on the same observation
    assert moves[RIGHT] == 0 and moves.sum() > 1
    itf = _radio_filter()
    assert itf.action_space == spaces.MultiDiscrete([6, 8, 8])  # the model keeps radio's actions
    assert itf.observation_space["safe_moves"] == spaces.MultiBinary(22)  # MaskablePPO's MultiDiscrete mask
    mask = itf.transform_observation(observation)["safe_moves"]
    assert mask[:6].tolist() == moves.tolist() and mask[6:].tolist() == [1] * 16
    assert itf.transform_action(np.array([RIGHT, 3, 5])).tolist() == [STOP, 3, 5]  # the words go on
    assert itf.transform_action(np.array([1, 7, 2])).tolist() == [1, 7, 2]  # a safe move passes as it is


def test_the_filter_masks_radio_moves_only_on_a_batch() -> None:
    observation = _radio_observation_with_flames_to_the_right()
    moves = safe_moves(observation)
    planes = build_interface("pommerman_batch_planes")
    env = envs.make("pommerman", mode="radio")
    planes.setup(env.observation_space("agent_0"), env.action_space("agent_0"))
    views = np.stack([planes.transform_observation(observation)] * 2)
    itf = _radio_filter()
    assert itf.observation_batch(views) is views  # the planes pass unchanged
    given = np.ones((2, 22), dtype=bool)
    given[1, [7, 20]] = False  # words the env forbids stay forbidden; the filter adds none
    masks = itf.action_mask_batch(given)
    assert masks[:, :6].tolist() == [moves.astype(bool).tolist()] * 2 and masks[:, 6:].tolist() == given[:, 6:].tolist()
    actions = np.array([[RIGHT, 1, 2], [5, 6, 7]])
    assert itf.action_batch(actions).tolist() == [[STOP, 1, 2], [5, 6, 7]]
    stacked = {key: np.stack([value] * 2) for key, value in observation.items()}  # a batch of single envs
    assert itf.observation_batch(stacked)["safe_moves"].tolist() == [[*moves.tolist(), *[1] * 16]] * 2


def test_the_filter_refuses_radio_actions_and_masks_of_another_shape() -> None:
    itf = _radio_filter()
    itf.transform_observation(_radio_observation_with_flames_to_the_right())
    with pytest.raises(
        InvalidActionError, match=r"expected a radio action \(move, word, word\) of shape \(3,\), got 4"
    ):
        itf.action(RIGHT)  # the level's own check (a stack checks actions against its space first)
    with pytest.raises(InvalidActionError, match=r"got move 6"):
        itf.action(np.array([6, 0, 0]))
    with pytest.raises(MaskTranslationError, match=r"expected 22 mask flags .* got shape \(6,\)"):
        itf.transform_action_mask(np.ones(6, dtype=np.int8))
    with pytest.raises(InvalidActionError, match=r"expected \(n, 3\) radio actions .* got shape \(2,\)"):
        itf.action_batch(np.array([RIGHT, STOP]))
    with pytest.raises(MaskTranslationError, match=r"expected a row of 22 mask flags .* got shape \(2, 6\)"):
        itf.action_mask_batch(np.ones((2, 6), dtype=bool))
    with pytest.raises(SpaceMismatchError, match=r"Discrete\(6\) or radio's MultiDiscrete\(\[6, 8, 8\]\), got"):
        PommermanSafeMoves().setup(itf.inner_observation_space, spaces.MultiDiscrete([6, 8]))


def test_the_radio_recipe_keeps_radio_actions_with_the_filter_innermost() -> None:
    from envs.pommerman.recipe import training_recipe

    env = envs.make("pommerman", mode="radio")
    stack = build_interface(training_recipe(mode="radio").interface)
    stack.setup(env.observation_space("agent_0"), env.action_space("agent_0"))
    assert stack.action_space == env.action_space("agent_0")  # the model talks: (move, word, word)
    assert stack.observation_space.shape == (24, 11, 11)  # the planes with the teammate's words
    filter_level = stack
    while filter_level.inner is not None:  # the innermost level: the filter, on radio's own actions
        filter_level = filter_level.inner
    assert isinstance(filter_level, PommermanSafeMoves) and filter_level.action_space == env.action_space("agent_0")
    stack.transform_reset(_radio_observation_with_flames_to_the_right())
    # agent_0's ego frame is the board's: its unsafe move right is replaced, its words go on
    assert stack.transform_action(np.array([RIGHT, 3, 5])).tolist() == [STOP, 3, 5]
    assert stack.transform_action(np.array([1, 7, 2])).tolist() == [1, 7, 2]


def test_a_model_that_talks_trains_behind_the_filter_and_plays_in_a_tournament(tmp_path, capsys) -> None:
    pytest.importorskip("matplotlib")
    from arena.cli import main

    options = '{"mode": "radio", "max_steps": 40}'
    algo = {"n_steps": 64, "batch_size": 64, "n_epochs": 1}
    algo["policy_kwargs"] = {"features_extractor_class": "envs.pommerman.policy:PlanesCNN"}
    argv = ["train", "pommerman", "--env-options", options, "--timesteps", "128", "--eval-games", "2"]
    argv += ["--n-envs", "1", "--out", str(tmp_path / "talk"), "--algo", "ppo", "--algo-options", json.dumps(algo)]
    argv += ["--teammate", "pommerman_simple"]  # one seat beside it, one game at a time: PPO on the single env
    argv += ["--interface", "pommerman_batch_planes(pommerman_safe_moves, ego=true, max_steps=40)"]
    assert main(argv) == 0, capsys.readouterr().err
    action_space = json.loads((tmp_path / "talk" / "agent.json").read_text())["spaces"]["action"]
    assert action_space == "MultiDiscrete([6 8 8])"  # the model picks its words
    command = capsys.readouterr().out.split("the folder is an agent: ")[1].strip()
    assert main([*shlex.split(command)[1:], "--games", "2", "--backend", "inline"]) == 0, capsys.readouterr().err


def test_ego_levels_pass_radio_masks_that_no_flip_changes() -> None:
    # a worker batch of radio games hands the stack all-legal 22 flags: the ego view passes them on
    env = envs.make("pommerman", mode="radio")
    for spec in ("pommerman_ego_corner", "pommerman_batch_planes(ego=true)"):
        itf = build_interface(spec)
        itf.setup(env.observation_space("agent_0"), env.action_space("agent_0"))
        mask = np.ones(22, dtype=np.int8)
        mask[[0, 9]] = 0  # no stop, no word 3 first: no flip changes them
        assert itf.transform_action_mask(mask).tolist() == mask.tolist()
        mask[1] = 0  # up but not down: the observer's flip would change it
        with pytest.raises(MaskTranslationError, match="radio: 6 moves, then 8 and 8 words"):
            itf.transform_action_mask(mask)
        with pytest.raises(MaskTranslationError, match="translates only masks"):
            itf.transform_action_mask(np.ones(6, dtype=np.int8))
