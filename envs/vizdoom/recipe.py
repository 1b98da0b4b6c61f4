"""ViZDoom's training recipe: 4 stacked grey 60x80 frames for a CNN, 10 discrete actions, 20 s matches.

Every evaluation game is a real match on real engines, so the evaluation budget is small and
scales with the run: at 20,000 steps 5 evaluations of 2 games against ``random``; 10 games from
200,000 steps on (``docs/performance.md`` gives the time of a run).

Example:
    >>> recipe = training_recipe()
    >>> recipe.interface, recipe.env_options
    ('frame_stack(doom_screen(doom_actions()))', {'time_limit': 20.0})
"""

from __future__ import annotations

from typing import Any

from arena.training.recipe import TrainingRecipe

__all__ = ["training_recipe"]


def training_recipe(**options: Any) -> TrainingRecipe:
    """PPO (``CnnPolicy``) on ``frame_stack(doom_screen(doom_actions()))`` against ``random``."""
    return TrainingRecipe(
        algo="ppo",
        interface="frame_stack(doom_screen(doom_actions()))",
        algo_options={"n_steps": 256, "batch_size": 64, "n_epochs": 4},
        n_envs=2,
        evaluations=5,
        eval_games=10,
        full_budget=200_000,
        env_options={"time_limit": 20.0},
    )
