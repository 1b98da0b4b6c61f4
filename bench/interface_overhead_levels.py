"""The levels ``bench/interface_overhead.py`` times for its headline, written as a user writes them.

This module has no ``from __future__ import annotations`` (a user's module usually has none), and no
hook is the bare ``return argument``: each names its value and returns the name, the least work a
hook can do. The Gymnasium wrapper beside them has hooks with the same bodies, so the two stacks
differ only in how their hooks are dispatched.
"""

import gymnasium

from arena import Interface


class TrivialLevel(Interface):
    """An interface level whose observation, action and mask hooks do trivial work."""

    def observation(self, observation):
        seen = observation
        return seen

    def action(self, action):
        chosen = action
        return chosen

    def action_mask(self, mask):
        kept = mask
        return kept


class GymTrivialLevel(gymnasium.Wrapper):
    """The Gymnasium peer of :class:`TrivialLevel`: the same hook bodies, called by its own step."""

    def observation(self, observation):
        seen = observation
        return seen

    def action(self, action):
        chosen = action
        return chosen

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
