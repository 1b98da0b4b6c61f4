"""First places in Pommerman FFA of scripted bombers that survive behind the action filter, against three ``pommerman_simple``.

The baselines a free-for-all learner has to beat (issue 50's bar: first place in 40% of games).
The hider: a bomber behind ``pommerman_safe_moves`` that stands still unless the filter forbids it
(then a random allowed move) and, where the filter allows a bomb, lays one with probability ``p``;
with ``p = 0`` it never bombs and only survives. The evader (``pommerman_evader``,
:mod:`envs.pommerman.evader`): it never bombs either, but keeps to open ground while an enemy is near.
The shadow (``pommerman_shadow``): the evader that also follows the nearest enemy to four steps.
Each plays each seat in turn (game ``g``: seat ``g % 4``) against three ``pommerman_simple``, game ``g``
seeded ``derive_seed(seed, g)``, one game at a time in this process; first place is the last agent
alive (a tie at the step limit, or the last agents dying together, gives nobody first). Printed per
player: first places with a 95% Wilson interval, and the games nobody won.

    python bench/pommerman_ffa_baselines.py --games 400 --seed 0 --bomb 0 0.02 0.1 0.3 --evader --shadow

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


def first_places(player: Agent, games: int, seed: int) -> tuple[int, int]:
    """``player``'s first places and the games nobody won, over ``games`` seat-rotated games."""
    env = envs.make("pommerman")
    simple = [make_agent("pommerman_simple") for _ in range(3)]
    wins = ties = 0
    for game in range(games):
        seat = game % len(env.possible_agents)
        others = iter(simple)
        agents = {agent: player if k == seat else next(others) for k, agent in enumerate(env.possible_agents)}
        returns = play(env, agents, seed=derive_seed(seed, game)).returns
        wins += returns[env.possible_agents[seat]] > 0
        ties += all(value <= 0 for value in returns.values())
    env.close()
    return wins, ties


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--games", type=int, default=400, help="games per player (default 400)")
    parser.add_argument("--seed", type=int, default=0)
    parser.add_argument(
        "--bomb", type=float, nargs="*", default=[0.0, 0.02, 0.1, 0.3], help="the hider's bombing probabilities"
    )
    parser.add_argument("--evader", action="store_true", help="play pommerman_evader too")
    parser.add_argument("--shadow", action="store_true", help="play pommerman_shadow too")
    args = parser.parse_args()
    if args.games < 1:
        parser.error(f"--games must be at least 1, got {args.games}")
    outside = [bomb for bomb in args.bomb if not 0.0 <= bomb <= 1.0]  # checked before any game is played
    if outside:
        parser.error(f"--bomb takes probabilities in [0, 1], got {outside[0]:g}")
    if not args.bomb and not args.evader and not args.shadow:
        parser.error("nothing to play: give --bomb probabilities, --evader, --shadow, or more than one")
    print(f"Pommerman FFA, scripted survivors vs 3 pommerman_simple, {args.games} games, seed {args.seed}")
    players = [
        (f"hider bomb {bomb:<5g}", AgtItfWrapper(Hider(args.seed, bomb), PommermanSafeMoves())) for bomb in args.bomb
    ]
    if args.evader:
        players.append((f"{'pommerman_evader':<16}", make_agent("pommerman_evader", seed=args.seed)))
    if args.shadow:
        players.append((f"{'pommerman_shadow':<16}", make_agent("pommerman_shadow", seed=args.seed)))
    for name, player in players:
        wins, ties = first_places(player, args.games, args.seed)
        low, high = wilson_interval(wins, args.games)
        print(
            f"  {name} first {wins:4d} of {args.games}: {wins / args.games:6.1%} "
            f"[{low:.1%}-{high:.1%}]   nobody first {ties}"
        )


if __name__ == "__main__":
    main()
