"""MuJoCo soccer (DeepMind Control's ``locomotion.soccer``): two teams of continuous-control walkers.

* :class:`Soccer` — the arena env (``envs.make("soccer", team_size=2)``), behind the
  ``soccer`` extra (dm_control, mujoco, Pillow);
* :mod:`envs.soccer.render` — the top-down picture drawn from positions;
* :mod:`envs.soccer.agents` — the scripted ``soccer_chaser``;
* :mod:`envs.soccer.recipe` — what ``arena train`` runs (one model for every walker of a side);
* ``soccer_ppo`` — the shipped side, which learned the chaser's actions first (``envs/soccer_trained/``,
  loaded by :mod:`envs.shipped`);
* :mod:`interfaces.soccer` — features, action scaling, shaping and team views.

Example:
    >>> import envs
    >>> env = envs.make("soccer", team_size=1, time_limit=0.25)
    >>> env.possible_agents
    ['home_0', 'away_0']
"""

from envs.soccer.env import ACTION_NAMES, Soccer

__all__ = ["Soccer", "ACTION_NAMES"]
