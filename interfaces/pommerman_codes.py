"""Pommerman's compact batch views read as planes: a stack made for planes plays a ``layout="codes"`` batch.

``PommermanBatch(..., layout="codes")`` writes each view as 248 bytes of cell codes
(:mod:`envs.pommerman.codes`) where the default layout writes 22 planes of 121 cells (2,662
bytes). :class:`PommermanBatchCodes`, at the bottom of a stack, turns a batch's codes views into
exactly those planes, so every level above it (the action filter, the shaping bonuses,
``pommerman_batch_planes``) and every policy trained on planes works unchanged; its
``batch_options`` ask the trainer to make the batch with ``layout="codes"``.

Example:
    >>> from arena.batched_stack import BatchedStack, stack_batch_options
    >>> from interfaces import PommermanBatchPlanes
    >>> import envs
    >>> env = envs.make("pommerman", mode="team")
    >>> stack = PommermanBatchPlanes(PommermanBatchCodes(), ego=True)  # "pommerman_batch_planes(pommerman_batch_codes, ego=true)"
    >>> stack.setup(env.observation_space("agent_0"), env.action_space("agent_0"))
    >>> stack_batch_options(stack)
    {'layout': 'codes', 'ego': True}
    >>> batch = env.make_batch(2, **stack_batch_options(stack))
    >>> codes, _ = batch.reset(seed=0)
    >>> planes = BatchedStack(stack, 2).observation(codes[:, 0])
    >>> codes.shape, planes.shape
    ((2, 4, 248), (2, 22, 11, 11))
"""

from __future__ import annotations

from typing import Any

import numpy as np
from gymnasium import spaces

from arena.errors import SpaceMismatchError
from arena.interface import Interface
from interfaces.pommerman import _raw_spaces, require_pommerman_dict

__all__ = ["PommermanBatchCodes"]


class PommermanBatchCodes(Interface):
    """Read a ``PommermanBatch`` made with ``layout="codes"`` as planes: the levels above see the planes layout.

    On one game the observation dict passes unchanged (this level's space is the env's). On a
    batch of games (:class:`arena.batched_stack.BatchedStack`) the batch's codes views
    ``(n, 248)`` (radio ``(n, 250)``) become the planes ``(n, 22, 11, 11)`` (radio 24) that
    ``layout="planes"`` writes for the same games (``envs.pommerman.codes.codes_to_planes``, in
    the frame of the batch's ``ego``); stacked observation dicts (a batch of single envs) pass
    unchanged. Actions, masks and rewards pass unchanged. :attr:`batch_options` ask for
    ``layout="codes"``: the batch then writes a tenth of the bytes a step, and this level pays
    the unpacking instead (docs/performance.md compares the two).

    Raises:
        SpaceMismatchError: at setup, an inner space that is not the Pommerman observation Dict;
            on a batch, an array that is not ``(n, 248)`` or ``(n, 250)`` uint8 codes views.

    Example:
        >>> import envs
        >>> env = envs.make("pommerman")
        >>> level = PommermanBatchCodes()
        >>> level.setup(env.observation_space("agent_0"), env.action_space("agent_0"))
        >>> codes, _ = env.make_batch(3, **level.batch_options).reset(seed=0)
        >>> level.observation_batch(codes[:, 1]).shape
        (3, 22, 11, 11)
    """

    @classmethod
    def contract_examples(cls) -> list[tuple[Interface, spaces.Space, spaces.Space]]:
        """Instances and raw spaces for ``arena interfaces --check``."""
        return [(cls(), *_raw_spaces(mode)) for mode in ("ffa", "radio")]

    def setup(self, observation_space: spaces.Space, action_space: spaces.Space) -> None:
        super().setup(observation_space, action_space)
        from envs.pommerman.codes import code_length, codes_to_planes  # envs may import arena, not the reverse

        raw = require_pommerman_dict(self)
        self._length = code_length("radio" if "message" in raw.spaces else "ffa")
        self._unpack = codes_to_planes
        self.observation_space = raw

    def observation(self, observation: Any) -> Any:
        return observation

    def observation_batch(self, observations: Any) -> Any:
        """The batch's codes views as planes; stacked observation dicts unchanged.

        Raises:
            SpaceMismatchError: an array that is not ``(n, 248)`` (radio 250) uint8: not a codes batch's views.
        """
        if isinstance(observations, dict):
            return observations
        codes = np.asarray(observations)
        if codes.ndim != 2 or codes.shape[1] != self._length or codes.dtype != np.uint8:
            raise SpaceMismatchError(
                f"{self}: on a batch it reads PommermanBatch's codes views (n, {self._length}) uint8 "
                f"(make_batch(..., layout='codes')), got {codes.dtype} array of shape {codes.shape}"
            )
        return self._unpack(codes)

    @property
    def batch_options(self) -> dict[str, Any]:
        """The option of ``make_batch`` whose views this level reads: ``{"layout": "codes"}``.

        Example:
            >>> PommermanBatchCodes().batch_options
            {'layout': 'codes'}
        """
        return {"layout": "codes"}
