"""MAgent2's training recipes: parameter sharing: one policy trained on one soldier's seat plays them all.

``arena train magent_battle`` trains PPO on one soldier's flattened view (845 floats) against an
enemy army drawn from a pool of ``random`` and ``magent_attack_nearest``; the trained folder then
plays every seat of its side (one policy, state per seat: parameter sharing). ``magent_combined_arms`` trains the melee units (the recipe names
their seats: the ranged units have other spaces). Battles are cut at 300 steps.

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
    "interface": "flatten",
    "evaluations": 10,
    "eval_games": 20,
    "full_budget": 500_000,
    "algo_options": {"n_steps": 256, "batch_size": 256},
    "opponents": ("random", "magent_attack_nearest"),
    "references": ("magent_attack_nearest", "random"),
    "env_options": {"max_steps": 300},
}


def training_recipe(**options: Any) -> TrainingRecipe:
    """PPO on one soldier's flattened view of ``magent_battle``, comrades and enemies scripted."""
    return TrainingRecipe(**_BUDGET)


def combined_arms_recipe(**options: Any) -> TrainingRecipe:
    """As :func:`training_recipe`, on the melee units of ``magent_combined_arms`` with ``options``."""
    from envs.magent.env import MAgentCombinedArms

    size = {key: options[key] for key in ("map_size",) if key in options}
    seats = tuple(agent for agent in MAgentCombinedArms(**size).possible_agents if "melee" in agent)
    return TrainingRecipe(seats=seats, **_BUDGET)
