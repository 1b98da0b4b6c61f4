"""Pommerman: the reference rules (FFA, Team and Radio competitions), natively and fast.

* :class:`Pommerman` — the arena env (``envs.make("pommerman", mode=...)``);
* :mod:`envs.pommerman.core` — one step of the rules on small arrays;
* :mod:`envs.pommerman.board` — reset boards with the reference's distribution;
* :mod:`envs.pommerman.observe` — the per-agent observation and its space;
* :mod:`envs.pommerman.agents` — scripted agents (``pommerman_simple``).

Example:
    >>> import envs
    >>> env = envs.make("pommerman", mode="ffa")
    >>> obs, infos = env.reset(seed=0)
    >>> obs["agent_0"]["board"].shape
    (11, 11)
"""

from envs.pommerman.env import MODES, Pommerman

__all__ = ["Pommerman", "MODES"]
