"""An opponent that acts one game at a time but whose copies play a game each (``Agent.copy_per_game``) trains
on a worker batch through the one trainer: one copy per seat slot, reset each episode, acting with its seat's
rewards and told ``done``, as on one game (SingleAgentEnv)."""

from __future__ import annotations

import threading
from typing import Any

import numpy as np
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

pytest.importorskip("stable_baselines3")

import envs  # noqa: E402
from arena import Agent, AgtItfWrapper, Interface  # noqa: E402
from arena.errors import InvalidTypeError  # noqa: E402
from arena.training import SingleAgentEnv  # noqa: E402
from arena.training.batched import BatchVecEnv  # noqa: E402
from arena.training.vectorised import choose_path, path_reasons  # noqa: E402

ROUNDS = 3


class Reactive(Agent):
    """Rock-paper-scissors by its own clock, shifted after every lost round: its moves show its state and its rewards.

    It logs every call, so a test can read what each copy was told.
    """

    copy_per_game = True

    def __init__(self) -> None:
        self.clock, self.shift, self.log = 0, 0, []

    def reset(self, *, seed: int | None = None) -> None:
        self.clock, self.shift = 0, 0
        self.log.append(("reset", seed))

    def act(self, observation: Any, action_mask: Any = None, reward: float = 0.0) -> int:
        self.log.append(("act", int(observation), float(reward)))
        self.clock += 1
        self.shift += reward < 0
        return (self.clock + self.shift) % 3

    def done(self, reward: float, info: dict[str, Any]) -> None:
        self.log.append(("done", float(reward), dict(info)))


class OneGameOnly(Reactive):
    copy_per_game = False


class HoldsALock(Reactive):
    """Says it copies, but holds something that does not."""

    def __init__(self) -> None:
        super().__init__()
        self.lock = threading.Lock()


def _worker_streams(moves: np.ndarray, opponent: Agent) -> tuple[list[list[Any]], BatchVecEnv]:
    """Each game's learner stream (observations, rewards, dones) on a worker batch, ``moves[step, game]``."""
    steps, games = moves.shape
    venv = BatchVecEnv(
        "rock_paper_scissors", games, opponent, ["player_0"], env_kwargs={"rounds": ROUNDS}, num_workers=0
    )
    venv.seed(3)
    observations = venv.reset()
    streams: list[list[Any]] = [[("obs", int(observations[g]))] for g in range(games)]
    for step in range(steps):
        observations, rewards, dones, infos = venv.step(moves[step])
        for g in range(games):
            shown = infos[g]["terminal_observation"] if dones[g] else observations[g]
            streams[g] += [("obs", int(shown)), ("reward", float(rewards[g])), ("done", bool(dones[g]))]
            if dones[g]:
                streams[g].append(("obs", int(observations[g])))  # the next episode's first
    return streams, venv


def _single_stream(moves: np.ndarray) -> list[Any]:
    """The same moves against one Reactive on SingleAgentEnv, episode after episode."""
    env = SingleAgentEnv("rock_paper_scissors", Reactive(), ["player_0"], env_kwargs={"rounds": ROUNDS})
    observation, _ = env.reset(seed=0)
    stream: list[Any] = [("obs", int(observation))]
    for move in moves.tolist():
        observation, reward, terminated, truncated, info = env.step(move)
        done = terminated or truncated
        stream += [("obs", int(observation)), ("reward", float(reward)), ("done", done)]
        if done:
            observation, _ = env.reset()
            stream.append(("obs", int(observation)))
    return stream


@settings(max_examples=15, deadline=None)
@given(moves=st.lists(st.lists(st.integers(0, 2), min_size=3, max_size=3), min_size=1, max_size=10))
def test_each_copy_plays_its_game_as_one_opponent_plays_the_single_env(moves) -> None:
    """The batched form equals the per-game form: any learner moves give every game, episode after episode, the
    stream one Reactive gives on SingleAgentEnv (its moves, seen by the learner, follow its clock and its rewards)."""
    grid = np.array(moves, np.int64)
    streams, venv = _worker_streams(grid, Reactive())
    for g in range(grid.shape[1]):
        assert streams[g] == _single_stream(grid[:, g])
    venv.close()


