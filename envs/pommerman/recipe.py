"""Pommerman's training recipe: what ``arena train pommerman`` uses by default.

The learner sees :class:`interfaces.pommerman.PommermanFeatures` (the ego-corner planes and the
attribute vector with the legal moves: every entry a float in [0, 1], so no ``Discrete.start`` of
the raw observation reaches Stable-Baselines3, whose one-hot encoding ignores it). In free-for-all
it plays three ``random`` bombers and is judged against them and against ``pommerman_simple``; in
the team modes it plays one seat beside a ``pommerman_simple`` teammate against two of them.
Games last up to 800 steps, so evaluations are fewer and shorter than the board games'.

Example:
    >>> training_recipe(mode="team").teammate
    'pommerman_simple'
"""

from __future__ import annotations

from typing import Any

from arena.training.recipe import TrainingRecipe

__all__ = ["training_recipe"]


def training_recipe(mode: str = "ffa", **options: Any) -> TrainingRecipe:
    """The recipe for ``envs.make("pommerman", mode=mode, **options)``."""
    budget: dict[str, Any] = {"algo": "ppo", "interface": "pommerman_features", "evaluations": 10, "eval_games": 40,
              "full_budget": 200_000}
    if mode == "ffa":
        return TrainingRecipe(opponents=("random",), references=("random", "pommerman_simple"), **budget)
    return TrainingRecipe(teammate="pommerman_simple", opponents=("pommerman_simple",),
                          references=("pommerman_simple",), **budget)
