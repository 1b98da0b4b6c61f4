"""A seat-swapped soccer match between two sides: W/D/L and the score with its 95% interval.

Each side is one agent spec played in every seat of its team (``soccer_chaser``,
``random``, or a folder written by ``arena train soccer``: with ``--control team`` its model
drives its whole side as one team agent, otherwise a copy of it plays each seat). Game ``i``
is seeded with ``seed + i``; on odd games the sides swap ends (home <-> away). The score is
(wins + draws / 2) / games with its Wilson interval; the win rate of decided games is printed
too. Run::

    python bench/soccer_match.py --first soccer_chaser --second random --games 20 --team-size 2
    python bench/soccer_match.py --first runs/soccer --second random --games 40
"""

from __future__ import annotations

import argparse
import os
import time
from typing import Any

os.environ.setdefault("MUJOCO_GL", "disable")

import numpy as np  # noqa: E402

from arena import Agent, play  # noqa: E402
from arena.agents.base import ForwardingAgent  # noqa: E402
from arena.specs.agents import AgentSpec  # noqa: E402
from arena.tournament.stats import wilson_interval  # noqa: E402
from arena.training.trained import read_manifest  # noqa: E402
from envs.soccer.env import Soccer  # noqa: E402


class Watched(ForwardingAgent):
    """An agent as it is, which also keeps the mean of dm_control's shaping statistics it is shown."""

    def __init__(self, inner: Agent, totals: dict[str, float]) -> None:
        super().__init__(inner)
        self.totals = totals

    def act(self, observation: Any, action_mask: Any = None, reward: float = 0.0) -> Any:
        for member in observation if isinstance(observation, tuple) else (observation,):
            if member is not None:
                self.totals["to_ball"] += float(np.sum(member["stats_vel_to_ball"]))
                self.totals["ball_to_goal"] += float(np.sum(member["stats_vel_ball_to_goal"]))
                self.totals["count"] += 1
        return super().act(observation, action_mask, reward)


def side_agents(spec: str, ids: tuple[str, ...], env: Any, totals: dict[str, float]) -> dict[Any, Any]:
    """The agents for one side: one team agent from a folder trained with ``--control team``, else
    one agent per seat (a folder trained on one seat plays every seat of its side, a copy each)."""
    entrant = AgentSpec.parse(spec)
    if entrant.folder is not None and read_manifest(entrant.folder).get("team_size") is not None:
        return {ids: Watched(entrant.build(env), totals)}
    return {agent_id: Watched(agent, totals) for agent_id, agent in zip(ids, entrant.build_side(len(ids), env))}


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--first", default="soccer_chaser")
    parser.add_argument("--second", default="random")
    parser.add_argument("--games", type=int, default=20)
    parser.add_argument("--team-size", type=int, default=2)
    parser.add_argument("--time-limit", type=float, default=45.0)
    parser.add_argument("--seed", type=int, default=0)
    args = parser.parse_args()
    env = Soccer(team_size=args.team_size, time_limit=args.time_limit)
    teams = env.teams or {}  # soccer always has its two sides
    wins = draws = losses = 0
    start = time.perf_counter()
    totals = [dict.fromkeys(("to_ball", "ball_to_goal", "count"), 0.0) for _ in range(2)]
    for game in range(args.games):
        first_side, second_side = ("home", "away") if game % 2 == 0 else ("away", "home")
        agents = {
            **side_agents(args.first, teams[first_side], env, totals[0]),
            **side_agents(args.second, teams[second_side], env, totals[1]),
        }
        episode = play(env, agents, seed=args.seed + game)
        mine = episode.returns[teams[first_side][0]]
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
    for name, side in ((args.first, totals[0]), (args.second, totals[1])):  # what each side does, goals or not
        count = max(side["count"], 1.0)
        print(
            f"  {name}: mean speed towards the ball {side['to_ball'] / count:.2f} m/s, the ball's towards the "
            f"opponents' goal {side['ball_to_goal'] / count:.2f} m/s (dm_control's stats, per player and step)"
        )


if __name__ == "__main__":
    main()
