"""First places in Pommerman FFA of bombers that only hide behind the action filter, against three ``pommerman_simple``.

The baseline a free-for-all learner has to beat (issue 50's bar: first place in 40% of games). A
scripted bomber behind ``pommerman_safe_moves`` stands still unless the filter forbids it (then a
random allowed move) and, where the filter allows a bomb, lays one with probability ``p``; with
``p = 0`` it never bombs and only survives. It plays each seat in turn (game ``g``: seat ``g % 4``)
against three ``pommerman_simple``, game ``g`` seeded ``derive_seed(seed, g)``, one game at a time in
this process; first place is the last agent alive (a tie at the step limit, or the last agents dying
together, gives nobody first). Printed per ``p``: first places with a 95% Wilson interval, and the
games nobody won.

    python bench/pommerman_ffa_baselines.py --games 400 --seed 0 --bomb 0 0.02 0.1 0.3

As recorded in docs/performance.md ("Pommerman free-for-all", "How far surviving alone goes").
"""

from __future__ import annotations

import argparse
from typing import Any

import numpy as np

import envs
from arena import AgtItfWrapper, play
from arena.agents.base import Agent
from arena.registry import make_agent
from arena.seeding import derive_seed
from arena.tournament.stats import wilson_interval
from interfaces.pommerman_safety import PommermanSafeMoves

_STOP, _BOMB = 0, 5  # Pommerman's actions: stop, up, down, left, right, bomb


class Hider(Agent):
    """Stand still where allowed, else a random allowed move; a bomb with probability ``bomb`` where allowed.

    Example:
        >>> import numpy as np
        >>> Hider(seed=0).act(None, np.array([0, 1, 1, 0, 0, 1], np.int8)) in (1, 2)  # stop forbidden: move
        True
    """

    def __init__(self, seed: int = 0, bomb: float = 0.0) -> None:
        self.rng = np.random.default_rng(seed)
        self.bomb = float(bomb)

    def reset(self, *, seed: int | None = None) -> None:
        if seed is not None:
            self.rng = np.random.default_rng(seed)

    def act(self, observation: Any, action_mask: Any = None, reward: float = 0.0) -> int:
        legal = np.flatnonzero(action_mask) if action_mask is not None else np.arange(6)
        if _BOMB in legal and self.rng.random() < self.bomb:
            return _BOMB
        if _STOP in legal:
            return _STOP
        moves = [int(a) for a in legal if a != _BOMB]
        return int(self.rng.choice(moves if moves else legal))


def first_places(bomb: float, games: int, seed: int) -> tuple[int, int]:
    """The hider's first places and the games nobody won, over ``games`` seat-rotated games."""
    env = envs.make("pommerman")
    hider = AgtItfWrapper(Hider(seed, bomb), PommermanSafeMoves())
    simple = [make_agent("pommerman_simple") for _ in range(3)]
    wins = ties = 0
    for game in range(games):
        seat = game % len(env.possible_agents)
        others = iter(simple)
        agents = {agent: hider if k == seat else next(others) for k, agent in enumerate(env.possible_agents)}
        returns = play(env, agents, seed=derive_seed(seed, game)).returns
        wins += returns[env.possible_agents[seat]] > 0
        ties += all(value <= 0 for value in returns.values())
    env.close()
    return wins, ties


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--games", type=int, default=400, help="games per bombing probability (default 400)")
    parser.add_argument("--seed", type=int, default=0)
    parser.add_argument("--bomb", type=float, nargs="+", default=[0.0, 0.02, 0.1, 0.3], help="bombing probabilities")
    args = parser.parse_args()
    if args.games < 1:
        parser.error(f"--games must be at least 1, got {args.games}")
    outside = [bomb for bomb in args.bomb if not 0.0 <= bomb <= 1.0]  # checked before any game is played
    if outside:
        parser.error(f"--bomb takes probabilities in [0, 1], got {outside[0]:g}")
    print(
        f"Pommerman FFA, a hider behind pommerman_safe_moves vs 3 pommerman_simple, {args.games} games, seed {args.seed}"
    )
    for bomb in args.bomb:
        wins, ties = first_places(bomb, args.games, args.seed)
        low, high = wilson_interval(wins, args.games)
        print(
            f"  bomb {bomb:<5g} first {wins:4d} of {args.games}: {wins / args.games:6.1%} "
            f"[{low:.1%}-{high:.1%}]   nobody first {ties}"
        )


if __name__ == "__main__":
    main()
