"""``arena play``: machines only, and people at the terminal with --human / --vs.

The end-to-end tests run ``python -m arena play ...`` as a subprocess fed through a pipe or
a pseudo-terminal; the agents they name by ``module:callable`` live in this module.
"""

from __future__ import annotations

import io
import json
import os
import pty
import re
import select
import subprocess
import sys
import time
from pathlib import Path
from typing import Any

import numpy as np
import pytest
from gymnasium import spaces

import envs
from arena import Agent, AgtItfWrapper, MultiAgentEnv
from arena.cli import main
from arena.cli.play import EXIT_FORFEIT
from arena.env import is_real_time
from tests.quick import QUICK_OPTIONS, probe, quick_make

ROOT = Path(__file__).resolve().parents[2]
HERE = "tests.arena.test_cli_play"


# ------------------------------------------------------------- scripted players
class FirstLegal(Agent):
    """A deterministic opponent: always the lowest legal action."""

    def act(self, observation: Any, action_mask: Any = None, reward: float = 0.0) -> int:
        start = int(self.action_space.start)
        return start if action_mask is None else start + int(np.flatnonzero(action_mask)[0])


def first_legal_behind_interface() -> AgtItfWrapper:
    """A 'trained model' seeing the board from its own side, played through its interface."""
    from interfaces.board import EgoBoard

    return AgtItfWrapper(FirstLegal(), EgoBoard())


class RealTimeEnv(MultiAgentEnv):
    """A stand-in for Pong or Snake: declares ``metadata["real_time"]``."""

    metadata = {"render_modes": ["rgb_array"], "real_time": True}

    def __init__(self) -> None:
        self.possible_agents = ["left", "right"]
        self.agents = []
        self.observation_spaces = dict.fromkeys(self.possible_agents, spaces.Discrete(2))
        self.action_spaces = dict.fromkeys(self.possible_agents, spaces.Discrete(3))

    def reset(self, *, seed=None, options=None):
        super().reset(seed=seed)
        self.agents = list(self.possible_agents)
        return {"left": 0, "right": 0}, {"left": {}, "right": {}}


class SteeringEnv(MultiAgentEnv):
    """A turn-based env whose ``driver`` steers with a continuous action."""

    def __init__(self) -> None:
        self.possible_agents = ["driver", "navigator"]
        self.agents = []
        self.observation_spaces = dict.fromkeys(self.possible_agents, spaces.Discrete(2))
        self.action_spaces = {"driver": spaces.Box(-1.0, 1.0, (1,)), "navigator": spaces.Discrete(2)}


# ------------------------------------------------------------------- helpers
def arena_play(*args: str, stdin: str = "") -> subprocess.CompletedProcess:
    return subprocess.run(
        [sys.executable, "-m", "arena", "play", *args],
        input=stdin,
        capture_output=True,
        text=True,
        cwd=ROOT,
        timeout=60,
    )


def play_in_process(monkeypatch, capsys, *args: str, stdin: str = "") -> tuple[int, str, str]:
    monkeypatch.setattr(sys, "stdin", io.StringIO(stdin))
    code = main(["play", *args])
    captured = capsys.readouterr()
    return code, captured.out, captured.err


class Terminal:
    """A child process on a pseudo-terminal, driven like a person: wait for text, then type."""

    def __init__(self, *args: str) -> None:
        master, slave = pty.openpty()
        self.process = subprocess.Popen(
            [sys.executable, "-m", "arena", "play", *args],
            stdin=slave,
            stdout=slave,
            stderr=slave,
            cwd=ROOT,
            close_fds=True,
        )
        os.close(slave)
        self.fd = master
        self.output = ""

    def expect(self, text: str, timeout: float = 30.0) -> None:
        deadline = time.monotonic() + timeout
        while text not in self.output:
            if time.monotonic() > deadline:
                raise AssertionError(f"{text!r} did not appear; the terminal shows:\n{self.output}")
            if select.select([self.fd], [], [], 0.2)[0]:
                try:
                    self.output += os.read(self.fd, 4096).decode(errors="replace")
                except OSError:  # EIO: the child closed the terminal
                    raise AssertionError(
                        f"the game ended before {text!r}; the terminal shows:\n{self.output}"
                    ) from None

    def type(self, line: str) -> None:
        os.write(self.fd, (line + "\n").encode())

    def finish(self, timeout: float = 30.0) -> int:
        deadline = time.monotonic() + timeout
        while time.monotonic() < deadline:
            if select.select([self.fd], [], [], 0.2)[0]:
                try:
                    chunk = os.read(self.fd, 4096)
                except OSError:
                    break
                if not chunk:
                    break
                self.output += chunk.decode(errors="replace")
            elif self.process.poll() is not None:
                break
        os.close(self.fd)
        return self.process.wait(timeout=timeout)