def test_copies_are_reset_each_episode_act_with_their_seats_rewards_and_hear_done() -> None:
    moves = np.random.default_rng(1).integers(0, 3, (2 * ROUNDS + 1, 2))
    streams, venv = _worker_streams(moves, Reactive())
    player = venv._players[0]
    assert player.copies is not None and player.agent.log == [("reset", player.agent.log[0][1])]  # the prototype
    for g in range(2):
        log = player.copies[2 * g + 1]  # the opponent's slot: game g, player_1
        assert log is not None
        events = log.log
        learner_rewards = [value for kind, value in streams[g] if kind == "reward"]
        told = [event[2] for event in events if event[0] == "act"]
        # the first act of an episode is told 0; each later one the round just played, the learner's loss
        expected = []
        for episode in range(2):
            rewards = learner_rewards[episode * ROUNDS : (episode + 1) * ROUNDS]
            expected += [0.0] + [-r for r in rewards[:-1]]
        expected.append(0.0)  # the third episode's first round
        assert told == expected
        dones = [event for event in events if event[0] == "done"]
        assert [reward for _, reward, _ in dones] == [-learner_rewards[ROUNDS - 1], -learner_rewards[2 * ROUNDS - 1]]
        assert all(info == {} for _, _, info in dones)  # terminated, not cut
        resets = [event[1] for event in events if event[0] == "reset"][1:]  # the first: the prototype's, copied
        assert len(resets) == 3 and len(set(resets)) == 3  # a fresh seed each episode
    venv.close()


class CountObservations(Interface):
    """A level with state per game: the observations it passed this episode."""

    def reset(self, observation: Any) -> None:
        self.seen = 0

    def observation(self, observation: Any) -> Any:
        self.seen += 1
        return observation


def test_an_agent_behind_a_stateful_stack_copies_with_its_stack() -> None:
    """A wrapper copies as its agent says; each copy holds its own stack, counting its own game's observations."""
    wrapped = AgtItfWrapper(Reactive(), CountObservations())
    assert wrapped.copy_per_game and not AgtItfWrapper(OneGameOnly(), CountObservations()).copy_per_game
    moves = np.zeros((ROUNDS - 1, 2), np.int64)  # inside the first episode
    _, venv = _worker_streams(moves, wrapped)
    copies = [c for c in venv._players[0].copies or [] if c is not None]
    assert len(copies) == 2 and all(isinstance(c, AgtItfWrapper) for c in copies)
    assert [c.interface.seen for c in copies] == [len(moves)] * 2  # one observation a round, in each game
    assert len({id(c.interface) for c in copies}) == 2
    venv.close()


def test_the_copies_episode_seeds_follow_the_run_seed() -> None:
    moves = np.zeros((ROUNDS + 1, 2), np.int64)
    seeds = []
    for _ in range(2):
        _, venv = _worker_streams(moves, Reactive())
        copies = venv._players[0].copies or []
        seeds.append([[e[1] for e in c.log if e[0] == "reset"] for c in copies if c is not None])
        venv.close()
    assert seeds[0] == seeds[1] and len(seeds[0]) == 2


def test_the_path_takes_the_worker_batch_only_for_agents_that_copy() -> None:
    rps = envs.make("rock_paper_scissors")
    assert choose_path(rps, "ppo", Reactive(), None) == "workers"
    path, reasons = path_reasons(rps, "ppo", OneGameOnly(), None)
    assert path == "single" and any("OneGameOnly cannot act for many games at once" in r for r in reasons)
    # a compiled batch shows its own views, not the env's: a copy there would read what it was not written for
    assert choose_path(envs.make("pong_2p"), "maskable-ppo", Reactive(), None) == "single"
    with pytest.raises(
        InvalidTypeError,
        match=r"opponent OneGameOnly cannot act for many games at once \(see arena.Agent.act_batch\), nor be copied",
    ):
        BatchVecEnv("rock_paper_scissors", 2, OneGameOnly(), ["player_0"], num_workers=0)
    with pytest.raises(
        InvalidTypeError,
        match=r"opponent Reactive cannot act for many games at once \(see arena.Agent.act_batch\); train",
    ):
        BatchVecEnv("tic_tac_toe", 2, Reactive())


def test_a_copy_that_fails_names_the_agent_and_the_way_out() -> None:
    venv = BatchVecEnv("rock_paper_scissors", 2, HoldsALock(), ["player_0"], num_workers=0)
    venv.seed(0)
    venv.reset()
    with pytest.raises(
        InvalidTypeError, match=r"HoldsALock says a copy plays a game on its own.*copy_per_game = False"
    ):
        venv.step(np.zeros(2, np.int64))  # the opponents' first moves
    venv.close()
