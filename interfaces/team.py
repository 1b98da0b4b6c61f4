"""Team interfaces: one flat view of several members (:class:`ConcatenateTeam`, :func:`team_interface`).

A team agent controls several env agents; its raw spaces are Tuples, one element per
member (see :func:`arena.play`). :class:`arena.Combine` applies an interface per member;
:class:`ConcatenateTeam` then turns the Tuple view into one vector observation and one
action space, so a single-agent policy can control the whole team.
"""

from __future__ import annotations

from collections.abc import Sequence
from typing import Any

import numpy as np
from gymnasium import spaces

from arena.errors import InvalidTypeError, SpaceMismatchError
from arena.interface import Combine, Interface
from arena.masks import mask_segments
from interfaces._spaces import box_space, compile_flattener

__all__ = ["ConcatenateTeam", "team_interface"]


class ConcatenateTeam(Interface):
    """Concatenate members' observations and split a concatenated action.

    * **Observation**: the members' observations, each flattened (as
      :class:`~interfaces.Flatten` does), concatenated into one Box. A member absent
      this turn (``None``) contributes its in-bounds values nearest to 0.
    * **Action**: members with Discrete or MultiDiscrete actions form one MultiDiscrete
      (the components in member order); members with Box actions form one flat Box. The
      model's action is split back into a tuple, one action per member.
    * **Masks**: a tuple of member masks becomes their concatenation — the MultiDiscrete
      mask layout — with all-legal blocks for members without a mask this turn.

    Args:
        inner: the interface underneath, typically ``Combine(None, members)``.
        dtype: dtype of the observation vector.

    Raises:
        SpaceMismatchError: at setup, for non-Tuple spaces, members mixing Box with
            discrete actions, or observations without a fixed-size vector form.

    Example:
        >>> import numpy as np
        >>> from gymnasium import spaces
        >>> itf = ConcatenateTeam()
        >>> itf.setup(spaces.Tuple([spaces.Discrete(2), spaces.Discrete(3)]),
        ...           spaces.Tuple([spaces.Discrete(3), spaces.Discrete(2)]))
        >>> itf.observation_space, itf.action_space
        (Box(0.0, 1.0, (5,), float32), MultiDiscrete([3 2]))
        >>> itf.transform_observation((1, 0)).tolist()
        [0.0, 1.0, 1.0, 0.0, 0.0]
        >>> itf.transform_action(np.array([2, 1]))
        (2, 1)
    """

    @classmethod
    def contract_examples(cls) -> list[tuple[Interface, spaces.Space, spaces.Space]]:
        """Instances and raw spaces for ``arena interfaces --check``."""
        return [
            (
                cls(),
                spaces.Tuple([spaces.Discrete(3), spaces.Box(0.0, 1.0, (2,))]),
                spaces.Tuple([spaces.Discrete(2), spaces.MultiDiscrete([2, 2])]),
            ),
        ]

    def __init__(self, inner: Interface | None = None, *, dtype: Any = np.float32) -> None:
        super().__init__(inner)
        self.dtype = np.dtype(dtype)

    def setup(self, observation_space: spaces.Space, action_space: spaces.Space) -> None:
        super().setup(observation_space, action_space)
        obs = self._require_space(spaces.Tuple, "observation")
        act = self._require_space(spaces.Tuple, "action")
        if len(obs) != len(act) or not len(act):
            raise SpaceMismatchError(
                f"{self}: needs one observation and one action element per member, "
                f"got {len(obs)} in {obs} and {len(act)} in {act}"
            )
        self._flatteners = []
        lows, highs = [], []
        for member in obs:
            box, flatten = compile_flattener(member, self.dtype, self)
            self._flatteners.append(flatten)
            lows.append(box.low)
            highs.append(box.high)
        # The filler for an absent member: its values nearest 0 that lie in its bounds.
        self._fillers = [np.clip(np.zeros_like(lo), lo, hi) for lo, hi in zip(lows, highs)]
        low, high = np.concatenate(lows), np.concatenate(highs)
        self.observation_space = spaces.Box(low, high, low.shape, self.dtype)
        members = list(act)
        if all(isinstance(m, (spaces.Discrete, spaces.MultiDiscrete)) for m in members):
            self._setup_discrete(members)
        elif all(isinstance(m, spaces.Box) for m in members):
            self._setup_box(members)
        else:
            raise SpaceMismatchError(
                f"{self}: members' actions must be all Discrete/MultiDiscrete or all Box, got {act}"
            )

    def __getstate__(self) -> dict[str, Any]:
        state = super().__getstate__()
        state.pop("_flatteners", None)  # closures: made again from the spaces on the copy
        return state

    def __setstate__(self, state: dict[str, Any]) -> None:
        self.__dict__.update(state)
        if self.__dict__.get("_observation_space") is not None:  # set up: compile again
            inner = self.inner_observation_space
            self._flatteners = [
                compile_flattener(member, self.dtype, self)[1]
                for member in (inner.spaces if isinstance(inner, spaces.Tuple) else ())
            ]

    def _setup_discrete(self, members: list[spaces.Space]) -> None:
        self._discrete = True
        nvec, start, sizes = [], [], []
        for member in members:
            if isinstance(member, spaces.Discrete):
                nvec.append(int(member.n))
                start.append(int(member.start))
                sizes.append(1)
            elif isinstance(member, spaces.MultiDiscrete):  # the caller let only these two through
                nvec.extend(member.nvec.reshape(-1).tolist())
                start.extend(member.start.reshape(-1).tolist())
                sizes.append(int(member.nvec.size))
        self._members: list[spaces.Space] = members
        self._bounds = np.cumsum([0, *sizes])
        self._mask_sizes = [sum(mask_segments(m) or []) for m in members]
        self.action_space = spaces.MultiDiscrete(nvec, start=start)

    def _setup_box(self, members: list[spaces.Box]) -> None:
        self._discrete = False
        self._members = [*members]
        sizes = [int(np.prod(m.shape)) for m in members]
        self._bounds = np.cumsum([0, *sizes])
        dtype = np.result_type(*(m.dtype for m in members))
        low = np.concatenate([m.low.reshape(-1) for m in members]).astype(dtype)
        high = np.concatenate([m.high.reshape(-1) for m in members]).astype(dtype)
        self.action_space = box_space(low, high, low.shape, dtype)

    def observation(self, observation: Any) -> np.ndarray:
        parts = [
            filler if value is None else flatten(value)
            for flatten, filler, value in zip(self._flatteners, self._fillers, observation)
        ]
        return np.concatenate(parts)

    def action(self, action: Any) -> tuple[Any, ...]:
        flat = np.asarray(action).reshape(-1)
        out: list[Any] = []
        for member, lo, hi in zip(self._members, self._bounds[:-1], self._bounds[1:]):
            part = flat[lo:hi]
            if isinstance(member, spaces.Discrete):
                out.append(int(part[0]))
            else:
                out.append(part.astype(member.dtype).reshape(member.shape))
        return tuple(out)

    def action_mask(self, mask: Any) -> np.ndarray:
        if not self._discrete:
            return self._untranslatable_mask(mask)  # Box actions carry no masks
        blocks = [
            np.ones(size, dtype=np.int8) if m is None else np.asarray(m, dtype=np.int8).reshape(-1)
            for m, size in zip(mask, self._mask_sizes)
        ]
        return np.concatenate(blocks)


def team_interface(members: Sequence[Interface | None], *, concatenate: bool = True) -> Interface:
    """Build a team interface from member interfaces.

    Member ``i``'s interface serves the ``i``-th env agent of the team (``None``: raw).
    With ``concatenate`` the members' views are joined by :class:`ConcatenateTeam` for a
    single policy; without, the result is the :class:`arena.Combine` of the members,
    for a team of separate member agents (:class:`arena.AgtItfWrapper` with a list).

    Example:
        >>> from interfaces import Flatten
        >>> str(team_interface([Flatten(), None]))
        'ConcatenateTeam(Combine(None, [Flatten(), Interface()]))'
    """
    if isinstance(members, Interface) or not isinstance(members, Sequence) or not members:
        raise InvalidTypeError(
            f"team_interface: members must be a non-empty sequence of arena.Interface or None, got {members!r}"
        )
    combined = Combine(None, list(members))
    return ConcatenateTeam(combined) if concatenate else combined
