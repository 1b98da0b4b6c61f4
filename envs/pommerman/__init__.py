"""Pommerman: the reference rules (FFA, Team and Radio competitions), natively and fast.

* :class:`Pommerman` — the arena env (``envs.make("pommerman", mode=...)``);
* :class:`PommermanBatch` (:mod:`envs.pommerman.batch`) — many games stepped, scored, restarted and
  observed (uint8 planes, :mod:`envs.pommerman.planes`, or compact cell codes, :mod:`envs.pommerman.codes`)
  in one compiled call;
* :mod:`envs.pommerman.core` — one step of the rules on small arrays, in named phases;
* :mod:`envs.pommerman.board` — reset boards with the reference's distribution;
* :mod:`envs.pommerman.observe` — the per-agent observation and its space;
* :mod:`envs.pommerman.agents` — scripted agents (``pommerman_simple``; batched:
  ``PommermanSimpleBatch``, which ``pommerman_simple`` plays through on arena's batched trainer);
  :mod:`envs.pommerman.evader` — ``pommerman_evader``, a survivor behind the action filter that never
  bombs, and ``pommerman_shadow``, the same that follows the nearest enemy to four steps;
  :mod:`envs.pommerman.room` — the compiled room count it decides by (and ``pommerman_room_planes``' planes);
* :mod:`envs.pommerman.recipe` — what ``arena train`` runs; :mod:`envs.pommerman.rllib_recipe` — the
  team recipe on RLlib;
* the game's interfaces: :mod:`interfaces.pommerman` (planes, features, the batch's planes),
  :mod:`interfaces.pommerman_safety` (the action filter), :mod:`interfaces.pommerman_shaping` (bonuses),
  :mod:`interfaces.pommerman_radio` (radio mode's silent words), :mod:`interfaces.pommerman_codes` (a codes
  batch read as planes), :mod:`interfaces.pommerman_room` (room and enemy-distance planes);
* ``pommerman_team_ppo`` — the shipped team player, ``pommerman_radio_ppo``, the shipped radio-mode
  player that started from it, and ``pommerman_ffa_ppo``, the shipped free-for-all player that learned from
  ``pommerman_evader`` and ``pommerman_shadow`` (``envs/pommerman_trained/``, loaded by :mod:`envs.shipped`).

Example:
    >>> import envs
    >>> env = envs.make("pommerman", mode="ffa")
    >>> obs, infos = env.reset(seed=0)
    >>> obs["agent_0"]["board"].shape
    (11, 11)
"""

from envs.pommerman.batch import PommermanBatch
from envs.pommerman.env import MODES, Pommerman

__all__ = ["Pommerman", "PommermanBatch", "MODES"]
