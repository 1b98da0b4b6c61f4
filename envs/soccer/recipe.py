"""Soccer's training recipe: one PPO model for a whole side, with dense shaping, against ``random``.

The stack is docs/performance.md's second soccer run: each member's ``SoccerFeatures`` (relative,
with dm_control's ball statistics as shaping) under running normalisation, actions rescaled to the
walker's bounds, the side's members joined for one model (``--control team``); 15 s matches.
The members' shaping reaches the side's model since ``Combine`` passes a side's reward through
each member (26 Nov; that run, and issue 31's, trained on goals alone).

Example:
    >>> training_recipe().control, training_recipe().algo
    ('team', 'ppo')
"""

from __future__ import annotations

from typing import Any

from arena.training.recipe import TrainingRecipe

__all__ = ["training_recipe"]


def training_recipe(**options: Any) -> TrainingRecipe:
    """PPO for a side (continuous actions: no masks) on shaped, normalised features."""
    return TrainingRecipe(
        algo="ppo",
        control="team",
        interface="rescale_action(normalize_observation(soccer_features(soccer_shaping(ball=0.003, goal=0.01), "
        "relative=true)))",
        algo_options={"n_steps": 512, "batch_size": 256},
        evaluations=10,
        eval_games=30,
        full_budget=300_000,
        env_options={"time_limit": 15.0},
    )
