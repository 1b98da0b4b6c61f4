"""Soccer's training recipe: one PPO model for one walker, with dense shaping, beside and against ``random``.

The model plays one seat of a side (``--control seat``) with a ``random`` teammate, against two
``random`` players; in a match a copy of it plays each seat of its side (a single entrant fills
its side: ``arena tournament soccer --agents FOLDER,random``). Its stack: the walker's
``SoccerFeatures`` (relative), with dm_control's ball statistics as shaping (0.1 x its speed towards
the ball + 0.3 x the ball's speed towards the opponents' goal), under running normalisation,
actions rescaled to the walker's bounds; 15 s matches. docs/performance.md ("Soccer: one walker
per model") compares it with one model for the whole side (``--control team``): after 250,000
steps this recipe's walkers ran towards the ball at 0.81 m/s, the side model's at 0.16.

Example:
    >>> training_recipe().control, training_recipe().teammate, training_recipe().algo
    ('seat', 'random', 'ppo')
"""

from __future__ import annotations

from typing import Any

from arena.training.recipe import TrainingRecipe

__all__ = ["training_recipe"]


def training_recipe(**options: Any) -> TrainingRecipe:
    """PPO for one walker (continuous actions: no masks) on shaped, normalised features."""
    return TrainingRecipe(
        algo="ppo",
        control="seat",
        teammate="random",
        interface="rescale_action(normalize_observation(soccer_features(soccer_shaping(ball=0.1, goal=0.3), "
        "relative=true)))",
        algo_options={"n_steps": 512, "batch_size": 256, "policy_kwargs": {"log_std_init": -0.5}},
        evaluations=10,
        eval_games=30,
        full_budget=300_000,
        env_options={"time_limit": 15.0},
    )
