"""ViZDoom deathmatch: real engines, networked on 127.0.0.1 (or one alone with bots), owned by the env.

* :class:`VizdoomDeathmatch` — the arena env (``envs.make("vizdoom_deathmatch", players=2)``; the
  fast training mode, one engine and the learner alone against bots: ``players=1, bots=3``);
* :mod:`envs.vizdoom.engines` — the engines it owns (:class:`EngineGroup`);
* :mod:`envs.vizdoom.agents` — the scripted ``vizdoom_aim``;
* :mod:`envs.vizdoom.recipe` — what ``arena train`` runs (the fast mode, stacked grey frames for a CNN);
* :mod:`interfaces.vizdoom` — the small action set, the frame a CNN wants and the labels' target for an MLP;
* :mod:`interfaces.vizdoom_rules` — rule levels for a learner: the trigger pressed by ``vizdoom_aim``'s rule,
  a reward per hit, a potential for the enemy under the crosshair;
* ``vizdoom_ppo`` — the shipped learner, the pupil of ``vizdoom_aim{"weave": 8, "keep": 0.12}`` on the labels,
  the radar and the episode's clock (``envs/vizdoom_trained/``, registered by :mod:`envs.shipped`).

Needs the ``vizdoom`` extra (``pip install 'arena-marl[vizdoom]'``); without it, ``reset``
raises :class:`arena.errors.MissingDependencyError` naming the extra.
"""

from envs.vizdoom.engines import EngineGroup
from envs.vizdoom.env import BUTTONS, SCENARIOS, VizdoomDeathmatch

__all__ = ["VizdoomDeathmatch", "EngineGroup", "BUTTONS", "SCENARIOS"]
