"""``check_agent``: does an agent keep arena's contract on given spaces?"""

from __future__ import annotations

import copy
import random
from typing import Any

import numpy as np
from gymnasium import spaces

from arena.agents.base import Agent
from arena.errors import ContractViolation
from arena.testing.env_checker import values_equal

__all__ = ["check_agent"]


def check_agent(
    agent: Agent, observation_space: spaces.Space, action_space: spaces.Space, *, steps: int = 50, seed: int = 0
) -> None:
    """Check that ``agent`` acts inside ``action_space``, obeys masks and is reproducible.

    The agent is set up on the spaces, then asked to act on seeded sample observations
    (with random masks when the action space is Discrete) twice after
    ``reset(seed=seed)``; both runs must give the same actions, every action must lie
    in the space and be allowed by its mask, and ``done`` must accept a final reward.

    Raises:
        ContractViolation: naming the agent and the broken rule.

    Example:
        >>> from gymnasium import spaces
        >>> from arena import RandomAgent
        >>> check_agent(RandomAgent(), spaces.Discrete(4), spaces.Discrete(3))
    """
    name = f"check_agent({agent}, {observation_space}, {action_space})"
    if not isinstance(agent, Agent):
        raise ContractViolation(f"{name}: expected an arena.Agent, got {type(agent).__name__}")
    agent.setup(observation_space, action_space)
    discrete = action_space if isinstance(action_space, spaces.Discrete) else None  # masks only for Discrete
    start = int(discrete.start) if discrete is not None else 0

    def run() -> list[Any]:
        rng = random.Random(seed)
        observations = copy.deepcopy(observation_space)
        observations.seed(seed)
        agent.reset(seed=seed)
        actions = []
        for step in range(steps):
            observation = observations.sample()
            mask = None
            if discrete is not None:
                mask = np.array([rng.randint(0, 1) for _ in range(int(discrete.n))], dtype=np.int8)
                mask[rng.randrange(int(discrete.n))] = 1
            action = agent.act(observation, mask, 0.0 if step == 0 else rng.uniform(-1, 1))
            if not action_space.contains(action):
                raise ContractViolation(f"{name}: act() returned {action!r}, which is not in {action_space}")
            if mask is not None and not mask[int(action) - start]:
                raise ContractViolation(f"{name}: act() returned {action!r}, which the mask {mask} forbids")
            actions.append(action)
        agent.done(0.0, {})
        return actions

    if not values_equal(run(), run()):
        raise ContractViolation(f"{name}: two runs after reset(seed={seed}) chose different actions")
