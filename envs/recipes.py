"""Training recipes of the single-module bundled games: what ``arena train ENV`` uses by default.

Each function takes the env's options and returns an :class:`arena.training.TrainingRecipe`; the
``arena.recipes`` entry points in ``setup.cfg`` name them under the env's registered name, and
``arena train`` finds them there (:func:`arena.training.recipe.recipe_for`). Game families that
are packages keep theirs beside them (``envs/pommerman/recipe.py`` ...). Flags of ``arena train``
override any field.

Example:
    >>> connect_four().self_play, connect_four().references
    ('uniform', ('random', 'connect_four_heuristic'))
"""

from __future__ import annotations

from typing import Any

from arena.training.recipe import TrainingRecipe

__all__ = [
    "card_game",
    "connect_four",
    "pong_2p",
    "rock_paper_scissors",
    "team_rock_paper_scissors",
    "tic_tac_toe",
]


def tic_tac_toe(**options: Any) -> TrainingRecipe:
    """The learner sees the board from its own side (``ego_board``); MaskablePPO against ``random``."""
    return TrainingRecipe(interface="ego_board")


def connect_four(**options: Any) -> TrainingRecipe:
    """The recipe of docs/performance.md's "Training connect four" run (docs/training.md's command).

    Self-play (snapshots drawn uniformly, the 4 newest kept) in a pool of ``random`` and the
    heuristic drawn twice as often; 32 evaluations of 100 games against ``random`` and the
    heuristic over a 1.6M-step run, fewer games in shorter runs.
    """
    return TrainingRecipe(
        interface="ego_board",
        opponents=("random", "connect_four_heuristic", "connect_four_heuristic"),
        references=("random", "connect_four_heuristic"),
        self_play="uniform",
        pool_size=7,
        evaluations=32,
        eval_games=100,
        full_budget=1_600_000,
    )


def card_game(**options: Any) -> TrainingRecipe:
    """Kuhn and Leduc poker and Liar's Dice: the raw observation vector, masked PPO against ``random``."""
    return TrainingRecipe(eval_games=200)


def rock_paper_scissors(**options: Any) -> TrainingRecipe:
    """Against ``beat_most_common`` (which a learner can exploit; every policy scores 1/3 against ``random``)."""
    return TrainingRecipe(opponents=("beat_most_common",), references=("beat_most_common", "random"))


def team_rock_paper_scissors(**options: Any) -> TrainingRecipe:
    """One seat beside a ``beat_most_common`` teammate against two of them (docs/teams.md's example)."""
    return TrainingRecipe(
        algo="ppo",
        interface="one_hot",
        teammate="beat_most_common",
        opponents=("beat_most_common",),
        references=("beat_most_common",),
    )


def pong_2p(**options: Any) -> TrainingRecipe:
    """Self-play from the pixels (docs/performance.md, "Pong-2p from frames"): the learner sees a
    stack of two 40x40 grey pictures of the field (``pong_frames``, drawn from the vector the
    scripted ``pong_ai`` reads, or cut down from the env's ``"frame"``) and picks among three moves
    (``pong_moves``), with a 0.02 bonus for each return of the ball, up to 0.05 more for a steep
    one and 0.1 more for one off the paddle's edge (``pong_hit_bonus``: a signal long before it wins
    rounds, small enough that a tied round stays worth about a won one; ``pong_ai`` misses returns
    off the outer half, and at ``ball_spin=3`` only off the edge, ``bench/pong_headroom.py``); a
    small CNN (SB3's NatureCNN with 256 features, no hidden layers after it) trained with PPO (sb3-contrib's
    MaskablePPO, which the batched trainer takes: Pong has no illegal moves, so every mask is all True). Its
    opponents, a ladder: ``pong_ai`` three games in eight, ``pong_ai_medium`` two, ``pong_ai_easy``
    one, the 2 newest snapshots of itself the rest (a snapshot joins at every evaluation). The
    easier rungs miss less steep returns (``bench/pong_headroom.py --gain``), so rounds won
    against them teach the learner to aim that ``pong_ai`` rarely rewards on its own. Training games are 5 rounds of at most 500 steps (a
    cheaper evaluation unit; long rallies end as ties sooner); the agent plays games of any length.
    It trains on the batch (``Pong2p.make_batch`` through the one batched trainer,
    :class:`~arena.training.batched.BatchVecEnv`: 32 games a numpy step, the stack's
    levels over every game at once, ``pong_ai`` batched, each snapshot one forward a step).
    """
    return TrainingRecipe(
        algo="maskable-ppo",
        interface="pong_moves(pong_frames(pong_hit_bonus(bonus=0.02, steep=0.05, edge=0.1), scale=4, frames=2))",
        policy="CnnPolicy",
        algo_options={
            "n_steps": 128,
            "batch_size": 256,
            "n_epochs": 4,
            "learning_rate": 2.5e-4,
            "ent_coef": 0.01,
            "clip_range": 0.1,
            "gamma": 0.99,
            "gae_lambda": 0.95,
            "policy_kwargs": {"net_arch": [], "features_extractor_kwargs": {"features_dim": 256}},
        },
        opponents=("pong_ai_easy",) + ("pong_ai_medium",) * 2 + ("pong_ai",) * 3,
        references=("pong_ai",),
        self_play="uniform",
        promote_at=0.0,
        pool_size=8,
        n_envs=32,
        eval_games=10,
        evaluations=8,
        full_budget=1_000_000,
        env_options={"rounds": 5, "max_round_steps": 500},
    )
