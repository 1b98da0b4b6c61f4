"""The training callbacks: one job each, few parameters, composed by the run that trains."""

from __future__ import annotations

import importlib
import inspect
import pkgutil

import pytest

from arena import RandomAgent
from arena.training import OpponentPool, SingleAgentEnv, TrainingConfig

pytest.importorskip("sb3_contrib")

from stable_baselines3.common.callbacks import BaseCallback, CallbackList  # noqa: E402

import arena.training  # noqa: E402
from arena.training.callbacks import (  # noqa: E402
    EvaluationCallback,
    EvaluationLogCallback,
    OnEvaluationCallback,
    StopTrainingOnRecord,
)
from arena.training.promotion import PromotionCallback  # noqa: E402
from arena.training.report import read_csv  # noqa: E402


def _callback_classes() -> dict[str, type]:
    """Every SB3 callback class defined in a module of arena.training."""
    found = {}
    for module_info in pkgutil.iter_modules(arena.training.__path__, "arena.training."):
        module = importlib.import_module(module_info.name)
        for name, value in vars(module).items():
            if inspect.isclass(value) and issubclass(value, BaseCallback) and value.__module__ == module.__name__:
                found[f"{module.__name__}.{name}"] = value
    return found


def test_no_callback_class_takes_more_than_ten_init_parameters() -> None:
    classes = _callback_classes()
    assert {"EvaluationCallback", "PromotionCallback", "EvaluationLogCallback", "FolderCheckpoints"} <= {
        name.rsplit(".", 1)[1] for name in classes
    }
    counts = {name: len(inspect.signature(cls.__init__).parameters) - 1 for name, cls in classes.items()}  # not self
    assert {name: count for name, count in counts.items() if count > 10} == {}


def _learn(steps: int, *after: BaseCallback, pool: OpponentPool | None = None) -> tuple[object, EvaluationCallback]:
    import torch
    from sb3_contrib import MaskablePPO

    torch.set_num_threads(1)
    env = SingleAgentEnv("tic_tac_toe", pool if pool is not None else "random", shuffle_seats=True)
    model = MaskablePPO("MlpPolicy", env, n_steps=32, batch_size=32, n_epochs=1, seed=0)
    evaluation = EvaluationCallback(
        "tic_tac_toe", "random", pool, eval_every=32, eval_games=2, callback_after_eval=CallbackList(list(after))
    )
    model.learn(steps, callback=evaluation)
    return model, evaluation


def test_each_callback_after_evaluation_does_its_one_job(tmp_path) -> None:
    seen: list[int] = []
    pool = OpponentPool([RandomAgent(seed=0)])
    log = EvaluationLogCallback(tmp_path / "eval.csv")
    model, evaluation = _learn(
        128,
        log,
        OnEvaluationCallback(lambda record: seen.append(record["timesteps"])),
        StopTrainingOnRecord(lambda record: record["timesteps"] >= 64),
        pool=pool,
    )
    # Stopped after the evaluation at 64: the next step ends learn(), and no end-of-run evaluation is played.
    assert [record["timesteps"] for record in evaluation.records] == seen == [0, 32, 64]
    assert model.num_timesteps < 128  # type: ignore[attr-defined]
    assert read_csv(tmp_path / "eval.csv") == evaluation.records
    # Evaluation alone plays the pool but never changes it: that is a promotion callback's job.
    assert len(pool) == 1 and [record["pool_size"] for record in evaluation.records] == [1, 1, 1]
    assert all(record["pool_games"] == 2 and "promoted" not in record for record in evaluation.records)
    first = evaluation.records[0]
    assert first["random_games"] == 2 and 0.0 <= first["random_win_low"] <= first["random_win_high"] <= 1.0


def test_promotion_adds_the_gate_entries_and_snapshots_into_the_pool() -> None:
    pool = OpponentPool([RandomAgent(seed=0)])
    promotion = PromotionCallback(pool, 0.0, window=2)
    _, evaluation = _learn(64, promotion, pool=pool)
    # The window of 2 is full at every evaluation, but the one before training never promotes.
    assert [record["promoted"] for record in evaluation.records] == [0, 1, 1]
    assert promotion.promotions == [32, 64] and pool.names == ["RandomAgent", "snapshot@32", "snapshot@64"]
    assert [name for name, _ in promotion.snapshot_states()] == ["snapshot@32", "snapshot@64"]
    keys = list(evaluation.records[-1])
    assert keys[keys.index("pool_score") :] == ["pool_score", "pool_games", "window_score", "pool_size", "promoted"]


def test_a_callback_after_evaluation_needs_an_evaluation_parent() -> None:
    with pytest.raises(TypeError, match="pass it as its callback_after_eval, got parent NoneType"):
        _ = EvaluationLogCallback().record


@pytest.mark.parametrize(("self_play", "promotes"), [("latest", True), ("off", False)])
def test_a_run_builds_a_promotion_callback_only_with_self_play(tmp_path, self_play, promotes) -> None:
    from arena.training.run import _evaluation, _opponents, plan

    setup = plan(
        TrainingConfig(
            "tic_tac_toe", out=tmp_path / "run", overrides={"self_play": self_play, "opponents": ("random", "random")}
        )
    )
    _, pool = _opponents(setup)
    assert pool is not None  # two opponents make a pool either way: evaluation plays it
    evaluation, promotion = _evaluation(setup, pool, None, "single", model=None)
    after = evaluation.callback
    assert isinstance(after, CallbackList) and evaluation.pool is pool
    kinds = [type(callback) for callback in after.callbacks]
    assert kinds == ([PromotionCallback] if promotes else []) + [EvaluationLogCallback]
    assert (promotion is not None) == promotes and (promotion is None or promotion.pool is pool)
