"""``check_interface``: does an interface keep arena's contract on given raw spaces?"""

from __future__ import annotations

import copy
import random
from collections.abc import Callable
from typing import Any

import numpy as np
from gymnasium import spaces

from arena.errors import ContractViolation, MaskTranslationError
from arena.interface import Interface
from arena.testing.env_checker import values_equal

__all__ = ["check_interface"]


class _InterfaceChecker:
    def __init__(self, interface: Interface, observation_space: spaces.Space, action_space: spaces.Space) -> None:
        self.itf = interface
        self.raw_obs, self.raw_act = observation_space, action_space
        self.name = f"check_interface({interface}, {observation_space}, {action_space})"
        self.obs_space: spaces.Space | None = None
        self.act_space: spaces.Space | None = None

    def fail(self, message: str) -> None:
        raise ContractViolation(f"{self.name}: {message}")

    def setup(self) -> None:
        self.itf.setup(self.raw_obs, self.raw_act)
        self.obs_space, self.act_space = self.itf.observation_space, self.itf.action_space
        for label, space in (("observation_space", self.obs_space), ("action_space", self.act_space)):
            if not isinstance(space, spaces.Space):
                self.fail(f"{label} after setup() must be a gymnasium Space, got {type(space).__name__}")
        self.check_spaces_stable("after setup()")

    def check_spaces_stable(self, when: str) -> None:
        if self.itf.observation_space is not self.obs_space or self.itf.action_space is not self.act_space:
            self.fail(f"observation_space/action_space changed {when}; spaces are computed once in setup()")

    def check_observations(self, raw_observations: list[Any]) -> None:
        outputs = []
        for i, raw in enumerate(raw_observations):
            observation = self.itf.transform_reset(raw) if i == 0 else self.itf.transform_observation(raw)
            if not self.obs_space.contains(observation):  # type: ignore[union-attr]
                self.fail(f"observation {observation!r} (from raw {raw!r}, step {i}) is not in {self.obs_space}")
            outputs.append(copy.deepcopy(observation))
        self.check_spaces_stable("while transforming observations")
        if getattr(self.itf, "stateful_across_episodes", False):
            return
        again = [self.itf.transform_reset(raw) if i == 0 else self.itf.transform_observation(raw)
                 for i, raw in enumerate(raw_observations)]
        if not values_equal(outputs, again):
            self.fail("state leaks between reset()s: the same raw observations gave different results after "
                      f"a reset ({outputs!r} then {again!r}); set stateful_across_episodes = True if intended")

    def check_action(self, first_observation: Any, action: Any) -> None:
        probe = copy.deepcopy(self.itf)
        probe.transform_reset(first_observation)
        raw = probe.transform_action(action)
        if not self.raw_act.contains(raw):
            self.fail(f"action {action!r} from {self.act_space} maps to {raw!r}, which is not in raw {self.raw_act}")

    def check_mask(self, first_observation: Any, raw_mask: np.ndarray) -> bool:
        """Check one mask translation; False when the interface declares masks unsupported."""
        try:
            mask = self.itf.transform_action_mask(raw_mask)
        except MaskTranslationError:
            return False
        if not isinstance(self.act_space, spaces.Discrete):
            return True
        n = int(self.act_space.n)
        if not isinstance(mask, np.ndarray) or mask.shape != (n,):
            got = f"{type(mask).__name__} of shape {getattr(mask, 'shape', None)}"
            self.fail(f"action_mask over {self.act_space} must be an array of shape ({n},), got {got}")
        if not np.isin(mask, (0, 1)).all():
            self.fail(f"action_mask must hold only 0 and 1, got {mask}")
        if raw_mask.any() and not mask.any():
            self.fail(f"raw mask {raw_mask} has legal actions but the translated mask {mask} has none")
        start = int(self.act_space.start)
        raw_start = int(self.raw_act.start)  # type: ignore[attr-defined]
        for index in np.flatnonzero(mask):
            probe = copy.deepcopy(self.itf)
            probe.transform_reset(first_observation)
            raw = int(probe.transform_action(start + int(index)))
            if not raw_mask[raw - raw_start]:
                self.fail(f"model action {start + int(index)} is legal in the translated mask {mask} but maps "
                          f"to raw action {raw}, which raw mask {raw_mask} forbids")
        return True


