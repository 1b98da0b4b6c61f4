"""MAgent2's training recipes: parameter sharing: one policy plays every soldier of its side.

``arena train magent_battle`` trains PPO with ``control="shared"`` (the one batched trainer over a worker batch):
the policy acts for all 81 soldiers of its side in every battle, each soldier a sub-env seeing its
own 13x13x5 view, against an enemy army drawn from a pool (``magent_attack_nearest`` three times in
four at the start, ``random``, then snapshots of the learner); each soldier's reward is half its own,
half its side's mean (team spirit 0.5), with MAgent2's reward options set for training (attacks
free, a hit 0.5, a death -2); the trained folder plays every seat of its side in a tournament.
This recipe trained the shipped ``magent_army_ppo`` (docs/performance.md, "A trained army"). ``magent_combined_arms`` trains one melee unit (the recipe names
their seats: the ranged units have other spaces) beside scripted comrades. Battles are cut at 300 steps.

Example:
    >>> training_recipe().algo, training_recipe().references[0]
    ('ppo', 'magent_attack_nearest')
    >>> combined_arms_recipe(map_size=16).seats
    ('redmelee_0', 'redmelee_1', 'redmelee_2', 'bluemelee_0', 'bluemelee_1', 'bluemelee_2')
"""

from __future__ import annotations

from typing import Any

from arena.training.recipe import TrainingRecipe

__all__ = ["training_recipe", "combined_arms_recipe"]

_BUDGET: dict[str, Any] = {
    "algo": "ppo",
    "control": "shared",
    "n_envs": 2,
    "evaluations": 10,
    "eval_games": 10,
    "full_budget": 5_000_000,
    "algo_options": {
        "n_steps": 64,
        "batch_size": 2048,
        "n_epochs": 4,
        "learning_rate": 3e-4,
        "ent_coef": 0.01,
        "gamma": 0.99,
        "policy_kwargs": {"net_arch": [256, 128]},
    },
    "team_spirit": 0.5,
    "opponents": ("magent_attack_nearest", "magent_attack_nearest", "magent_attack_nearest", "random"),
    "references": ("magent_attack_nearest", "random"),
    "self_play": "uniform",
    "pool_size": 8,
    # MAgent2's own reward options, for training: no cost to attack (so attacking is explored, and an army that
    # holds its ground and strikes what comes into reach is found), a hit paid 0.5, a death -2 (a kill is 5).
    "env_options": {"max_steps": 300, "dead_penalty": -2.0, "attack_penalty": 0.0, "attack_opponent_reward": 0.5},
}


def training_recipe(**options: Any) -> TrainingRecipe:
    """PPO with parameter sharing over a whole side of ``magent_battle`` (``control="shared"``)."""
    return TrainingRecipe(**_BUDGET)


# Combined arms: the learner plays one melee seat (the ranged units have other spaces), beside scripted comrades.
_ONE_SEAT: dict[str, Any] = {
    "algo": "ppo",
    "interface": "flatten",
    "evaluations": 10,
    "eval_games": 20,
    "full_budget": 500_000,
    "algo_options": {"n_steps": 256, "batch_size": 256},
    "opponents": ("random", "magent_attack_nearest"),
    "references": ("magent_attack_nearest", "random"),
    "env_options": {"max_steps": 300},
}


def combined_arms_recipe(**options: Any) -> TrainingRecipe:
    """PPO on one melee unit's flattened view of ``magent_combined_arms`` (with ``options``), the
    rest of its side and the enemy scripted."""
    from envs.magent.env import MAgentCombinedArms

    size = {key: options[key] for key in ("map_size",) if key in options}
    seats = tuple(agent for agent in MAgentCombinedArms(**size).possible_agents if "melee" in agent)
    return TrainingRecipe(seats=seats, **_ONE_SEAT)
