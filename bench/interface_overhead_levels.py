"""The levels ``bench/interface_overhead.py`` times for its headline, written as a user writes them.

This module has no ``from __future__ import annotations`` (a user's module usually has none), and no
hook is the bare ``return argument``: each names its value and returns the name, the least work a
hook can do. The Gymnasium wrapper beside them has the same hooks, so the two stacks
differ only in how their hooks are dispatched. Both inherit the very same hook functions
from :class:`TrivialHooks`.
"""

import gymnasium

from arena import Interface


class TrivialHooks:
    """Observation and action hooks that do trivial work; both stacks below inherit these very functions."""

    def observation(self, observation):
        seen = observation
        return seen

    def action(self, action):
        chosen = action
        return chosen


class TrivialLevel(TrivialHooks, Interface):
    """An interface level whose observation, action and mask hooks do trivial work."""

    def action_mask(self, mask):
        kept = mask
        return kept


class GymTrivialLevel(TrivialHooks, gymnasium.Wrapper):
    """The Gymnasium peer of :class:`TrivialLevel`: the same hooks, called by its own step."""

    def reset(self, **kwargs):
        observation, info = self.env.reset(**kwargs)
        return self.observation(observation), info

    def step(self, action):
        observation, reward, terminated, truncated, info = self.env.step(self.action(action))
        return self.observation(observation), reward, terminated, truncated, info


def arena_levels():
    """Three trivial levels, stacked: what the headline row puts on each agent."""
    return TrivialLevel(TrivialLevel(TrivialLevel()))


def gym_levels(env):
    """Three trivial Gymnasium wrappers around ``env``."""
    return GymTrivialLevel(GymTrivialLevel(GymTrivialLevel(env)))
