"""How beatable is ``pong_ai``? Full-information players measure the room a learner has against it.

The Pong bar asks for a pixel policy that scores at least 0.8 against ``pong_ai`` over seat-swapped
20-round games. A game is won by winning more rounds than the other side; a round that lasts
``max_round_steps`` is a tie. This bench plays ``pong_2p`` with players that read
the env's exact state, so what they cannot do a policy reading 40x40 pictures cannot either:

* ``pong_ai`` against itself (the mirror match);
* an *interceptor* against ``pong_ai``: it computes where the ball will cross its paddle's face
  (wall bounces included) and is there in time, hitting the ball ``offset`` (in the env's units,
  -1 top end .. +1 bottom end of the paddle) off centre, so the return leaves at
  ``ball_spin * offset`` px/step; ``offset`` fixed in size, its sign drawn every return;
* a *planner* over the interceptor's returns: for each return, every offset of a grid is tried on a
  copy of the game, and the bench counts the returns for which at least one offset makes
  ``pong_ai`` miss the ball (an upper bound on what aiming can win).

Prints the rounds won, lost and tied of each match and the planner's counts. ``--gain`` weakens the
opponent (``pong_ai_medium`` is gain 10, ``pong_ai_easy`` 5); ``--ball-spin`` changes the physics: the
steepest return's vertical speed (the env's default 6, 1.5x ``pong_ai``'s 4 px/step paddle; Arena's
Pong-2p sends its steepest ball at 1.6x its built-in player's speed, 6.4 here; the default was 3, below
the paddle, until 27 Nov 2026).

    python bench/pong_headroom.py --rounds 200 --shots 400 --ball-spin 3
    python bench/pong_headroom.py --rounds 60 --shots 0 --offsets 0,0.3,0.5,0.7
"""

from __future__ import annotations

import argparse
import copy
import time

import numpy as np

from envs.pong import _LEFT_FACE, _RIGHT_FACE, BALL, BALL_SPIN, FIELD, PADDLE, Pong2p
from envs.pong_agents import PongAIAgent

_NOOP, _UP, _DOWN = 0, 2, 3
_BALL_TOP_MAX = FIELD - BALL[1]
_REACH = (PADDLE[1] + BALL[1]) / 2  # the env's bounce: offset 1 is this far below the paddle's centre


def meeting_y(env: Pong2p, side: int) -> float | None:
    """The ball's top ``y`` when it crosses ``side``'s paddle face, or ``None`` if it moves away."""
    state = env.state
    x, y, vx, vy = state.ball_x, state.ball_y, state.ball_vx, state.ball_vy
    if (vx < 0) != (side == 0):
        return None
    while (x >= _LEFT_FACE) if side == 0 else (x + BALL[0] <= _RIGHT_FACE):
        x, y = x + vx, y + vy
        if y < 0.0:  # the env's mirror walls
            y, vy = -y, -vy
        elif y > _BALL_TOP_MAX:
            y, vy = 2 * _BALL_TOP_MAX - y, -vy
    return y


def steer(target_top: float, top: float, speed: float, paddle_speed: float) -> int:
    """The move that brings a paddle at ``top`` moving at ``speed`` to ``target_top`` and stops it there."""
    distance = target_top - top
    wanted = 0.0 if abs(distance) < 0.5 else float(np.clip(distance / 2.0, -paddle_speed, paddle_speed))
    if wanted > speed + 1e-6:
        return _DOWN
    if wanted < speed - 1e-6:
        return _UP
    return _NOOP


def interceptor_move(env: Pong2p, offset: float) -> int:
    """player_0's move: meet the ball ``offset`` off the paddle's centre, else wait in the middle."""
    state = env.state
    y = meeting_y(env, 0)
    if y is None:
        target = (FIELD - PADDLE[1]) / 2
    else:  # the env: offset = (ball centre - paddle centre) / reach
        target = y + BALL[1] / 2 - offset * _REACH - PADDLE[1] / 2
    target = float(np.clip(target, 0.0, FIELD - PADDLE[1]))
    return steer(target, state.paddle_y[0], state.paddle_vy[0], env.paddle_speed)


