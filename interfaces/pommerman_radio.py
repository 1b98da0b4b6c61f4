"""Pommerman's radio mode for models that only move: the two words are sent as silence.

In radio mode (``envs.make("pommerman", mode="radio")``) each action is ``MultiDiscrete([6, 8, 8])``:
the move and two words for the teammate. :class:`PommermanSilentRadio` presents it as the
``Discrete(6)`` of the other modes, sending every move with the words ``0, 0``, so every
interface and policy made for moves (the features, the action filter, a team policy trained in
team mode) plays radio games. The observation, with the teammate's ``message``, passes on as it is.

Example:
    >>> import envs
    >>> env = envs.make("pommerman", mode="radio")
    >>> itf = PommermanSilentRadio()
    >>> itf.setup(env.observation_space("agent_0"), env.action_space("agent_0"))
    >>> itf.action_space, itf.transform_action(5).tolist()
    (Discrete(6), [5, 0, 0])
"""

from __future__ import annotations

from typing import Any, ClassVar

import numpy as np
from gymnasium import spaces

from arena.errors import InvalidActionError, MaskTranslationError, SpaceMismatchError
from arena.interface import Interface

__all__ = ["PommermanSilentRadio"]

_RADIO = [6, 8, 8]


class PommermanSilentRadio(Interface):
    """Radio mode's ``MultiDiscrete([6, 8, 8])`` actions as ``Discrete(6)`` moves with silent words.

    Args:
        inner: the interface underneath (its actions must be radio mode's).

    Raises:
        SpaceMismatchError: at setup, for actions other than ``MultiDiscrete([6, 8, 8])``.
        InvalidActionError: for a move outside ``Discrete(6)``.
        MaskTranslationError: for a mask that is not radio's 22 flags (6 moves, 8 and 8 words)
            or that forbids the silent word.

    Example:
        >>> itf = PommermanSilentRadio()
        >>> itf.setup(spaces.Discrete(2), spaces.MultiDiscrete([6, 8, 8]))
        >>> itf.transform_action(3).tolist()
        [3, 0, 0]
    """

    #: A mask forbidding the silent words has no move-only translation (documented above: it raises).
    partial_mask_translation: ClassVar[bool] = True

    @classmethod
    def contract_examples(cls) -> list[tuple[Interface, spaces.Space, spaces.Space]]:
        """Instances and raw spaces for ``arena interfaces --check``."""
        return [(cls(), spaces.Box(0.0, 1.0, (4,), np.float32), spaces.MultiDiscrete(_RADIO))]

    def setup(self, observation_space: spaces.Space, action_space: spaces.Space) -> None:
        super().setup(observation_space, action_space)
        actions = self.inner_action_space
        if not isinstance(actions, spaces.MultiDiscrete) or actions.nvec.tolist() != _RADIO or actions.start.any():
            raise SpaceMismatchError(
                f"{self}: needs pommerman's radio actions MultiDiscrete([6, 8, 8]) (mode='radio'), got {actions}"
            )
        self.action_space = spaces.Discrete(_RADIO[0])

    def action(self, action: Any) -> np.ndarray:
        if not self.action_space.contains(action):
            raise InvalidActionError(f"{self}: action {action!r} is not a move in {self.action_space}")
        return np.array([int(action), 0, 0], dtype=np.int64)

    def action_mask(self, mask: Any) -> np.ndarray:
        flags = np.asarray(mask)
        if flags.shape != (sum(_RADIO),) or not (flags[6] and flags[14]):
            raise MaskTranslationError(
                f"{self}: needs radio's 22 mask flags (6 moves, then 8 and 8 words) allowing the silent word 0, "
                f"got {flags.tolist()}"
            )
        return flags[:6].copy()
