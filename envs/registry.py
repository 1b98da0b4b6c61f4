"""Names of the bundled environments and how to build them.

Each entry maps a name to ``"module:callable"``; modules are imported only when the
env is made, so listing names is cheap and an optional dependency of one env never
breaks another. Add a bundled env here and in ``setup.cfg``'s ``arena.envs`` entry
points (a test checks that both lists agree).
"""

from __future__ import annotations

import importlib
from typing import Any

from arena.env import MultiAgentEnv
from arena.errors import UnknownEnvError

__all__ = ["REGISTRY", "make", "names"]

REGISTRY: dict[str, str] = {
    "tic_tac_toe": "envs.tic_tac_toe:TicTacToe",
    "rock_paper_scissors": "envs.rock_paper_scissors:RockPaperScissors",
    "team_rock_paper_scissors": "envs.rock_paper_scissors:TeamRockPaperScissors",
    "connect_four": "envs.connect_four:ConnectFour",
    "kuhn_poker": "envs.kuhn_poker:KuhnPoker",
    "leduc_poker": "envs.leduc_poker:LeducPoker",
    "liars_dice": "envs.liars_dice:LiarsDice",
    "snake": "envs.snake:Snake",
    "pong_2p": "envs.pong:Pong2p",
    "pommerman": "envs.pommerman:Pommerman",
    "vizdoom_deathmatch": "envs.vizdoom:VizdoomDeathmatch",
    "soccer": "envs.soccer:Soccer",
    "magent_battle": "envs.magent:MAgentBattle",
    "magent_combined_arms": "envs.magent:MAgentCombinedArms",
}


def names() -> list[str]:
    """The registered env names, sorted."""
    return sorted(REGISTRY)


def make(name: str, **kwargs: Any) -> MultiAgentEnv:
    """Build the bundled env ``name`` with keyword options.

    Raises:
        UnknownEnvError: ``name`` is not registered; the message lists the names that are.

    Example:
        >>> import envs
        >>> envs.make("rock_paper_scissors", rounds=5).rounds
        5
    """
    try:
        target = REGISTRY[name]
    except (KeyError, TypeError):
        raise UnknownEnvError(f"envs.make: unknown env {name!r}; available: {', '.join(names())}") from None
    module, _, attribute = target.partition(":")
    factory = getattr(importlib.import_module(module), attribute)
    return factory(**kwargs)
