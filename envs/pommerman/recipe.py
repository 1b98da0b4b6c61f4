"""Pommerman's training recipe: what ``arena train pommerman`` uses by default.

Every mode trains on the batch, arena's one batched trainer
(:class:`~arena.training.batched.BatchVecEnv`): many games in one compiled
:class:`~envs.pommerman.batch.PommermanBatch`, the learner seeing itself in the top-left corner (the
ego view), MaskablePPO behind the action filter, the two shaping bonuses on the rewards, a small CNN
over the 22 uint8 planes (radio 24, the last two the words the teammate sent last step:
:class:`envs.pommerman.policy.PlanesCNN`) and batched ``pommerman_simple``
as every other seat of every game, against which the learner is also judged. The learner's stack,
:func:`planes_interface`, is what the trained folder plays behind on the single env: the batch's planes
(``pommerman_batch_planes``, ego) over the shaping bonuses (``pommerman_pickup_bonus`` 0.1,
``pommerman_enemy_down_bonus`` 0.3) over the action filter (``pommerman_safe_moves``); on the batch each
level runs its array form over the batch's planes (docs/architecture.md, "Interfaces on batches"), and a
level of the user's own wrapped around the stack trains there too.

In free-for-all (``control="seat"``) the learner plays one seat of 64 games against three
``pommerman_simple``::

    arena train pommerman --timesteps 4000000 --out pm_ffa
    arena tournament pommerman --agents pm_ffa,pommerman_simple

In team mode (``control="shared"``) one policy plays both members of its side (parameter sharing) in
32 games against two ``pommerman_simple`` (no self-play by default: a uniform self-play pool leaves the
bar's opponent only a share of the games; docs/performance.md, "Pommerman team mode: the shipped
team", gives the scores of both); ``--self-play uniform`` puts snapshots of the learner in the pool
beside them (one forward for all their games a step). The folder fills its side in a tournament::

    arena train pommerman --env-options '{"mode": "team"}' --timesteps 2000000 --out pm_team
    arena tournament pommerman --env-options '{"mode": "team"}' \\
        --agents 'ppo=pm_team+pm_team,simple=pommerman_simple+pommerman_simple'

Radio mode trains as team mode does, the learner's actions being radio's own
``MultiDiscrete([6, 8, 8])``: a move and two words, so the team can learn to talk (docs/architecture.md,
"Radio mode trains on the team trainer"). The action filter masks the move and allows every word
(MaskablePPO's 22 flags), the batched ``pommerman_simple`` send silent words, and the same stack plays
the trained folder in radio games on the single env::

    arena train pommerman --env-options '{"mode": "radio"}' --timesteps 2000000 --out pm_radio
    arena tournament pommerman --env-options '{"mode": "radio"}' \\
        --agents 'r=pm_radio+pm_radio,simple=pommerman_simple+pommerman_simple'

All are evaluated on the single env (its own copies beside it in team and radio modes). ``--teammate
pommerman_simple`` trains the team stack in one seat beside that teammate, one game at a time on
``SingleAgentEnv``. Games last up to 800 steps, so evaluations are fewer and shorter than the board
games'.

Example:
    >>> recipe = training_recipe(mode="ffa")
    >>> recipe.control, recipe.opponents, recipe.algo
    ('seat', ('pommerman_simple',), 'maskable-ppo')
    >>> training_recipe(mode="team").control, training_recipe(mode="radio").control
    ('shared', 'shared')
    >>> planes_interface(60)
    'pommerman_batch_planes(pommerman_enemy_down_bonus(pommerman_pickup_bonus(pommerman_safe_moves, bonus=0.1), \
bonus=0.3), ego=true, max_steps=60)'
"""

from __future__ import annotations

from typing import Any

from arena.errors import InvalidValueError
from arena.training.recipe import TrainingRecipe

__all__ = ["PLANES_ALGO_OPTIONS", "TEAM_ALGO_OPTIONS", "planes_interface", "team_interface", "training_recipe"]

#: MaskablePPO on the batched trainer (bench/pommerman_team_training.py's settings): 64 steps of every
#: game a rollout (team: 32 games x 2 seats = 4,096 samples an update; FFA: 64 games x 1 seat), the CNN over
#: the planes with one hidden layer of 128.
PLANES_ALGO_OPTIONS: dict[str, Any] = {
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
#: The earlier name of :data:`PLANES_ALGO_OPTIONS`, from when only team mode trained on the batch.
TEAM_ALGO_OPTIONS = PLANES_ALGO_OPTIONS


def planes_interface(max_steps: int = 800) -> str:
    """The batched trainer's stack (every mode) for games of ``max_steps`` (the time plane counts towards it).

    Each level reads its mode from the raw spaces (radio: 24 planes, ``(move, word, word)`` actions,
    the filter's mask over 6 + 8 + 8 flags).

    Example:
        >>> planes_interface().endswith("ego=true, max_steps=800)")
        True
    """
    shaped = "pommerman_enemy_down_bonus(pommerman_pickup_bonus(pommerman_safe_moves, bonus=0.1), bonus=0.3)"
    return f"pommerman_batch_planes({shaped}, ego=true, max_steps={int(max_steps)})"


#: The earlier name of :func:`planes_interface`, from when only team mode trained on the batch (the
#: RLlib recipe and the shipped team's tests use it).
team_interface = planes_interface


def training_recipe(mode: str = "ffa", **options: Any) -> TrainingRecipe:
    """The recipe for ``envs.make("pommerman", mode=mode, **options)``."""
    planes: dict[str, Any] = {
        "interface": planes_interface(options.get("max_steps", 800)),
        "algo": "maskable-ppo",
        "algo_options": PLANES_ALGO_OPTIONS,
        "opponents": ("pommerman_simple",),
        "references": ("pommerman_simple",),
        "eval_games": 40,
    }
    if mode == "ffa":
        # one learner seat of 64 games, three batched pommerman_simple (~620 learner steps/s here): 8 evaluations of
        # 40 single-env games at 4M steps, one every 500k as pommerman_ffa_ppo's segments did
        return TrainingRecipe(**planes, evaluations=8, full_budget=4_000_000, n_envs=64, control="seat")
    if mode in ("team", "radio"):  # radio: the same trainer, the model choosing its words too
        # 80 single-env games an evaluation (~0.9 games/s here): ~15 min of a 2M-step run
        return TrainingRecipe(**planes, evaluations=10, full_budget=2_000_000, n_envs=32, control="shared")
    raise InvalidValueError(f"pommerman's training recipe: mode must be 'ffa', 'team' or 'radio', got {mode!r}")
