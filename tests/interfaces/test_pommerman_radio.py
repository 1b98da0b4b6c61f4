"""Radio mode's actions as moves with silent words (PommermanSilentRadio)."""

from __future__ import annotations

import numpy as np
import pytest
from gymnasium import spaces

import envs
from arena.errors import InvalidActionError, MaskTranslationError, SpaceMismatchError
from arena.specs.interfaces import build_interface
from interfaces.pommerman_radio import PommermanSilentRadio


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
