"""Pommerman's training recipe: what ``arena train pommerman`` uses by default.

In free-for-all the learner sees :class:`interfaces.pommerman.PommermanFeatures` (the ego-corner
planes and the attribute vector with the legal moves: every entry a float in [0, 1], so no
``Discrete.start`` of the raw observation reaches Stable-Baselines3, whose one-hot encoding
ignores it), plays three ``random`` bombers and is judged against them and against
``pommerman_simple``.

In team mode it trains on the batch (``control="shared"``: arena's one batched trainer,
:class:`~arena.training.batched.BatchVecEnv` with ``team=True``): many games in
one compiled :class:`~envs.pommerman.batch.PommermanBatch`, one policy for both members of its side
(parameter sharing, each seeing itself in the top-left corner: the ego view), MaskablePPO behind
the action filter, the two shaping bonuses on the rewards, a small CNN over the 22 uint8
planes (:class:`envs.pommerman.policy.PlanesCNN`), and two batched ``pommerman_simple`` as the
opponents of every game (no self-play by default: a uniform self-play pool leaves the bar's opponent
only a share of the games; docs/performance.md, "Pommerman team mode: the shipped team", gives the
scores of both). ``--self-play uniform`` puts snapshots of the learner in the pool beside it (one
forward for all their games a step). The learner's stack, :func:`team_interface`, is what the trained folder plays behind on
the single env: the batch's planes (``pommerman_batch_planes``, ego) over the shaping bonuses
(``pommerman_pickup_bonus`` 0.1, ``pommerman_enemy_down_bonus`` 0.3) over the action filter
(``pommerman_safe_moves``); on the batch each level runs its array form over the batch's planes
(docs/architecture.md, "Interfaces on batches"), and a level of the user's own wrapped around the stack
trains there too. It is
evaluated on the single env against two ``pommerman_simple`` (its own copy beside it), and the
folder it writes fills its side in a tournament::

    arena train pommerman --env-options '{"mode": "team"}' --timesteps 2000000 --out pm_team
    arena tournament pommerman --env-options '{"mode": "team"}' \\
        --agents 'ppo=pm_team+pm_team,simple=pommerman_simple+pommerman_simple'

``--teammate pommerman_simple`` trains the same stack in one seat beside that teammate, one game
at a time on ``SingleAgentEnv``. Radio mode keeps the earlier single-env team recipe
(:data:`TEAM_INTERFACE`, one seat beside ``pommerman_simple``). Games last up to 800 steps, so
evaluations are fewer and shorter than the board games'.

Example:
    >>> recipe = training_recipe(mode="team")
    >>> recipe.control, recipe.teammate, recipe.algo
    ('shared', None, 'maskable-ppo')
    >>> team_interface(60)
    'pommerman_batch_planes(pommerman_enemy_down_bonus(pommerman_pickup_bonus(pommerman_safe_moves, bonus=0.1), \
bonus=0.3), ego=true, max_steps=60)'
"""

from __future__ import annotations

from typing import Any

from arena.training.recipe import TrainingRecipe

__all__ = ["TEAM_INTERFACE", "TEAM_ALGO_OPTIONS", "team_interface", "training_recipe"]

#: The single-env team stack (radio mode): the move-only features over radio's actions as moves with silent
#: words, over the shaping bonuses over the action filter (innermost, on radio's own (move, word, word) actions).
TEAM_INTERFACE = (
    "pommerman_features(pommerman_silent_radio(pommerman_enemy_down_bonus(pommerman_pickup_bonus(pommerman_safe_moves, "
    "bonus=0.1), bonus=0.3)))"
)

#: MaskablePPO on the batched team trainer (bench/pommerman_team_train.py's settings): 32 games x 2 seats
#: x 64 steps = 4,096 samples an update, the CNN over the planes with one hidden layer of 128.
TEAM_ALGO_OPTIONS: dict[str, Any] = {
    "n_steps": 64,
    "batch_size": 1024,
    "n_epochs": 4,
    "learning_rate": 3e-4,
    "ent_coef": 0.01,
    "gamma": 0.995,
    "policy_kwargs": {
        "features_extractor_class": "envs.pommerman.policy:PlanesCNN",
        "features_extractor_kwargs": {"features_dim": 256},
        "net_arch": [128],
    },
}


def team_interface(max_steps: int = 800) -> str:
    """The batched team trainer's stack for games of ``max_steps`` (the time plane counts towards it)."""
    shaped = "pommerman_enemy_down_bonus(pommerman_pickup_bonus(pommerman_safe_moves, bonus=0.1), bonus=0.3)"
    return f"pommerman_batch_planes({shaped}, ego=true, max_steps={int(max_steps)})"


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
    if mode == "team":
        return TrainingRecipe(
            interface=team_interface(options.get("max_steps", 800)),
            algo="maskable-ppo",
            algo_options=TEAM_ALGO_OPTIONS,
            opponents=("pommerman_simple",),
            references=("pommerman_simple",),
            evaluations=10,  # 80 single-env games each (~0.9 games/s here): ~15 min of a 2M-step run
            eval_games=40,
            full_budget=2_000_000,
            n_envs=32,
            control="shared",
        )
    # Radio: the features (silent words) over the shaping bonuses over the action filter, one seat beside simple.
    budget["interface"] = TEAM_INTERFACE
    return TrainingRecipe(
        teammate="pommerman_simple", opponents=("pommerman_simple",), references=("pommerman_simple",), **budget
    )
