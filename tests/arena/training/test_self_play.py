"""Opponent pools, evaluation matches and the self-play callback's promotion rule."""

from __future__ import annotations

import numpy as np
import pytest

import envs
from arena import RandomAgent
from arena.training import OpponentPool, Score, SingleAgentEnv, match
from tests.arena.training.training_envs import FixedAgent


# --------------------------------------------------------------------- pool
def test_latest_strategy_takes_the_newest() -> None:
    pool = OpponentPool([RandomAgent(seed=0)], strategy="latest")
    newer = RandomAgent(seed=1)
    pool.add(newer, name="snapshot@100")
    rng = np.random.default_rng(0)
    assert all(pool.sample(rng) is newer for _ in range(10))
    assert pool.names == ["RandomAgent", "snapshot@100"] and pool.latest is newer


def test_uniform_strategy_covers_history_evenly_and_reproducibly() -> None:
    members = [RandomAgent(seed=i) for i in range(4)]
    pool = OpponentPool(members[:1], strategy="uniform")
    for member in members[1:]:
        pool.add(member)

    def draws(seed: int) -> list[int]:
        rng = np.random.default_rng(seed)
        return [pool.index(pool.sample(rng)) for _ in range(2000)]

    counts = np.bincount(draws(5), minlength=4)
    assert counts.min() > 430 and counts.max() < 570  # 500 expected each; > 5 standard deviations apart
    assert draws(5) == draws(5)


def test_max_size_drops_the_oldest_snapshot_and_keeps_the_starters() -> None:
    starter = RandomAgent(seed=0)
    pool = OpponentPool([starter], strategy="uniform", max_size=3)
    for step in (10, 20, 30):
        pool.add(RandomAgent(seed=step), name=f"snapshot@{step}")
    assert pool.names == ["RandomAgent", "snapshot@20", "snapshot@30"]
    assert pool.members[0] is starter and len(pool) == 3


def test_pool_error_texts() -> None:
    with pytest.raises(ValueError, match="needs at least one starting agent"):
        OpponentPool([])
    with pytest.raises(ValueError, match=r"strategy must be one of \['latest', 'uniform'\], got 'newest'"):
        OpponentPool(RandomAgent(), strategy="newest")
    with pytest.raises(TypeError, match="members must be arena.Agent instances, got str"):
        OpponentPool(["random"])
    with pytest.raises(ValueError, match="max_size must be an integer of at least 2"):
        OpponentPool(RandomAgent(), max_size=1)
    with pytest.raises(ValueError, match="is not a member"):
        OpponentPool(RandomAgent()).index(RandomAgent())


# -------------------------------------------------------------------- match
def test_match_alternates_seats_and_counts_outcomes() -> None:
    # Rock always beats scissors, so the outcome is known whatever the seat.
    score = match(envs.make("rock_paper_scissors"), FixedAgent(action=0), FixedAgent(action=2), 6)
    assert (score.wins, score.draws, score.losses, score.win_rate, score.score) == (6, 0, 0, 1.0, 1.0)
    draw = match(envs.make("rock_paper_scissors"), FixedAgent(action=1), FixedAgent(action=1), 4)
    assert (draw.draws, draw.score) == (4, 0.5)


def test_match_is_seeded_and_plays_every_seat() -> None:
    env = envs.make("tic_tac_toe")
    first = match(env, RandomAgent(), RandomAgent(), 20, seed=3)
    assert first == match(env, RandomAgent(), RandomAgent(), 20, seed=3)
    assert Score([1.0, 0.5, 0.0]).games == 3
    with pytest.raises(ValueError, match="games must be at least 1, got 0"):
        match(env, RandomAgent(), RandomAgent(), 0)


# ------------------------------------------------------------- the callback
sb3 = pytest.importorskip("sb3_contrib")


