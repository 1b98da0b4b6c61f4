"""Soccer's training recipe: one PPO model for every walker of a side (parameter sharing), dense shaping, against ``random``.

The model plays both seats of its side (``control="shared"``, trained on the one batched trainer
over a worker batch of single games, :mod:`arena.worker_batch`: each walker a slot of the VecEnv, with
its own copy of the stack), against two ``random`` players; in a match a copy of it plays each seat of its side
(a single entrant fills its side: ``arena tournament soccer --agents FOLDER,random``). Its stack:
the walker's ``SoccerFeatures`` (relative), with dm_control's ball statistics as shaping (0.1 x its
speed towards the ball + 0.3 x the ball's speed towards the opponents' goal), under running
normalisation, actions rescaled to the walker's bounds; 15 s matches, 2 games at once.
The other ways to train a side are one model for the whole side (``--control team``) and one walker
beside a ``random`` teammate (``--teammate random``);
docs/performance-history.md ("Soccer: one walker per model") compares their runs with this recipe's.

Example:
    >>> training_recipe().control, training_recipe().teammate, training_recipe().algo
    ('shared', None, 'ppo')
"""

from __future__ import annotations

from typing import Any

from arena.training.recipe import TrainingRecipe

__all__ = ["training_recipe"]


def training_recipe(**options: Any) -> TrainingRecipe:
    """PPO for every walker of a side (continuous actions: no masks) on shaped, normalised features."""
    return TrainingRecipe(
        algo="ppo",
        control="shared",
        n_envs=2,
        interface="rescale_action(normalize_observation(soccer_features(soccer_shaping(ball=0.1, goal=0.3), "
        "relative=true)))",
        algo_options={"n_steps": 512, "batch_size": 256, "policy_kwargs": {"log_std_init": -0.5}},
        evaluations=10,
        eval_games=30,
        full_budget=300_000,
        env_options={"time_limit": 15.0},
    )
