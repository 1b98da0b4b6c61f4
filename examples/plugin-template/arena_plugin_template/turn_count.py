"""``AppendTurnCount``: tell a policy how many turns it has played in the episode."""

from __future__ import annotations

from typing import Any

import numpy as np
from gymnasium import spaces

from arena import Interface, InvalidValueError, SpaceMismatchError


class AppendTurnCount(Interface):
    """Append the number of turns played this episode to a 1-D Box observation.

    The count starts at 0 on the first observation of an episode and stops growing at
    ``max_turns``, so the observation stays inside its declared Box.

    Args:
        inner: the interface underneath (``None``: the raw observation).
        max_turns: where the count stops.

    Raises:
        InvalidValueError: ``max_turns`` is not a positive integer (also a ``ValueError``).
        SpaceMismatchError: at setup, for observations that are not a 1-D Box.

    Example:
        >>> import numpy as np
        >>> from gymnasium import spaces
        >>> itf = AppendTurnCount(max_turns=10)
        >>> itf.setup(spaces.Box(0.0, 1.0, (2,)), spaces.Discrete(3))
        >>> itf.transform_reset(np.zeros(2, np.float32)).tolist()
        [0.0, 0.0, 0.0]
        >>> itf.transform_observation(np.ones(2, np.float32)).tolist()
        [1.0, 1.0, 1.0]
    """

    def __init__(self, inner: Interface | None = None, *, max_turns: int = 1000) -> None:
        super().__init__(inner)
        if not isinstance(max_turns, int) or isinstance(max_turns, bool) or max_turns < 1:
            raise InvalidValueError(f"{type(self).__name__}: max_turns must be a positive integer, got {max_turns!r}")
        self.max_turns = max_turns
        self._turns = -1

    @classmethod
    def contract_examples(cls) -> list[tuple[Interface, spaces.Space, spaces.Space]]:
        """Instances and raw spaces that ``arena interfaces --check`` runs through ``check_interface``."""
        return [(cls(max_turns=5), spaces.Box(-1.0, 1.0, (3,)), spaces.Discrete(2))]

    def setup(self, observation_space: spaces.Space, action_space: spaces.Space) -> None:
        super().setup(observation_space, action_space)
        box = self.inner_observation_space
        if not isinstance(box, spaces.Box) or len(box.shape) != 1:
            raise SpaceMismatchError(f"{self}: needs a 1-D Box observation space, got {box}")
        low = np.append(box.low, 0.0).astype(np.float32)
        high = np.append(box.high, self.max_turns).astype(np.float32)
        self.observation_space = spaces.Box(low, high, dtype=np.float32)

    def reset(self, observation: Any) -> None:
        self._turns = -1  # the first observation of the episode brings it to 0

    def observation(self, observation: Any) -> np.ndarray:
        self._turns = min(self._turns + 1, self.max_turns)
        return np.append(np.asarray(observation, dtype=np.float32), np.float32(self._turns))

    def _arguments(self) -> str:
        return ", ".join(filter(None, [super()._arguments(), f"max_turns={self.max_turns}"]))