def ai_misses(env: Pong2p, ai: PongAIAgent, ball_vy: float) -> bool:
    """On a copy of ``env`` just after player_0's return, sent at ``ball_vy``: does ``pong_ai`` (right) miss it?"""
    trial = Pong2p(rounds=2**31 - 1, max_round_steps=2**31 - 1, ball_spin=env.ball_spin)
    trial.reset(seed=0)
    trial.state = copy.deepcopy(env.state)
    trial.state.round, trial.state.round_steps = 0, 0
    trial.state.ball_vy = ball_vy
    observation = trial._observe()["player_1"]
    while trial.state.ball_vx > 0:
        observations, rewards, _, _, _ = trial.step({"player_0": _NOOP, "player_1": ai.act(observation)})
        if rewards["player_0"] > 0:
            return True
        observation = observations["player_1"]
    return False


def play_rounds(
    rounds: int,
    seed: int,
    offset: float | None,
    planner_shots: int = 0,
    gain: float = 20.0,
    ball_spin: float = BALL_SPIN,
) -> dict[str, float]:
    """player_0 (``pong_ai`` when ``offset`` is None, else the interceptor) against ``pong_ai`` with ``gain``,
    the env's ``ball_spin`` (the steepest return's vertical speed) as given."""
    env = Pong2p(rounds=rounds, ball_spin=ball_spin)
    ais = [PongAIAgent(), PongAIAgent(gain=gain)]
    for ai in ais:
        ai.setup(env.observation_space("player_0"), env.action_space("player_0"))
    rng = np.random.default_rng(seed)
    observations, _ = env.reset(seed=seed)
    sign, shots, winnable, winning_offsets = 1.0, 0, 0, 0
    grid = np.linspace(-0.95, 0.95, 39)
    while env.agents:
        if offset is None:
            left = ais[0].act(observations["player_0"])
        else:
            left = interceptor_move(env, sign * offset)
        coming = env.state.ball_vx < 0
        observations, _, _, _, _ = env.step({"player_0": left, "player_1": ais[1].act(observations["player_1"])})
        if env.agents and coming and env.state.ball_vx > 0 and env.state.ball_x < FIELD / 2:  # player_0 returned it
            sign = 1.0 if rng.random() < 0.5 else -1.0
            if shots < planner_shots:
                shots += 1
                wins = sum(ai_misses(env, ais[1], env.ball_spin * value) for value in grid)
                winnable += wins > 0
                winning_offsets += wins
    won, lost = env.state.score
    return {
        "won": won,
        "lost": lost,
        "tied": env.state.ties,
        "shots": shots,
        "winnable": winnable,
        "offsets": winning_offsets / max(shots, 1),
        "grid": len(grid),
    }


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--rounds", type=int, default=200, help="rounds of each match (1,000-step ties)")
    parser.add_argument("--shots", type=int, default=400, help="returns the planner examines")
    parser.add_argument("--offsets", default="0,0.3,0.6,0.8,0.95", help="the interceptor's offsets")
    parser.add_argument("--seed", type=int, default=0)
    parser.add_argument("--gain", type=float, default=20.0, help="the opponent pong_ai's gain (its default 20)")
    parser.add_argument(
        "--ball-spin",
        type=float,
        default=BALL_SPIN,
        help="the env's ball_spin: the steepest return's px/step (default 6)",
    )
    args = parser.parse_args()
    physics = f"ball_spin={args.ball_spin:g}"
    print(
        f"pong_2p, {physics}; {args.rounds} rounds a match; player_0 against pong_ai(gain={args.gain:g}) (rounds W-L-T)"
    )
    started = time.perf_counter()
    mirror = play_rounds(args.rounds, args.seed, None, gain=args.gain, ball_spin=args.ball_spin)
    print(f"  pong_ai (mirror match)         {mirror['won']:4d}-{mirror['lost']:4d}-{mirror['tied']:4d}")
    for offset in (float(value) for value in args.offsets.split(",")):
        result = play_rounds(args.rounds, args.seed, offset, gain=args.gain, ball_spin=args.ball_spin)
        print(f"  interceptor, offset +-{offset:<4g}     {result['won']:4d}-{result['lost']:4d}-{result['tied']:4d}")
    planned = play_rounds(
        args.rounds, args.seed + 1, 0.6, planner_shots=args.shots, gain=args.gain, ball_spin=args.ball_spin
    )
    shots = planned["shots"]
    print(
        f"planner over {shots} returns of the interceptor (offset +-0.6): a grid of {planned['grid']} offsets "
        f"from -0.95 to 0.95 tried on each"
    )
    print(
        f"  returns with an offset that makes pong_ai miss: {planned['winnable']} ({planned['winnable'] / max(shots, 1):.1%}); "
        f"winning offsets per return: {planned['offsets']:.2f} of {planned['grid']}"
    )
    print(f"({time.perf_counter() - started:.0f} s)")


if __name__ == "__main__":
    main()