# X takes the centre, O (first legal) takes 0, X takes 2, O takes 1, X completes the diagonal 2-4-6.
WINNING_MOVES = "4\nr0c2\n6\n"


# ------------------------------------------------------- machines only (as before)
def test_agents_only_game_is_reproducible() -> None:
    first = arena_play("tic_tac_toe", "--agents", "random,random", "--seed", "3")
    second = arena_play("tic_tac_toe", "--agents", "random,random", "--seed", "3")
    assert first.returncode == 0, first.stderr
    assert first.stdout == second.stdout
    lines = first.stdout.splitlines()
    assert re.fullmatch(r"player_0 \(random\): return [+-]\d+, rank [12]", lines[0])
    assert re.fullmatch(r"result: (draw|player_[01] wins) after \d steps \(seed 3\)", lines[-1])


def test_agents_only_render_prints_the_final_board(monkeypatch, capsys) -> None:
    code, out, _ = play_in_process(
        monkeypatch,
        capsys,
        "tic_tac_toe",
        "--agents",
        f"{HERE}:FirstLegal,{HERE}:FirstLegal",
        "--seed",
        "0",
        "--render",
    )
    assert code == 0
    # Both play the lowest empty cell: X takes 0, 2, 4, 6 (O 1, 3, 5) and wins on the 2-4-6 diagonal.
    assert out.startswith("XOX\nOXO\nX..\n")
    assert out.splitlines()[-1] == "result: player_0 wins after 7 steps (seed 0)"


# --------------------------------------------------------------- a person plays
def test_human_wins_a_full_game_of_tic_tac_toe_through_a_pipe() -> None:
    done = arena_play(
        "tic_tac_toe", "--human", "player_0", "--vs", f"{HERE}:FirstLegal", "--seed", "7", stdin=WINNING_MOVES
    )
    assert done.returncode == 0, done.stderr
    assert done.stderr == ""
    out = done.stdout
    assert out.startswith(f"tic_tac_toe, seed 7: player_0 is a person, player_1 is {HERE}:FirstLegal\n")
    assert "legal actions: 0 (r0c0), 1 (r0c1), 2 (r0c2), 3 (r1c0), 4 (r1c1)" in out
    # The person's second turn shows the machine's reply on the board.
    assert "--- player_0, turn 2 ---\nO..\n.X.\n...\n" in out
    assert "--- game over for player_0 ---\nOOX\n.X.\nX..\nplayer_0: reward +1 at the end, total return +1" in out
    assert out.endswith(
        f"player_0 (human): return +1, rank 1\nplayer_1 ({HERE}:FirstLegal): return -1, rank 2\n"
        "result: player_0 wins after 5 steps (seed 7)\n"
    )


