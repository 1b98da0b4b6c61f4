"""The side view of the replay page: a whole side of a team env seen through one side interface.

A side interface takes a side's ``Tuple`` of observations (``None`` for members that do not act)
and gives one observation, e.g. MAgent2's battlefield map (``magent_grid_control``: own and enemy
positions and HP as planes over the map). Its spec comes from the user (``arena replay --html
--side-view SPEC``) or from the env (:meth:`arena.MultiAgentEnv.side_view`) and is built through
the registry, one stack per side (``arena`` imports no interface); the page draws its result
with the agent's-eye view's drawing (planes as a grid of small boards). An interface may name its
planes in a ``PLANES`` tuple (``GridControl`` does); the boards are captioned with them.
"""

from __future__ import annotations

from collections.abc import Mapping
from typing import Any

from gymnasium import spaces

from arena.errors import ArenaError, InvalidValueError, ReplayError
from arena.interface import Interface
from arena.replay.pack import pack_observation
from arena.specs.interfaces import build_interface

__all__ = ["SideViews", "side_view_spec"]


def side_view_spec(env: Any, given: str | None = None) -> str | None:
    """The side interface spec to show: ``given`` (the user's), else the env's own, else ``None``.

    Raises:
        ReplayError: a spec given for an env without sides.

    Example:
        >>> import envs
        >>> side_view_spec(envs.make("magent_battle", map_size=12, minimap_mode=True))
        'magent_grid_control(map_size=12)'
        >>> side_view_spec(envs.make("team_rock_paper_scissors")) is None
        True
    """
    if not env.teams:
        if given is not None:
            raise ReplayError(f"side view {given!r}: needs an env with sides (teams), but {env} has none")
        return None
    return given if given is not None else env.unwrapped.side_view()


class SideViews:
    """One side interface per side of ``env``, fed each frame's observations.

    Args:
        env: a team env (``env.teams``), reset to the game's start.
        spec: a side interface spec (text, resolved through the registry).

    Raises:
        ReplayError: the spec does not build, or does not fit a side's spaces (the message names both).

    Example:
        >>> import envs
        >>> env = envs.make("magent_battle", map_size=12, minimap_mode=True)
        >>> observations, _ = env.reset(seed=0)
        >>> views = SideViews(env, "magent_grid_control(map_size=12)")
        >>> shown = views.frame(observations)
        >>> sorted(shown), shown["red"]["acting"], shown["red"]["parts"][0]["names"][:2]
        (['blue', 'red'], 2, ['walls', 'own presence'])
    """

    def __init__(self, env: Any, spec: str) -> None:
        self.spec = spec
        self.members: dict[str, tuple[str, ...]] = {side: tuple(ids) for side, ids in env.teams.items()}
        self.interfaces: dict[str, Interface] = {}
        self._started: set[str] = set()
        for side, ids in self.members.items():
            try:
                itf = build_interface(spec)
                if itf is None:
                    raise InvalidValueError("it names no interface")
                itf.setup(
                    spaces.Tuple([env.observation_space(a) for a in ids]),
                    spaces.Tuple([env.action_space(a) for a in ids]),
                )
            except (ArenaError, ValueError, TypeError) as err:
                raise ReplayError(f"side view {spec!r} for side {side!r} of {env}: {err}") from err
            self.interfaces[side] = itf
        self.label = str(next(iter(self.interfaces.values()), spec))

    def frame(self, observations: Mapping[str, Any]) -> dict[str, dict[str, Any]]:
        """Each side's view of this frame's observations: side -> ``{"parts", "acting"}``.

        A side none of whose members acts here is left out (there is nothing to see).
        """
        shown = {}
        for side, ids in self.members.items():
            views = tuple(observations.get(agent) for agent in ids)
            acting = sum(view is not None for view in views)
            if not acting:
                continue
            itf = self.interfaces[side]
            if side in self._started:
                seen = itf.transform_observation(views)
            else:
                self._started.add(side)
                seen = itf.transform_reset(views)
            parts = pack_observation(seen, itf.observation_space, label=side)
            names = getattr(type(itf), "PLANES", None)
            for part in parts:
                if part["kind"] == "planes" and isinstance(names, tuple) and len(names) == part["n"]:
                    part["names"] = [str(name) for name in names]
            shown[side] = {"parts": parts, "acting": acting}
        return shown
