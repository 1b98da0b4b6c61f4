"""Snake's training recipe: one snake on the batched path (every snake of every game moving at once).

Example:
    >>> training_recipe().opponents
    ('random',)
"""

from __future__ import annotations

from typing import Any

from arena.training.recipe import TrainingRecipe

__all__ = ["training_recipe"]


def training_recipe(**options: Any) -> TrainingRecipe:
    """Masked PPO against ``random`` snakes on ``SnakeBatch`` (the raw planes, an MLP)."""
    return TrainingRecipe(eval_games=40, evaluations=10)
