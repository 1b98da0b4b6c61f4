"""A Stable-Baselines3 ``VecEnv`` whose sub-envs are slots of one object in this process.

The batched trainer (:class:`~arena.training.batched.BatchVecEnv`) holds all its games in one
object: an attribute or method of "sub-env ``i``" is the object's own. :class:`InProcessVecEnv`
answers SB3's attribute calls that way, once, for all of them.

This module imports Stable-Baselines3 when it is imported (the ``train`` extra).
"""

from __future__ import annotations

from typing import Any

import numpy as np

from arena.training.policy_agent import require_sb3

require_sb3()
from stable_baselines3.common.vec_env.base_vec_env import VecEnv  # noqa: E402

__all__ = ["InProcessVecEnv"]


class InProcessVecEnv(VecEnv):
    """SB3's attribute calls for a ``VecEnv`` whose games live in this one object.

    ``get_attr``/``set_attr``/``env_method`` reach this object's public attributes and methods
    (a name starting with ``_`` is refused like a missing one), and answer once per requested
    sub-env; ``env_method("action_masks")`` gives each requested sub-env its own row of
    :meth:`action_masks` (what MaskablePPO asks for). No sub-env is wrapped.

    Subclasses implement SB3's ``reset``, ``step_async``, ``step_wait`` and ``close``.

    Raises:
        AttributeError: from ``get_attr``, ``set_attr`` or ``env_method``, for a name this
            object does not have (or a private one), naming it.

    Example:
        >>> from gymnasium import spaces
        >>> class Still(InProcessVecEnv):
        ...     def __init__(self):
        ...         super().__init__(3, spaces.Discrete(2), spaces.Discrete(2))
        ...         self.level = 1
        ...     def reset(self): return np.zeros(3, np.int64)
        ...     def step_async(self, actions): pass
        ...     def step_wait(self): return np.zeros(3, np.int64), np.zeros(3), np.zeros(3, bool), [{}] * 3
        ...     def close(self): pass
        ...     def __str__(self): return "<Still>"
        >>> venv = Still()
        >>> venv.get_attr("level", indices=[0, 2])
        [1, 1]
        >>> venv.get_attr("_secret")
        Traceback (most recent call last):
        ...
        AttributeError: <Still> has no attribute '_secret'
    """

    def get_attr(self, attr_name: str, indices: Any = None) -> list[Any]:
        """The attribute of this object, once per requested sub-env (they share it)."""
        value = self._owned(attr_name)
        return [value for _ in self._get_indices(indices)]

    def set_attr(self, attr_name: str, value: Any, indices: Any = None) -> None:
        """Set an attribute this object has (for every sub-env: they share it)."""
        self._owned(attr_name)
        setattr(self, attr_name, value)

    def env_method(self, method_name: str, *method_args: Any, indices: Any = None, **method_kwargs: Any) -> list[Any]:
        """``action_masks`` gives each sub-env's row; another method runs once and answers for each sub-env."""
        chosen = list(self._get_indices(indices))
        if method_name == "action_masks":
            masks = np.asarray(self._owned("action_masks")())
            return list(masks[chosen])
        result = self._owned(method_name)(*method_args, **method_kwargs)
        return [result for _ in chosen]

    def env_is_wrapped(self, wrapper_class: type, indices: Any = None) -> list[bool]:
        """No sub-env is a wrapped Gymnasium env."""
        return [False for _ in self._get_indices(indices)]

    def _owned(self, name: str) -> Any:
        if name.startswith("_") or not hasattr(self, name):
            raise AttributeError(f"{self} has no attribute {name!r}")
        return getattr(self, name)
