"""Bridges between arena and other multi-agent and single-agent libraries.

One submodule per library; each imports its library when it is imported itself, and a
missing library raises :class:`arena.errors.MissingDependencyError` naming the
``setup.cfg`` extra that installs it. Importing ``arena.adapters`` alone imports nothing
optional.

* :mod:`arena.adapters.pettingzoo` — ``to_aec``, ``to_parallel``, ``from_pettingzoo``
  (extra ``pettingzoo``);
* :mod:`arena.adapters.openspiel` — ``from_openspiel`` (extra ``openspiel``);
* :mod:`arena.adapters.rllib` — ``to_rllib`` (extra ``rllib``);
* :mod:`arena.adapters.gymnasium` — ``from_gymnasium``, ``to_gymnasium`` (core dependency).

Example:
    >>> import envs
    >>> from arena.adapters.gymnasium import to_gymnasium
    >>> from arena import RandomAgent
    >>> env = to_gymnasium(envs.make("tic_tac_toe"), "player_0", {"player_1": RandomAgent(seed=0)})
    >>> env.observation_space
    Box(0, 2, (3, 3), int8)
"""

__all__: list[str] = []
