"""Probe Pong learners against ``pong_ai``: rounds won, lost and tied, and how steep their returns leave.

docs/performance-history.md's probe tables (Pong-2p) come from this script: each agent plays
``--games`` games of ``--rounds`` rounds against ``pong_ai`` (``--gain``), seats alternating game
by game, game ``g`` from ``reset(seed=100 + g)``. Beside the rounds it counts the agent's returns of
the ball, their mean ``|offset|`` (how far off its paddle's centre they left: 1 at the end) and the
share that left off the paddle's last tenth (``|offset| >= 0.9``, where ``pong_ai`` starts to miss,
``bench/pong_headroom.py``). A probe, not a tournament: ``arena tournament`` gives the score.

    OMP_NUM_THREADS=1 python bench/pong_probe.py runs/pong_fa_ckpt_5 pong_ai_medium --games 2 --rounds 20 --ball-spin 3
    OMP_NUM_THREADS=1 python bench/pong_probe.py runs/pong_s6_ckpt_1 --games 2 --rounds 20

An agent is a trained folder or a registered agent name.
"""

from __future__ import annotations

import argparse
from typing import Any

import numpy as np

from arena.specs.agents import AgentSpec
from envs.pong import BALL_SPIN, Pong2p
from envs.pong_agents import PongAIAgent

EDGE = 0.9  # pong_ai misses returns from about here on


def probe(
    spec: str, games: int, rounds: int, gain: float = 20.0, max_round_steps: int = 1000, ball_spin: float = BALL_SPIN
) -> dict[str, Any]:
    """Play ``spec`` against ``pong_ai(gain)`` (the env's ``ball_spin`` as given); the rounds, the games
    and the agent's returns."""
    totals, outcomes, steepness = np.zeros(3, dtype=int), [0, 0, 0], []
    for game in range(games):
        env = Pong2p(rounds=rounds, max_round_steps=max_round_steps, ball_spin=ball_spin)
        seat = game % 2
        me, other = f"player_{seat}", f"player_{1 - seat}"
        agent, opponent = AgentSpec.parse(spec).build(), PongAIAgent(gain=gain)
        agent.setup(env.observation_space(me), env.action_space(me))
        opponent.setup(env.observation_space(other), env.action_space(other))
        agent.reset(seed=game)
        observations, _ = env.reset(seed=100 + game)
        while env.agents:
            before, round_before = env.state.ball_vx, env.state.round
            actions = {me: agent.act(observations[me]), other: opponent.act(observations[other])}
            observations, *_ = env.step(actions)
            state = env.state
            towards_me = before < 0 if seat == 0 else before > 0
            returned = state.round == round_before and np.sign(state.ball_vx) == -np.sign(before)  # not a serve
            if env.agents and towards_me and returned:
                steepness.append(abs(state.ball_vy) / env.ball_spin)
        won, lost = env.state.score[seat], env.state.score[1 - seat]
        totals += [won, lost, env.state.ties]
        outcomes[0 if won > lost else 1 if won == lost else 2] += 1
    steep = np.array(steepness) if steepness else np.zeros(1)
    return {
        "rounds": totals.tolist(),
        "games": outcomes,
        "returns": len(steepness),
        "mean_offset": float(steep.mean()),
        "edge_share": float((steep >= EDGE).mean()) if steepness else 0.0,
        "outer_half_share": float((steep >= 0.5).mean()) if steepness else 0.0,
    }


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("agents", nargs="+", help="trained folders or registered agent names")
    parser.add_argument("--games", type=int, default=2, help="games per agent, seats alternating")
    parser.add_argument("--rounds", type=int, default=20, help="rounds a game")
    parser.add_argument("--max-round-steps", type=int, default=1000, help="a round's step limit (a tie)")
    parser.add_argument("--gain", type=float, default=20.0, help="pong_ai's gain (20: pong_ai itself)")
    parser.add_argument("--ball-spin", type=float, default=BALL_SPIN, help="the env's ball_spin (default 6, the env's)")
    args = parser.parse_args()
    physics = f"pong_2p (ball_spin={args.ball_spin:g}) against pong_ai(gain={args.gain:g})"
    print(f"{physics}: {args.games} games of {args.rounds} rounds each")
    for spec in args.agents:
        found = probe(spec, args.games, args.rounds, args.gain, args.max_round_steps, args.ball_spin)
        won, lost, tied = found["rounds"]
        wins, draws, losses = found["games"]
        print(
            f"{spec}: rounds W-L-T {won}-{lost}-{tied}, games W-D-L {wins}-{draws}-{losses}, "
            f"returns {found['returns']}, mean |offset| {found['mean_offset']:.2f}, "
            f"off the last tenth {found['edge_share']:.1%}, off the outer half {found['outer_half_share']:.1%}",
            flush=True,
        )


if __name__ == "__main__":
    main()