def _train(tmp_path, *, promote_at, window=None, steps=384, pool_strategy="latest", opponent=None):
    import torch
    from sb3_contrib import MaskablePPO
    from stable_baselines3.common.callbacks import CallbackList
    from stable_baselines3.common.env_util import make_vec_env

    from arena.training.callbacks import EvaluationCallback, EvaluationLogCallback
    from arena.training.promotion import PromotionCallback

    torch.set_num_threads(1)
    pool = OpponentPool([opponent or RandomAgent(seed=0)], strategy=pool_strategy)
    vec = make_vec_env(lambda: SingleAgentEnv("tic_tac_toe", pool, shuffle_seats=True), n_envs=2, seed=0)
    model = MaskablePPO("MlpPolicy", vec, n_steps=64, batch_size=64, n_epochs=1, seed=0)
    promotion = PromotionCallback(pool, promote_at, window=window) if promote_at is not None else None
    after = [*([promotion] if promotion else []), EvaluationLogCallback(tmp_path / "eval.csv")]
    callback = EvaluationCallback(
        "tic_tac_toe", "random", pool, eval_every=128, eval_games=6, callback_after_eval=CallbackList(after)
    )
    model.learn(steps, callback=callback)
    return model, vec, pool, callback, promotion


def test_promotion_rule_matches_the_records(tmp_path) -> None:
    from arena.training.report import read_csv

    _, vec, pool, callback, _ = _train(tmp_path, promote_at=0.4)  # at these seeds the window scores 0.25 and 0.42
    records = callback.records
    assert [r["timesteps"] for r in records] == [0, 128, 256, 384]
    assert records[0]["promoted"] == 0  # never at the baseline evaluation
    for record in records[1:]:
        # Window of 6 games, refilled by each evaluation: promote exactly when its score reaches 0.4.
        assert record["promoted"] == int(record["window_score"] >= 0.4)
    assert {r["promoted"] for r in records[1:]} == {0, 1}  # the gate both opened and stayed shut
    assert len(pool) == 1 + sum(r["promoted"] for r in records)
    assert read_csv(tmp_path / "eval.csv") == records
    # Every training env plays against the same, refreshed pool.
    assert all(p is pool for env_pool in vec.get_attr("opponents") for p in env_pool)


def test_window_fills_before_the_gate_opens_and_none_never_promotes(tmp_path) -> None:
    _, _, pool, callback, promotion = _train(tmp_path, promote_at=0.0, window=12)
    # 6 games per evaluation (the baseline's count too): the 12-game window is full at every second
    # evaluation, and a promotion empties it.
    assert [r["promoted"] for r in callback.records] == [0, 1, 0, 1]
    assert promotion.promotions == [128, 384] and pool.names == ["RandomAgent", "snapshot@128", "snapshot@384"]
    # Without a promotion callback the pool is only played against: it never grows, and the records say
    # nothing of a gate.
    _, _, pool, callback, _ = _train(tmp_path, promote_at=None, steps=256)
    assert len(pool) == 1 and [r["pool_size"] for r in callback.records] == [1, 1, 1]
    assert not any("promoted" in r or "window_score" in r for r in callback.records)


def test_callback_error_texts() -> None:
    from arena.training.callbacks import EvaluationCallback
    from arena.training.promotion import PromotionCallback

    with pytest.raises(ValueError, match=r"promote_at must lie in \[0, 1\], got 1.5"):
        PromotionCallback(OpponentPool([RandomAgent()]), promote_at=1.5)
    with pytest.raises(TypeError, match="PromotionCallback: pool must be an OpponentPool, got list"):
        PromotionCallback([RandomAgent()])  # type: ignore[arg-type]
    with pytest.raises(ValueError, match="eval_every and eval_games must be at least 1, got 0 and 5"):
        EvaluationCallback("tic_tac_toe", eval_every=0, eval_games=5)
    with pytest.raises(TypeError, match="pool must be an OpponentPool or None, got list"):
        EvaluationCallback("tic_tac_toe", "random", [RandomAgent()])  # type: ignore[arg-type]
