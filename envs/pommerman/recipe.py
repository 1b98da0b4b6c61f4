"""Pommerman's training recipe: what ``arena train pommerman`` uses by default.

The learner sees :class:`interfaces.pommerman.PommermanFeatures` (the ego-corner planes and the
attribute vector with the legal moves: every entry a float in [0, 1], so no ``Discrete.start`` of
the raw observation reaches Stable-Baselines3, whose one-hot encoding ignores it). In free-for-all
it plays three ``random`` bombers and is judged against them and against ``pommerman_simple``; in
the team modes it plays one seat beside a ``pommerman_simple`` teammate against two of them, behind
the action filter (``pommerman_safe_moves``) and two shaping bonuses (``pommerman_pickup_bonus``,
``pommerman_enemy_down_bonus``). The batched team trainer over ``PommermanVecEnv`` (parameter
sharing, ego view) is ``bench/pommerman_team_train.py`` for now, not yet this recipe's path.
Games last up to 800 steps, so evaluations are fewer and shorter than the board games'.

Example:
    >>> training_recipe(mode="team").teammate
    'pommerman_simple'
"""

from __future__ import annotations

from typing import Any

from arena.training.recipe import TrainingRecipe

__all__ = ["TEAM_INTERFACE", "training_recipe"]

#: The team modes' stack: the features over the shaping bonuses over the action filter (the raw dict at the bottom).
TEAM_INTERFACE = (
    "pommerman_features(pommerman_enemy_down_bonus(pommerman_pickup_bonus(pommerman_safe_moves, bonus=0.1), bonus=0.3))"
)


def training_recipe(mode: str = "ffa", **options: Any) -> TrainingRecipe:
    """The recipe for ``envs.make("pommerman", mode=mode, **options)``."""
    budget: dict[str, Any] = {
        "algo": "ppo",
        "interface": "pommerman_features",
        "evaluations": 10,
        "eval_games": 40,
        "full_budget": 200_000,
    }
    if mode == "ffa":
        return TrainingRecipe(opponents=("random",), references=("random", "pommerman_simple"), **budget)
    # The team modes add the action filter (no move into certain death) and the shaping bonuses under the
    # features: the filter replaces a deadly move by a safe one, the bonuses pay a power-up 0.1, an enemy down 0.3.
    budget["interface"] = TEAM_INTERFACE
    return TrainingRecipe(
        teammate="pommerman_simple", opponents=("pommerman_simple",), references=("pommerman_simple",), **budget
    )