def test_invalid_inputs_are_reprompted_with_their_reasons() -> None:
    typed = "\n".join(["4", "r0c0", "foo", "12", "", "r", "?", "R0C2", "6"]) + "\n"
    done = arena_play("tic_tac_toe", "--human", "0", "--vs", f"{HERE}:FirstLegal", "--seed", "1", stdin=typed)
    assert done.returncode == 0, done.stderr
    legal = "1 (r0c1), 2 (r0c2), 3 (r1c0), 5 (r1c2), 6 (r2c0), 7 (r2c1), 8 (r2c2)"
    # Piped lines are written after their prompt, so the output reads like a terminal session.
    assert (
        "--- player_0, turn 2 ---\nO..\n.X.\n...\n"
        f"legal actions: {legal}\n"
        "player_0> r0c0\n"
        f"0 (r0c0) is not legal now; legal: {legal}\n"
        "player_0> foo\n"
        "unknown action 'foo': type a number (0-8) or a name, e.g. 'r0c1'; q quits\n"
        "player_0> 12\n"
        "there is no action 12: actions are numbered 0 to 8\n"
        "player_0> \n"
        "type an action's number (0-8) or name; q quits\n"
        "player_0> r\n"
        "'r' is ambiguous: it could be r0c1, r0c2, r1c0, r1c2, r2c0, r2c1, r2c2\n"
        "player_0> ?\n"
        f"legal actions: {legal}\n"
        "player_0> R0C2\n"
        "--- player_0, turn 3 ---\n"
    ) in done.stdout
    assert done.stdout.endswith("result: player_0 wins after 5 steps (seed 1)\n")


@pytest.mark.parametrize(
    ("typed", "reason"),
    [("4\nq\n", "typed 'q'"), ("4\nQuit\n", "typed 'Quit'"), ("4\n", "the input ended"), ("", "the input ended")],
)
def test_quit_and_end_of_input_forfeit_cleanly(typed: str, reason: str) -> None:
    done = arena_play("tic_tac_toe", "--human", "player_0", "--vs", f"{HERE}:FirstLegal", "--seed", "2", stdin=typed)
    assert done.returncode == EXIT_FORFEIT
    assert done.stderr == ""  # no traceback, no error line
    assert done.stdout.endswith(
        f"player_0 forfeits: {reason}\nplayer_0 (human): forfeit, rank 2\n"
        f"player_1 ({HERE}:FirstLegal): rank 1\n"
        "result: player_1 wins by forfeit of player_0 (seed 2)\n"
    )


def test_machine_seat_first_and_a_model_behind_an_interface(monkeypatch, capsys) -> None:
    # The person plays O; X is a first-legal policy that sees an ego board through EgoBoard.
    code, out, _ = play_in_process(
        monkeypatch,
        capsys,
        "tic_tac_toe",
        "--human",
        "player_1",
        "--vs",
        f"{HERE}:first_legal_behind_interface",
        "--seed",
        "5",
        stdin="4\n8\n",
    )
    assert code == 0
    assert "--- player_1, turn 1 ---\nX..\n...\n...\n" in out  # the machine moved first
    assert out.splitlines()[-1] == "result: player_0 wins after 5 steps (seed 5)"  # 0-1-2 beats the person


def test_vs_takes_tournament_specs_planners_and_json_kwargs(monkeypatch, capsys) -> None:
    # MCTS needs the env it plays in (it is given this game's env); the JSON holds a comma.
    code, out, _ = play_in_process(
        monkeypatch,
        capsys,
        "tic_tac_toe",
        "--human",
        "1",
        "--vs",
        'mcts{"simulations": 40, "seed": 1}',
        "--seed",
        "3",
        stdin="4\n",
    )
    assert code == EXIT_FORFEIT
    assert "--- player_1, turn 1 ---\n" in out and "player_1 forfeits: the input ended" in out
    assert 'player_0 (mcts{"simulations": 40, "seed": 1}): rank 1\n' in out
    # A model behind an interface, built from plain data: the heuristic on a mirrored board.
    mirrored = (
        'arena.specs.agents:behind_interface{"agent": "connect_four_heuristic", "interface": '
        '"interfaces.board:RotateBoard", "interface_kwargs": {"quarter_turns": 0, "mirror": true}}'
    )
    code, out, _ = play_in_process(
        monkeypatch,
        capsys,
        "connect_four",
        "--human",
        "player_0",
        "--vs",
        mirrored,
        "--seed",
        "2",
        stdin="0\n1\n2\n3\n4\n5\n6\n" * 20,
    )
    assert code == 0
    assert out.endswith("result: player_1 wins after 8 steps (seed 2)\n")


