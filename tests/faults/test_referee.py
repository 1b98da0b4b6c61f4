"""The referee trusts nothing it hands out: a written-on mask or observation changes nothing, a move
time limit past the timer's range is refused at once, an entrant's processes (even in a new session)
end with the run, and an interface that leaves its declared space is named in the game's record."""

from __future__ import annotations

import os
import signal
import subprocess
import sys
import threading
import time
from pathlib import Path

import numpy as np
import pytest
from gymnasium import spaces

from arena import MultiAgentEnv, RandomAgent, play
from arena.runtime.guard import GuardedAgent
from arena.tournament import Execution, TournamentRules, run_tournament
from tests.faults.helpers import ROOT, TIMEOUT, main_one_line_error

ENTRANTS = "tests.faults.referee_entrants"
TOO_LONG = "must be a number of seconds greater than 0 and at most 86400 (one day), got 10000000000.0"


# ---------------------------------------------------------------- what the agent is handed


@pytest.mark.parametrize("backend", ["serial", "inline"])
def test_an_agent_that_writes_legal_into_its_mask_forfeits_the_illegal_move(backend):
    result = run_tournament(
        "tic_tac_toe", ["random", f"cheat={ENTRANTS}:MaskWriter"], games=4, seed=1, execution=Execution.make(backend)
    )
    assert result.complete and len(result.games) == 4
    # Each game reaches the cheat's move with an occupied cell: the env's own mask says it is illegal.
    assert [game.outcome for game in result.games] == ["cheat forfeits"] * 4
    for game in result.games:
        assert game.forfeit == "cheat" and game.ranks == {"cheat": 2, "random": 1}
        assert "illegal action" in game.error and "legal actions were [" in game.error, game.error
    assert result.pairings["random", "cheat"].forfeits == 4


class SharedBoard(MultiAgentEnv):
    """Two players take turns adding 1 to their cell of a board for three rounds; each one's
    reward is its cell at the end. Its observations are the board itself (one array reused, as
    engines that expose their memory do)."""

    def __init__(self) -> None:
        self.possible_agents = ["a", "b"]
        self.agents = []
        board = spaces.Box(0, 100, (2,), np.int64)
        self.observation_spaces = {"a": board, "b": board}
        self.action_spaces = {"a": spaces.Discrete(2), "b": spaces.Discrete(2)}
        self.board = np.zeros(2, np.int64)
        self.turn = 0

    def reset(self, *, seed=None, options=None):
        super().reset(seed=seed)
        self.agents = ["a", "b"]
        self.board[:] = 0
        self.turn = 0
        return {"a": self.board}, {"a": {"action_mask": np.ones(2, np.int8)}}

    def step(self, actions):
        mover = self.possible_agents[self.turn % 2]
        self.check_actions(actions, (mover,))
        self.board[self.turn % 2] += 1
        self.turn += 1
        if self.turn == 6:
            self.agents = []
            rewards = {"a": float(self.board[0]), "b": float(self.board[1])}
            return {}, rewards, {"a": True, "b": True}, {"a": False, "b": False}, {"a": {}, "b": {}}
        nxt = self.possible_agents[self.turn % 2]
        flags = {"a": False, "b": False}
        return {nxt: self.board}, {"a": 0.0, "b": 0.0}, flags, dict(flags), {nxt: {"action_mask": np.ones(2, np.int8)}}


def test_an_agent_that_writes_on_its_observation_does_not_change_the_env():
    from tests.faults.referee_entrants import ObservationWriter

    writers = [GuardedAgent(ObservationWriter(seed=0), name) for name in ("a", "b")]
    episode = play(SharedBoard(), writers, seed=4)
    assert episode.returns == {"a": 3.0, "b": 3.0}, "a write on the observation reached the env's board"
    # Unguarded, the same agents overwrite the board (the guard's copies are what protects it).
    assert play(SharedBoard(), [ObservationWriter(seed=0), ObservationWriter(seed=1)], seed=4).returns != {
        "a": 3.0,
        "b": 3.0,
    }


# ---------------------------------------------------------------- move time limits in range


@pytest.mark.parametrize(
    "argv",
    [
        ["tournament", "tic_tac_toe", "--agents", "random,b=random", "--progress", "none", "--move-time-limit", "1e10"],
        ["serve", "tic_tac_toe", "--port", "0", "--move-time-limit", "1e10"],
    ],
    ids=["tournament", "serve"],
)
def test_a_move_time_limit_past_a_day_is_one_line_before_anything_runs(capsys, argv):
    main_one_line_error(capsys, argv, TOO_LONG)


