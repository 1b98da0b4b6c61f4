"""MAgent2's large-scale battle grids (the ``magent2`` package): armies of 81 against 81.

* :class:`MAgentBattle` — ``envs.make("magent_battle")``: two armies of identical soldiers;
* :class:`MAgentCombinedArms` — ``envs.make("magent_combined_arms")``: melee and ranged units
  on each side (a heterogeneous team);
* :mod:`envs.magent.layout` — what a soldier's channels and actions mean;
* :mod:`envs.magent.agents` — the scripted ``magent_attack_nearest``;
* :mod:`envs.magent.recipe` — what ``arena train`` runs: one policy shared by every soldier of a side;
* :mod:`interfaces.magent` — a whole side seen and moved at once (``magent_side_stack``,
  ``magent_grid_control``);
* ``magent_army_ppo`` — the shipped soldier (``envs/magent_trained/``, loaded by :mod:`envs.shipped`).

Needs the ``magent`` extra (``pip install 'arena-marl[magent]'``); without it, making an env
raises :class:`arena.errors.MissingDependencyError` naming the extra.

Example:
    >>> import envs
    >>> env = envs.make("magent_battle", map_size=12, max_steps=10)
    >>> sorted(env.teams), len(env.possible_agents)
    (['blue', 'red'], 4)
"""

from envs.magent.env import MAgentBattle, MAgentCombinedArms
from envs.magent.layout import UnitLayout, unit_layout

__all__ = ["MAgentBattle", "MAgentCombinedArms", "UnitLayout", "unit_layout"]