def test_agents_list_may_name_people_and_a_game_without_a_seed_prints_one(monkeypatch, capsys) -> None:
    code, out, _ = play_in_process(
        monkeypatch, capsys, "tic_tac_toe", "--agents", "human,human", stdin="0\n3\n1\n4\n2\n"
    )
    assert code == 0
    seed = int(re.match(r"tic_tac_toe, seed (\d+): player_0 is a person, player_1 is a person\n", out).group(1))
    assert "your turn; press Enter" not in out  # a fully visible game needs no hand-over
    assert out.endswith(f"result: player_0 wins after 5 steps (seed {seed})\n")


def test_hot_seat_simultaneous_game_asks_each_person_in_turn(monkeypatch, capsys) -> None:
    # Each round: Enter and a choice for player_0, then Enter and a choice for player_1.
    typed = "\nrock\n\npaper\n" + "\ns\n\nscissors\n"
    code, out, _ = play_in_process(
        monkeypatch,
        capsys,
        "rock_paper_scissors",
        "--human",
        "0",
        "--human",
        "1",
        "--env-options",
        '{"rounds": 2}',
        "--seed",
        "0",
        stdin=typed,
    )
    assert code == 0
    sections = out.split("--- ")
    assert sections[2].startswith("player_1, turn 1 ---\nround 0/2: no moves yet\n")  # not player_0's choice
    assert "round 1/2: player_0 rock, player_1 paper" in sections[3]  # public once the round is played
    assert out.endswith(
        "player_0 (human): return -1, rank 2\nplayer_1 (human): return +1, rank 1\n"
        "result: player_1 wins after 2 steps (seed 0)\n"
    )


def test_hot_seat_reads_choices_without_echo_on_a_terminal() -> None:
    terminal = Terminal("rock_paper_scissors", "--human", "0,1", "--env-options", '{"rounds": 1}', "--seed", "0")
    terminal.expect("player_0: your turn; press Enter")
    terminal.type("")
    terminal.expect("player_0> ")
    terminal.type("rock")
    terminal.expect("player_1: your turn; press Enter")
    terminal.type("")
    terminal.expect("player_1> ")
    terminal.type("paper")
    assert terminal.finish() == 0
    assert "player_0> \r\n" in terminal.output and "player_1> \r\n" in terminal.output  # never echoed
    assert "player_0> rock" not in terminal.output and "player_1> paper" not in terminal.output
    assert "result: player_1 wins after 1 steps (seed 0)" in terminal.output


def test_single_person_on_a_terminal_sees_the_echo_and_q_forfeits() -> None:
    terminal = Terminal("tic_tac_toe", "--human", "0", "--vs", f"{HERE}:FirstLegal", "--seed", "4")
    terminal.expect("player_0> ")
    terminal.type("4")
    terminal.expect("--- player_0, turn 2 ---")
    terminal.expect("player_0> ")
    terminal.type("q")
    assert terminal.finish() == EXIT_FORFEIT
    assert "player_0> 4\r\n" in terminal.output  # the control case: one person, normal echo
    assert "player_0 forfeits: typed 'q'" in terminal.output
    assert "Traceback" not in terminal.output


def _kuhn_cards(seed: int) -> tuple[int, int]:
    """The card ranks (0 J, 1 Q, 2 K) of both players for a seed, read from their observations."""
    env = envs.make("kuhn_poker")
    observations, _ = env.reset(seed=seed)
    mine = int(np.argmax(observations["player_0"][2:5]))
    observations, *_ = env.step({"player_0": 1})
    return mine, int(np.argmax(observations["player_1"][2:5]))