def test_a_move_time_limit_past_a_day_is_refused_by_the_python_api():
    from arena.serve import GameServer
    from arena.specs.envs import EnvSpec

    with pytest.raises(ValueError, match=r"tournament: move_time_limit must be .* at most 86400 \(one day\)"):
        run_tournament(rules=TournamentRules.make("tic_tac_toe", ["random", "b=random"], move_time_limit=1e10))
    with pytest.raises(ValueError, match=r"arena serve: move_time_limit must be .* at most 86400 \(one day\)"):
        GameServer(EnvSpec("tic_tac_toe"), "random", port=0, move_time_limit=1e10)
    with pytest.raises(ValueError, match=r"move_time_limit must be .* at most 86400"):
        GuardedAgent(RandomAgent(), "rnd", 1e10)


def test_the_longest_move_time_limit_arms_the_timer_and_games_play():
    result = run_tournament(
        rules=TournamentRules.make("tic_tac_toe", ["random", "b=random"], games=2, move_time_limit=86400)
    )
    assert result.complete and not result.forfeits and all(game.outcome != "error" for game in result.games)


# ---------------------------------------------------------------- an entrant's processes


FORKING_ENTRANT = """
import os
import subprocess
import time

from arena import RandomAgent


class Forker(RandomAgent):
    '''Starts `setsid sleep 300` (a new session, holding the tournament's stdout) when built.'''

    def __init__(self, **kwargs):
        super().__init__(**kwargs)
        child = subprocess.Popen(["setsid", "sleep", "300"])
        with open(os.environ["FORKER_PIDS"], "a") as file:
            file.write(f"{child.pid}\\n")

    def act(self, observation, action_mask=None, reward=0.0):
        if os.environ["FORKER_MODE"] == "exit":
            os._exit(3)  # the worker ends itself: the sleep it started must end too
        while os.environ["FORKER_MODE"] == "hang":  # swallows the time limit's interrupt: killed
            try:
                time.sleep(100)
            except BaseException:
                pass
        return super().act(observation, action_mask, reward)
"""


def alive(pid: int) -> bool:
    """Whether ``pid`` runs (a zombie waiting for its parent does not)."""
    try:
        stat = Path(f"/proc/{pid}/stat").read_bytes()
    except OSError:
        return False
    return stat[stat.rfind(b")") + 2 :].split()[0] != b"Z"


@pytest.mark.skipif(not sys.platform.startswith("linux"), reason="needs /proc and setsid")
@pytest.mark.parametrize("mode", ["play", "exit", "hang"])
def test_processes_an_entrant_starts_in_a_new_session_end_with_the_run(tmp_path, mode):
    (tmp_path / "forking_entrant.py").write_text(FORKING_ENTRANT)
    pids_file = tmp_path / "pids"
    process = subprocess.Popen(
        [sys.executable, "-m", "arena", "tournament", "tic_tac_toe", "--agents", "forking_entrant:Forker,random"]
        + ["--games", "2", "--progress", "none"]
        + (["--move-time-limit", "0.2"] if mode == "hang" else []),
        cwd=ROOT,
        start_new_session=True,
        stdout=subprocess.PIPE,
        stderr=subprocess.PIPE,
        env={
            **os.environ,
            "PYTHONPATH": f"{ROOT}{os.pathsep}{tmp_path}",
            "FORKER_PIDS": str(pids_file),
            "FORKER_MODE": mode,
        },
    )
    output: list[bytes] = []
    reader = threading.Thread(target=lambda: output.append(process.stdout.read()), daemon=True)
    reader.start()
    try:
        code = process.wait(timeout=TIMEOUT)
        # A pipe reader (`| tee log`) sees the end of the output once arena has exited, not 300 s later.
        reader.join(timeout=30)
        assert not reader.is_alive(), "the tournament's stdout stayed open after it exited"
        pids = [int(line) for line in pids_file.read_text().split()]
        assert pids, "the entrant was never built"
        deadline = time.monotonic() + 30
        while any(alive(pid) for pid in pids) and time.monotonic() < deadline:
            time.sleep(0.05)
        assert not [pid for pid in pids if alive(pid)], "a process the entrant started outlived the tournament"
        assert code == 0, process.stderr.read().decode()
        text = output[0].decode()
        assert "2 of 2 games" in text, text
        if mode != "play":
            assert "forfeit" in text, text
    finally:
        if process.poll() is None:
            os.killpg(process.pid, signal.SIGKILL)
        for pid in [int(line) for line in pids_file.read_text().split()] if pids_file.exists() else []:
            if alive(pid):
                os.kill(pid, signal.SIGKILL)  # leave nothing behind when the test fails


# ---------------------------------------------------------------- interfaces keep their space


def test_an_interface_that_leaves_its_space_costs_its_entrant_a_forfeit_naming_it():
    result = run_tournament("tic_tac_toe", ["random", f"esc={ENTRANTS}:escaping_player"], games=2, seed=0)
    assert result.complete and [game.forfeit for game in result.games] == ["esc", "esc"]
    for game in result.games:
        assert "act() raised InterfaceError" in game.error, game.error
        assert "the interface Escaping() gave the observation array(shape=(3, 3), dtype=float32" in game.error
        assert "outside its observation space Box(0.0, 1.0, (3, 3), float32)" in game.error, game.error
