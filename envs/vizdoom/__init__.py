"""ViZDoom multiplayer deathmatch: real engines, networked on 127.0.0.1, owned by the env.

Needs the ``vizdoom`` extra (``pip install 'arena-marl[vizdoom]'``); without it, ``reset``
raises :class:`arena.errors.MissingDependencyError` naming the extra.
"""

from envs.vizdoom.engines import EngineGroup
from envs.vizdoom.env import BUTTONS, SCENARIOS, VizdoomDeathmatch

__all__ = ["VizdoomDeathmatch", "EngineGroup", "BUTTONS", "SCENARIOS"]
