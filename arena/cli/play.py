"""``arena play``: play one game and print the result, with agents or with people.

Examples::

    arena play tic_tac_toe --agents random,random --seed 3     # machines only
    arena play tic_tac_toe --human player_0 --vs mcts           # you against MCTS
    arena play kuhn_poker --human 1 --vs my_pkg.bots:make_bot   # any agent factory
    arena play rock_paper_scissors --human 0,1                  # hot seat: two people

Exit codes: 0 when the game was played to its end, 3 when a person forfeited (typed
``q`` or ended the input; the seat is ranked last), 2 for bad input (one line on stderr).
"""

from __future__ import annotations

import argparse
import random
import time
from typing import Any

from arena.agents.human import HumanAgent
from arena.cli._arguments import env_arguments
from arena.env import is_real_time
from arena.errors import AgentError, ArenaError, Forfeit, InvalidValueError
from arena.play_loop import play
from arena.registry import make_env
from arena.specs.agents import AgentSpec
from arena.specs.envs import EnvSpec
from arena.specs.options import parse_env_options
from arena.specs.split import split_words
from arena.text import printable

__all__ = ["register", "run", "EXIT_FORFEIT"]

EXIT_FORFEIT = 3
HUMAN = "human"


def _build_agent(text: str, seat: str, env: Any) -> Any:
    """Build the agent ``text`` names for ``seat``, as the tournament runner does.

    ``text`` is ``[NAME=]FACTORY[{JSON kwargs}]``; a factory that takes ``env`` (a
    planner such as MCTS) receives the env of this game.
    """
    head = text.partition("{")[0]
    return AgentSpec.parse(text if "=" in head else f"{seat}={text}").build(env)


def register(subparsers: argparse._SubParsersAction) -> None:
    parser = subparsers.add_parser(
        "play",
        help="play one game (agents, or people with --human) and print the result",
        description="Play one game and print the result. With --human, people play some seats at this "
        "terminal and the other seats are played by --vs agents.",
        epilog="exit codes: 0 the game was played to its end, 3 a person forfeited (q or end of input), 2 bad input",
    )
    env_arguments(parser, '{"rounds": 5}')
    parser.add_argument(
        "--agents",
        default=None,
        help="comma-separated agents, one per seat: a name, 'module:factory', either with JSON "
        f"keyword arguments ('mcts{{\"simulations\": 50}}'), a trained folder (written by "
        f"`arena train`, e.g. runs/c4), or '{HUMAN}' for a person (default: random for all)",
    )
    parser.add_argument(
        "--human",
        action="append",
        default=None,
        metavar="SEAT",
        help="a seat played by a person at this terminal: an agent id (player_0) or a seat "
        "number (0); repeat it or give a comma list for several people (hot seat)",
    )
    parser.add_argument(
        "--vs",
        default=None,
        metavar="AGENT",
        help="the agent for the other seats (as in --agents: a name, 'module:factory' or a trained "
        "folder such as runs/c4), or a comma list with one per other seat (default: random)",
    )
    parser.add_argument(
        "--seed",
        type=int,
        default=None,
        help="seed for the env and the agents (a game with people draws and prints one if unset)",
    )
    parser.add_argument("--render", action="store_true", help="print the final position when the env renders as text")
    parser.add_argument(
        "--record",
        default=None,
        metavar="FILE",
        help="store the game (seed, env, agents, every step's actions) in this results file, "
        "to watch with `arena replay FILE` (several games of one env can share a file)",
    )
    parser.set_defaults(run=run)


def _seat(token: str, seats: list[str], env_name: str) -> str:
    if token in seats:
        return token
    if token.isdigit() and int(token) < len(seats):
        return seats[int(token)]
    raise InvalidValueError(
        f"{env_name} has no seat {token!r}; seats: {', '.join(seats)} (or their numbers 0-{len(seats) - 1})"
    )


def _seat_specs(args: argparse.Namespace, seats: list[str], env_name: str) -> dict[str, str]:
    """The agent spec of every seat (``HUMAN`` for a person), from --agents, --human and --vs."""
    humans = [_seat(token, seats, env_name) for token in split_words(args.human)]
    if args.agents is not None and args.vs is not None:
        raise InvalidValueError(
            "give either --agents (one agent per seat) or --vs (the opponents of --human), not both"
        )
    if args.vs is not None and not humans:
        raise InvalidValueError("--vs names the opponents of a person: give the person's seat with --human SEAT")
    if args.agents is not None:
        names = split_words(args.agents)
        if len(names) != len(seats):
            raise InvalidValueError(f"{env_name} has {len(seats)} seats {seats}, got {len(names)} agents: {names}")
        specs = dict(zip(seats, names))
        specs.update(dict.fromkeys(humans, HUMAN))
        return specs
    others = [seat for seat in seats if seat not in humans]
    opponents = split_words(args.vs) or ["random"]
    if len(opponents) == 1:
        opponents = opponents * len(others)
    elif len(opponents) != len(others):
        raise InvalidValueError(
            f"--vs gives {len(opponents)} agents {opponents} for the {len(others)} seats "
            f"{others} that people do not play; give one agent for all, or one per seat"
        )
    specs = dict.fromkeys(humans, HUMAN)
    specs.update(zip(others, opponents))
    return {seat: specs[seat] for seat in seats}