def test_kuhn_poker_display_never_shows_the_opponents_card_before_showdown() -> None:
    # Two deals that give player_0 the same card and player_1 different ones.
    deals = {seed: _kuhn_cards(seed) for seed in range(40)}
    first, second = next(
        (a, b) for a in deals for b in deals if a < b and deals[a][0] == deals[b][0] and deals[a][1] != deals[b][1]
    )
    shown = []
    for seed in (first, second):
        done = arena_play(
            "kuhn_poker", "--human", "0", "--vs", f"{HERE}:FirstLegal", "--seed", str(seed), stdin="check\n"
        )
        assert done.returncode == 0, done.stderr
        before, after = done.stdout.split("--- game over for player_0 ---")
        shown.append(before.replace(f"seed {seed}", "seed S"))
        ranks = "JQK"
        assert f"player_0 shows {ranks[deals[seed][0]]}, player_1 shows {ranks[deals[seed][1]]}" in after
    assert "your observation:" in shown[0] and "check/call" in shown[0]
    assert shown[0] == shown[1]  # what player_0 saw cannot depend on player_1's card


TURN_BASED = [name for name in envs.names() if not is_real_time(probe(name))]


@pytest.mark.parametrize("name", TURN_BASED)
def test_every_bundled_turn_based_game_is_playable(name: str, monkeypatch, capsys) -> None:
    env = quick_make(name)
    seat = env.possible_agents[0]  # player_0, or the env's own first seat (MAgent2: red_0)
    n = env.action_space(seat).n
    # The person tries every action number in turn: illegal ones are re-prompted, so the game moves on.
    typed = "".join(f"{i}\n" for i in range(n)) * 60
    quick = QUICK_OPTIONS.get(name)  # the registry-wide short game (MAgent2: a small map, 30 steps)
    options = ["--env-options", json.dumps(quick)] if quick else []
    code, out, err = play_in_process(
        monkeypatch, capsys, name, *options, "--human", seat, "--vs", "random", "--seed", "11", stdin=typed
    )
    assert (code, err) == (0, "")
    assert f"--- game over for {seat} ---" in out
    assert re.search(r"^result: .* after \d+ steps \(seed 11\)$", out, re.MULTILINE)


REAL_TIME = [name for name in envs.names() if is_real_time(probe(name))] + [f"{HERE}:RealTimeEnv"]


@pytest.mark.parametrize("name", REAL_TIME)
def test_real_time_games_are_refused_clearly(name: str, monkeypatch, capsys) -> None:
    code, out, err = play_in_process(monkeypatch, capsys, name, "--human", "0", stdin="0\n")
    assert code == 2 and out == ""
    assert err.startswith(
        f"arena play: error: {quick_make(name).name if ':' not in name else 'RealTimeEnv'} is a "
        "real-time game and is not playable in the terminal (it does not wait for typed moves); "
        f"watch agents play it instead: arena play {name} --agents random,"
    )


@pytest.mark.parametrize(
    ("args", "message"),
    [
        (
            ["tic_tac_toe", "--human", "5"],
            "tic_tac_toe has no seat '5'; seats: player_0, player_1 (or their numbers 0-1)",
        ),
        (
            ["tic_tac_toe", "--vs", "random"],
            "--vs names the opponents of a person: give the person's seat with --human",
        ),
        (
            ["tic_tac_toe", "--human", "0", "--agents", "random,random", "--vs", "random"],
            "give either --agents (one agent per seat) or --vs (the opponents of --human), not both",
        ),
        (
            ["liars_dice", "--human", "0", "--vs", "random,random,random"],
            "--vs gives 3 agents ['random', 'random', 'random'] for the 2 seats ['player_1', 'player_2'] that people "
            "do not play; give one agent for all, or one per seat",
        ),
        (["tic_tac_toe", "--human", "0", "--vs", "no_such_agent"], "unknown agent 'no_such_agent'"),
        (
            [f"{HERE}:SteeringEnv", "--human", "driver"],
            "seat 'driver' acts in Box(-1.0, 1.0, (1,), float32); a person at the terminal can only choose among "
            "Discrete actions",
        ),
    ],
)
def test_bad_command_lines_name_the_problem(args: list[str], message: str, monkeypatch, capsys) -> None:
    code, out, err = play_in_process(monkeypatch, capsys, *args)
    assert code == 2
    assert err.startswith("arena play: error: ") and message in err
