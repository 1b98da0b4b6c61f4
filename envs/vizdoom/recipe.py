"""ViZDoom's training recipe: the learner alone against 3 built-in bots on one engine (the fast mode).

The learner plays ``player_0`` of ``vizdoom_deathmatch`` with ``players=1, bots=3`` on the ``cig``
map: one engine, no network lockstep, grey 160x120 screens without the labels buffer, 4 tics a
step, 20 s matches; it sees 4 stacked grey 60x80 frames (a CNN) and picks one of 10 button
combinations. Its reward is its frags (``docs/performance.md`` gives its learner steps/s beside
the networked 2-player mode).

``--env-options`` replace these options as a whole (as for every env): give ``players`` and
``bots`` there to keep the fast mode, or leave them out for the networked 2-player match
against the opponents. Alone, the learner has no seat to share, so evaluation games against
``random`` are all draws (the reference has no seat); its frags per match tell its progress. The
tournament command ``arena train`` prints enters it in the 2-player match
(:meth:`~envs.vizdoom.VizdoomDeathmatch.match_options`).

Example:
    >>> recipe = training_recipe()
    >>> recipe.interface, recipe.env_options["players"], recipe.env_options["bots"]
    ('frame_stack(doom_screen(doom_actions()))', 1, 3)
"""

from __future__ import annotations

from typing import Any

from arena.training.recipe import TrainingRecipe

__all__ = ["FAST_OPTIONS", "training_recipe"]

#: The env options of the fast mode: one engine, the learner against 3 bots, grey screens, no labels.
FAST_OPTIONS: dict[str, Any] = {
    "players": 1,
    "bots": 3,
    "screen_format": "grey",
    "enemies": False,
    "frame_skip": 4,
    "time_limit": 20.0,
}


def training_recipe(**options: Any) -> TrainingRecipe:
    """PPO (``CnnPolicy``) on ``frame_stack(doom_screen(doom_actions()))``, alone against 3 bots."""
    return TrainingRecipe(
        algo="ppo",
        interface="frame_stack(doom_screen(doom_actions()))",
        algo_options={"n_steps": 256, "batch_size": 64, "n_epochs": 4},
        n_envs=2,
        evaluations=5,
        eval_games=10,
        full_budget=200_000,
        env_options=dict(FAST_OPTIONS),
    )
