"""A seat-swapped soccer match between two sides: W/D/L and the score with its 95% interval.

Each side is one agent spec played in every seat of its team (``soccer_chaser``,
``random``, or a folder written by ``arena train soccer --control team``, whose model
drives its whole side as one team agent). Game ``i`` is seeded with ``seed + i``; on odd
games the sides swap ends (home <-> away). The score is (wins + draws / 2) / games with
its Wilson interval; the win rate of decided games is printed too. Run::

    python bench/soccer_match.py --first soccer_chaser --second random --games 20 --team-size 2
    python bench/soccer_match.py --first runs/soccer --second random --games 40
"""

from __future__ import annotations

import argparse
import os
import time
from typing import Any

os.environ.setdefault("MUJOCO_GL", "disable")

import envs  # noqa: E402
from arena import GroupTeams, play  # noqa: E402
from arena.registry import make_agent  # noqa: E402
from arena.tournament.stats import wilson_interval  # noqa: E402
from arena.training.trained import is_agent_folder, load_trained_agent  # noqa: E402


def side_agents(spec: str, ids: tuple[str, ...], env: Any) -> dict[Any, Any]:
    """The agents for one side: a team agent from a trained folder, else one agent per seat."""
    if is_agent_folder(spec):
        return {ids: load_trained_agent(spec, env=GroupTeams(env))}
    return {agent_id: make_agent(spec) for agent_id in ids}


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--first", default="soccer_chaser")
    parser.add_argument("--second", default="random")
    parser.add_argument("--games", type=int, default=20)
    parser.add_argument("--team-size", type=int, default=2)
    parser.add_argument("--time-limit", type=float, default=45.0)
    parser.add_argument("--seed", type=int, default=0)
    args = parser.parse_args()
    env = envs.make("soccer", team_size=args.team_size, time_limit=args.time_limit)
    wins = draws = losses = 0
    start = time.perf_counter()
    for game in range(args.games):
        first_side, second_side = ("home", "away") if game % 2 == 0 else ("away", "home")
        agents = {
            **side_agents(args.first, env.teams[first_side], env),
            **side_agents(args.second, env.teams[second_side], env),
        }
        episode = play(env, agents, seed=args.seed + game)
        mine = episode.returns[env.teams[first_side][0]]
        wins, draws, losses = wins + (mine > 0), draws + (mine == 0), losses + (mine < 0)
        print(
            f"game {game:3d}: {args.first} as {first_side}: {'win' if mine > 0 else 'draw' if mine == 0 else 'loss'}"
            f" after {episode.length} steps (score {env.score})",
            flush=True,
        )
    score = (wins + draws / 2) / args.games
    low, high = wilson_interval(wins + draws / 2, args.games)
    decided = wins + losses
    print(
        f"{args.first} vs {args.second}, soccer {args.team_size}v{args.team_size}, {args.time_limit:g} s matches, "
        f"{args.games} games (ends swapped), {time.perf_counter() - start:.0f} s"
    )
    print(f"  W/D/L {wins}/{draws}/{losses}; score {score:.3f} (95% interval {low:.3f}-{high:.3f})")
    if decided:
        dlow, dhigh = wilson_interval(wins, decided)
        print(
            f"  win rate of decided games {wins / decided:.3f} ({wins}/{decided}; 95% interval {dlow:.3f}-{dhigh:.3f})"
        )


if __name__ == "__main__":
    main()