def _make_env(args: argparse.Namespace, options: dict[str, Any], humans: bool) -> Any:
    if args.render and not humans:
        options.setdefault("render_mode", "ansi")
    env = make_env(args.env, **options)
    if humans and is_real_time(env):
        name, watch = getattr(env, "name", args.env), ",".join(["random"] * len(env.possible_agents))
        env.close()
        raise ArenaError(
            f"{name} is a real-time game and is not playable in the terminal (it does not wait "
            f"for typed moves); watch agents play it instead: arena play {args.env} --agents {watch}"
        )
    render_modes = (getattr(env, "metadata", None) or {}).get("render_modes", ())
    if humans and "render_mode" not in options and "ansi" in render_modes:
        env.close()  # build it again, rendering as text for the people at the terminal
        env = make_env(args.env, render_mode="ansi", **options)
    return env


def run(args: argparse.Namespace) -> int:
    options = parse_env_options(args.env_options)
    env_spec = EnvSpec(args.env, dict(options))  # as given: without the render mode added below
    wants_humans = bool(args.human) or HUMAN in split_words(args.agents)
    env = _make_env(args, options, wants_humans)
    seats = list(env.possible_agents)
    env_name = getattr(env, "name", args.env)
    specs = _seat_specs(args, seats, env_name)
    humans = [seat for seat, spec in specs.items() if spec == HUMAN]
    # Several people on one terminal hide their choices from each other unless the game is fully visible.
    hot_seat = len(humans) > 1 and env.unwrapped.perfect_information is not True
    agents = {
        seat: HumanAgent.at_seat(env, seat, hot_seat=hot_seat) if spec == HUMAN else _build_agent(spec, seat, env)
        for seat, spec in specs.items()
    }
    seed = args.seed
    if args.record:
        from arena.replay.record import check_record_file

        check_record_file(args.record, env_spec)
    if seed is None and args.record:
        seed = random.SystemRandom().randrange(2**31)  # a recorded game needs its seed
    if humans:
        if seed is None:
            seed = random.SystemRandom().randrange(2**31)  # printed, so that the game can be replayed
        cast = ", ".join(f"{seat} is {'a person' if spec == HUMAN else spec}" for seat, spec in specs.items())
        print(f"{env_name}, seed {seed}: {cast}")
        print("Type an action's number or name (or its first letters); ? lists the actions, q forfeits.")
    steps: list[dict[str, Any]] = []
    start = time.perf_counter()
    try:
        episode = play(env, agents, seed=seed, record=steps)
    except AgentError as err:
        if not isinstance(err.original, Forfeit):
            raise
        if args.record:
            _record(args.record, env_spec, specs, seed, steps, None, err, time.perf_counter() - start)
        return _report_forfeit(err, specs, seed)
    if args.record:
        _record(args.record, env_spec, specs, seed, steps, episode, None, time.perf_counter() - start)
    if args.render and not humans:  # people already saw the final view
        text = env.render()
        if isinstance(text, str):
            print(printable(text), end="" if text.endswith("\n") else "\n")
    for seat, spec in specs.items():
        print(f"{seat} ({spec}): return {episode.returns[seat]:+g}, rank {episode.ranks[seat]}")
    print(f"result: {episode.outcome} after {episode.length} steps (seed {seed})")
    return 0


def _record(
    path: str,
    env_spec: EnvSpec,
    specs: dict[str, str],
    seed: int,
    steps: list,
    episode: Any,
    err: AgentError | None,
    seconds: float,
) -> None:
    from arena.replay.record import record_game

    seats = {
        seat: AgentSpec.parse(text if "=" in text.partition("{")[0] else f"{seat}={text}")
        for seat, text in specs.items()
    }
    forfeit = None if err is None else str(err.agent_id)
    reason = None if err is None else str(err.original)
    number = record_game(path, env_spec, seats, seed, steps, episode, forfeit=forfeit, reason=reason, seconds=seconds)
    print(f"recorded as game {number} of {path} (arena replay {path} --game {number})")


def _report_forfeit(err: AgentError, specs: dict[str, str], seed: int | None) -> int:
    """Rank the forfeiting seat last and everyone else first, and say so."""
    loser = err.agent_id
    others = [seat for seat in specs if seat != loser]
    print(printable(err.original))  # the agent's own words
    for seat, spec in specs.items():
        print(f"{seat} ({spec}): {'forfeit, rank ' + str(len(specs)) if seat == loser else 'rank 1'}")
    verb = "wins" if len(others) == 1 else "win"
    print(f"result: {', '.join(others)} {verb} by forfeit of {loser} (seed {seed})")
    return EXIT_FORFEIT