def _run(examples: int, seed: int, strategy: Callable[[Any], Any] | None, fallback: Callable[[random.Random], Any],
         body: Callable[[Any], None]) -> None:
    """Run ``body`` over hypothesis examples when hypothesis is installed, else over seeded samples.

    Inside another hypothesis test (a property test that calls the checker) the seeded
    sampler is used, since hypothesis does not nest.
    """
    try:
        from hypothesis import HealthCheck, given, settings
        from hypothesis.control import currently_in_test_context

        nested = currently_in_test_context()
    except ImportError:
        nested = True
    if nested or strategy is None:
        rng = random.Random(seed)
        for _ in range(examples):
            body(fallback(rng))
        return

    @settings(max_examples=examples, deadline=None, database=None, derandomize=True,
              suppress_health_check=list(HealthCheck))
    @given(strategy)
    def run(example: Any) -> None:
        body(example)

    run()


def check_interface(interface: Interface, observation_space: spaces.Space, action_space: spaces.Space, *,
                    examples: int = 50, seed: int = 0) -> None:
    """Check that ``interface`` keeps the interface contract on these raw spaces.

    With hypothesis installed, raw observations, actions and masks are generated by
    hypothesis (failures shrink to a minimal example); otherwise by seeded sampling.
    Rules checked, each reported precisely when broken:

    * ``setup`` yields gymnasium spaces that stay the same objects afterwards;
    * every transformed observation (first and later ones) lies in ``observation_space``;
    * the same raw observations after a fresh ``reset`` give the same results (no state
      leaks between episodes), unless the interface sets ``stateful_across_episodes``;
    * every action drawn from ``action_space`` maps into the raw action space;
    * for a Discrete raw action space: a translated mask has one 0/1 entry per model
      action, keeps a legal action when the raw mask has one, and every model action it
      allows maps to a raw action the raw mask allows (an interface may instead raise
      :class:`~arena.errors.MaskTranslationError`).

    Spaces an interface cannot handle must be rejected at ``setup`` with
    :class:`~arena.errors.SpaceMismatchError`; that error propagates from here.

    Args:
        interface: the interface to check; it is set up on the given spaces.
        observation_space: the raw observation space.
        action_space: the raw action space.
        examples: generated examples per rule.
        seed: seed of the fallback sampler.

    Raises:
        ContractViolation: naming the interface, the spaces and the broken rule.

    Example:
        >>> from gymnasium import spaces
        >>> from arena import Interface
        >>> check_interface(Interface(), spaces.Discrete(3), spaces.Discrete(2))
    """
    checker = _InterfaceChecker(interface, observation_space, action_space)
    checker.setup()
    obs_space, act_space = checker.obs_space, checker.act_space
    assert obs_space is not None and act_space is not None

    def sample(space: spaces.Space, rng: random.Random) -> Any:
        sampler = copy.deepcopy(space)
        sampler.seed(rng.randrange(2**31))
        return sampler.sample()

    try:
        from hypothesis import strategies as st

        from arena.testing.strategies import masks, values
    except ImportError:
        st = None  # type: ignore[assignment]

    _run(examples, seed,
         st.lists(values(observation_space), min_size=1, max_size=4) if st else None,
         lambda rng: [sample(observation_space, rng) for _ in range(rng.randint(1, 4))],
         checker.check_observations)
    _run(examples, seed + 1,
         st.tuples(values(observation_space), values(act_space)) if st else None,
         lambda rng: (sample(observation_space, rng), sample(act_space, rng)),
         lambda pair: checker.check_action(*pair))
    if isinstance(action_space, spaces.Discrete):
        n = int(action_space.n)
        supported: list[bool] = []

        def fallback_mask(rng: random.Random) -> tuple[Any, np.ndarray]:
            mask = np.array([rng.randint(0, 1) for _ in range(n)], dtype=np.int8)
            mask[rng.randrange(n)] = 1
            return sample(observation_space, rng), mask

        _run(examples, seed + 2,
             st.tuples(values(observation_space), masks(n)) if st else None,
             fallback_mask,
             lambda pair: supported.append(checker.check_mask(*pair)))
        if any(supported) and not all(supported):
            checker.fail("action_mask() translated some masks and raised MaskTranslationError for others")
    checker.check_spaces_stable("after transforming actions and masks")
