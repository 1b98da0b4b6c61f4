"""match_batch: the evaluation games of match, all at once in the game's numpy batch."""

from __future__ import annotations

from typing import Any

import numpy as np
import pytest

import envs
from arena import Agent, RandomAgent
from arena.training import OpponentPool, match, match_batch
from arena.training.matches import can_match_batch
from envs.connect_four_agents import ConnectFourHeuristicAgent
from tests.arena.training.training_envs import FixedAgent


class BoardHashAgent(Agent):
    """A deterministic player whose move depends on the whole board (one by one or in a batch alike)."""

    def __init__(self, salt: int = 0) -> None:
        self.salt = salt

    def _pick(self, board: Any, mask: Any) -> int:
        cells = np.asarray(board, dtype=np.int64).ravel()
        key = int((cells * (np.arange(cells.size) * 7 + 3)).sum()) + self.salt
        legal = np.flatnonzero(mask)
        return int(legal[key % len(legal)])

    def act(self, observation: Any, action_mask: Any = None, reward: float = 0.0) -> int:
        return self._pick(observation, action_mask)

    def act_batch(self, observations: Any, action_masks: Any = None) -> np.ndarray:
        return np.array([self._pick(o, m) for o, m in zip(observations, action_masks)], dtype=np.int64)


@pytest.mark.parametrize("name", ["tic_tac_toe", "connect_four"])
@pytest.mark.parametrize("seats", [None, ["player_1"]])
def test_deterministic_agents_play_the_games_of_match(name: str, seats: list[str] | None) -> None:
    # The pool is drawn per game from the same generator in the same order, the seats alternate alike,
    # and deterministic players then play exactly the same games: the same outcome game by game.
    pool = OpponentPool([BoardHashAgent(salt) for salt in (1, 2, 5)], strategy="uniform")
    agent = BoardHashAgent(salt=3)
    one_by_one = match(envs.make(name), agent, pool, 40, seed=5, seats=seats)
    batched = match_batch(envs.make(name), agent, pool, 40, seed=5, seats=seats)
    assert batched.outcomes == one_by_one.outcomes
    assert len(set(batched.outcomes)) >= 2  # the games differ, so the comparison says something


@pytest.mark.parametrize(
    "name, agent, opponent",
    [
        ("connect_four", ConnectFourHeuristicAgent(seed=1), RandomAgent(seed=2)),
        ("tic_tac_toe", RandomAgent(seed=1), RandomAgent(seed=2)),
    ],
)
def test_random_players_give_match_statistics(name: str, agent: Agent, opponent: Agent) -> None:
    games = 1000
    one_by_one = match(envs.make(name), agent, opponent, games, seed=7, seats=["player_0"])
    batched = match_batch(envs.make(name), agent, opponent, games, seed=7, seats=["player_0"])
    assert batched.games == games
    for part in ("wins", "draws", "losses"):
        p = (getattr(one_by_one, part) + getattr(batched, part)) / (2 * games)
        spread = 5 * np.sqrt(2 * max(p * (1 - p), 0.01) / games)  # 5 standard errors of the difference
        assert abs(getattr(batched, part) - getattr(one_by_one, part)) / games < spread, part


def test_match_batch_is_seeded() -> None:
    env = envs.make("connect_four")
    first = match_batch(env, RandomAgent(seed=1), RandomAgent(seed=2), 50, seed=3)
    assert first == match_batch(env, RandomAgent(seed=1), RandomAgent(seed=2), 50, seed=3)
    assert first != match_batch(env, RandomAgent(seed=1), RandomAgent(seed=2), 50, seed=4)


def test_what_cannot_be_batched() -> None:
    c4 = envs.make("connect_four")
    assert can_match_batch(c4, RandomAgent(), OpponentPool([RandomAgent(), BoardHashAgent()]))
    assert not can_match_batch(c4, FixedAgent(), RandomAgent())  # no act_batch
    assert not can_match_batch(c4, RandomAgent(), OpponentPool([RandomAgent(), FixedAgent()]))
    assert not can_match_batch(envs.make("rock_paper_scissors"), RandomAgent(), RandomAgent())  # no batch
    with pytest.raises(ValueError, match="cannot batch FixedAgent against RandomAgent .*use match"):
        match_batch(c4, FixedAgent(), RandomAgent(), 4)
    with pytest.raises(ValueError, match="games must be at least 1, got 0"):
        match_batch(c4, RandomAgent(), RandomAgent(), 0)


sb3 = pytest.importorskip("sb3_contrib")


def _records(batched: bool | None, monkeypatch) -> tuple[list[dict], int]:
    import torch
    from sb3_contrib import MaskablePPO

    import arena.training.evaluation_games as evaluation_games
    from arena.training.batched import BatchVecEnv
    from arena.training.callbacks import EvaluationCallback

    calls = []
    monkeypatch.setattr(evaluation_games, "match_batch", lambda *a, **k: calls.append(1) or match_batch(*a, **k))
    torch.set_num_threads(1)
    pool = OpponentPool([BoardHashAgent(1), BoardHashAgent(2)], strategy="uniform")
    venv = BatchVecEnv("tic_tac_toe", 8, pool, shuffle_seats=True)
    venv.seed(0)
    model = MaskablePPO("MlpPolicy", venv, n_steps=16, batch_size=64, n_epochs=1, seed=0)
    games = evaluation_games.EvaluationGames("tic_tac_toe", batched=batched)
    callback = EvaluationCallback(games, {"hash": BoardHashAgent(4)}, pool, eval_every=128, eval_games=12)
    model.learn(256, callback=callback)
    drop = ("wall_s", "cpu_s")
    return [{k: v for k, v in r.items() if k not in drop} for r in callback.records], len(calls)


def test_evaluation_callback_evaluates_in_a_batch_with_the_same_records(monkeypatch) -> None:
    # The learner plays deterministically and the references and pool are deterministic: the batched
    # evaluation must give the one-by-one records exactly.
    one_by_one, calls = _records(False, monkeypatch)
    assert calls == 0
    batched, calls = _records(None, monkeypatch)
    assert calls == 2 * len(batched)  # the reference and the pool, at every evaluation
    assert batched == one_by_one
    assert len({r["hash_score"] for r in batched}) >= 1 and len(batched) == 3
