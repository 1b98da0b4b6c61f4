"""``check_interface``: does an interface keep arena's contract on given raw spaces?

Action masks are checked for every action space that carries them: ``Discrete`` (one
int8 entry per action, the env contract), ``MultiDiscrete`` (the per-component masks
concatenated, sb3-contrib's convention) and ``Tuple`` of those (a team: one mask per
member, ``None`` for a member without one).
"""

from __future__ import annotations

import copy
import random
from collections.abc import Callable
from typing import TYPE_CHECKING, Any, NoReturn

import numpy as np
from gymnasium import spaces

from arena.errors import ContractViolation, InvalidTypeError, MaskTranslationError
from arena.interface import Interface
from arena.masks import mask_allows, mask_segments
from arena.testing.env_checker import values_equal

if TYPE_CHECKING:
    from hypothesis.strategies import SearchStrategy

__all__ = ["check_interface"]

_ACTIONS_PER_MASK = 16  # allowed model actions mapped back per translated mask


def _maskable(space: spaces.Space) -> bool:
    """Whether actions of ``space`` (or of an element of a Tuple) carry masks."""
    if isinstance(space, spaces.Tuple):
        return any(_maskable(s) for s in space.spaces)
    return mask_segments(space) is not None


def _segments(space: spaces.Space) -> tuple[np.ndarray, np.ndarray, np.ndarray]:
    """Sizes, mask offsets and starts of the components of a Discrete/MultiDiscrete space."""
    sizes = np.array(mask_segments(space), dtype=np.int64)
    start = space.start if isinstance(space, (spaces.Discrete, spaces.MultiDiscrete)) else 0
    starts = np.asarray(start, dtype=np.int64).reshape(-1)
    return sizes, np.concatenate(([0], np.cumsum(sizes)[:-1])).astype(np.int64), starts


def _random_mask(space: spaces.Space, rng: random.Random) -> Any:
    """A raw mask over ``space`` with at least one legal choice per component (fallback sampler)."""
    if isinstance(space, spaces.Tuple):
        return tuple(_random_mask(s, rng) if _maskable(s) else None for s in space.spaces)
    blocks = []
    for n in _segments(space)[0]:
        block = np.array([rng.randint(0, 1) for _ in range(int(n))], dtype=np.int8)
        block[rng.randrange(int(n))] = 1
        blocks.append(block)
    return np.concatenate(blocks)


def _mask_strategy(space: spaces.Space) -> Any:
    """The hypothesis strategy of raw masks over ``space``."""
    from hypothesis import strategies as st

    from arena.testing.strategies import masks

    if isinstance(space, spaces.Tuple):
        return st.tuples(*(_mask_strategy(s) if _maskable(s) else st.none() for s in space.spaces))
    return st.tuples(*(masks(int(n)) for n in _segments(space)[0])).map(np.concatenate)


def _has_legal(space: spaces.Space, mask: Any) -> bool:
    """Whether every masked component of ``space`` keeps at least one legal choice."""
    if mask is None:
        return True
    if isinstance(space, spaces.Tuple):
        return all(_has_legal(s, m) for s, m in zip(space.spaces, mask))
    if not _maskable(space):
        return True
    sizes, offsets, _ = _segments(space)
    return all(np.asarray(mask)[o : o + n].any() for o, n in zip(offsets, sizes))


def _mask_form_error(space: spaces.Space, mask: Any) -> str | None:
    """What is wrong with the form of ``mask`` over the model ``space`` (``None``: nothing)."""
    if isinstance(space, spaces.Tuple):
        if not isinstance(mask, tuple) or len(mask) != len(space.spaces):
            return f"a mask over {space} must be a tuple of {len(space.spaces)} member masks, got {mask!r}"
        for i, (s, m) in enumerate(zip(space.spaces, mask)):
            error = None if m is None else _mask_form_error(s, m)
            if error:
                return f"member {i}: {error}"
        return None
    if not _maskable(space):
        return None
    sizes = _segments(space)[0]
    length = int(sizes.sum())
    layout = "" if isinstance(space, spaces.Discrete) else f" (the masks of components {sizes.tolist()} concatenated)"
    if not isinstance(mask, np.ndarray) or mask.shape != (length,):
        got = f"{type(mask).__name__} of shape {getattr(mask, 'shape', None)}"
        return f"action_mask over {space} must be an array of shape ({length},){layout}, got {got}"
    if mask.dtype != np.int8:
        return f"action_mask over {space} must have dtype int8 (the env contract), got {mask.dtype}"
    if not np.isin(mask, (0, 1)).all():
        return f"action_mask must hold only 0 and 1, got {mask}"
    return None


def _allowed_actions(space: spaces.Space, mask: Any, rng: random.Random, limit: int) -> list[Any]:
    """Up to ``limit`` model actions that ``mask`` allows (all of them for a small Discrete)."""
    if isinstance(space, spaces.Discrete):
        legal = np.flatnonzero(mask)
        if len(legal) > limit:
            legal = legal[np.linspace(0, len(legal) - 1, limit).astype(int)]
        return [int(space.start) + int(i) for i in legal]
    if isinstance(space, spaces.MultiDiscrete):
        sizes, offsets, starts = _segments(space)
        choices = [np.flatnonzero(mask[o : o + n]) + s for o, n, s in zip(offsets, sizes, starts)]
        return [
            np.array([rng.choice(c.tolist()) for c in choices], dtype=space.dtype).reshape(space.shape)
            for _ in range(limit)
        ]
    if not isinstance(space, spaces.Tuple):  # only Tuples are maskable beyond Discrete/MultiDiscrete
        raise InvalidTypeError(f"no action mask over {space}")
    members = [
        _allowed_actions(s, m, rng, limit) if m is not None and _maskable(s) else None
        for s, m in zip(space.spaces, mask)
    ]
    samplers = [copy.deepcopy(s) for s in space.spaces]
    for sampler in samplers:
        sampler.seed(rng.randrange(2**31))
    return [
        tuple(rng.choice(choices) if choices else sampler.sample() for choices, sampler in zip(members, samplers))
        for _ in range(limit)
    ]


class _InterfaceChecker:
    def __init__(self, interface: Interface, observation_space: spaces.Space, action_space: spaces.Space) -> None:
        self.itf = interface
        self.raw_obs, self.raw_act = observation_space, action_space
        self.name = f"check_interface({interface}, {observation_space}, {action_space})"
        self.obs_space: spaces.Space | None = None
        self.act_space: spaces.Space | None = None

    def fail(self, message: str) -> NoReturn:
        raise ContractViolation(f"{self.name}: {message}")

    def setup(self) -> None:
        self.itf.setup(self.raw_obs, self.raw_act)
        self.obs_space, self.act_space = self.itf.observation_space, self.itf.action_space
        for label, space in (("observation_space", self.obs_space), ("action_space", self.act_space)):
            if not isinstance(space, spaces.Space):
                self.fail(f"{label} after setup() must be a gymnasium Space, got {type(space).__name__}")
        self.check_spaces_stable("after setup()")

    def check_spaces_stable(self, when: str) -> None:
        for label, first in (("observation_space", self.obs_space), ("action_space", self.act_space)):
            now = getattr(self.itf, label)
            if now is not first:
                self.fail(
                    f"{label} changed {when} (from {first} to {now}, or a new object for the same space); "
                    "spaces are computed once in setup()"
                )

    def _episode(self, steps: list[tuple[Any, Any]]) -> list[Any]:
        """Feed ``(raw observation, raw mask or None)`` steps as drivers do: mask, then observation."""
        obs_space = self.obs_space
        if obs_space is None:
            self.fail("an episode was checked before setup()")
        outputs = []
        for i, (raw, raw_mask) in enumerate(steps):
            if raw_mask is not None:
                try:
                    self.itf.transform_action_mask(raw_mask)
                except MaskTranslationError:
                    pass  # whether masks are supported is the mask rule's business
            observation = self.itf.transform_reset(raw) if i == 0 else self.itf.transform_observation(raw)
            if not obs_space.contains(observation):
                self.fail(f"observation {observation!r} (from raw {raw!r}, step {i}) is not in {obs_space}")
            outputs.append((observation, copy.deepcopy(observation)))
        for i, (returned, kept) in enumerate(outputs):
            if not values_equal(returned, kept):
                self.fail(
                    f"the observation returned at step {i} was modified by later calls ({kept!r} became "
                    f"{returned!r}); return a fresh array, not an internal buffer"
                )
        return [kept for _, kept in outputs]

    def check_observations(self, steps: list[tuple[Any, Any]]) -> None:
        outputs = self._episode(steps)
        self.check_spaces_stable("while transforming observations")
        if getattr(self.itf, "stateful_across_episodes", False):
            return
        again = self._episode(steps)
        if not values_equal(outputs, again):
            self.fail(
                "state leaks between reset()s: the same raw observations gave different results after "
                f"a reset ({outputs!r} then {again!r}); set stateful_across_episodes = True if intended"
            )

    def _play_turns(
        self, probe: Interface, first_observation: Any, turns: list[tuple[Any, Any, Any]], retry: bool
    ) -> list[Any]:
        """Raw actions for ``(action, rejected action, next observation)`` turns, as a driver plays them."""
        probe.transform_reset(first_observation)
        raws = []
        for i, (action, rejected, next_observation) in enumerate(turns):
            attempts = [rejected, action] if retry else [action]
            for attempt in attempts:
                raw = probe.transform_action(attempt)
                if not self.raw_act.contains(raw):
                    self.fail(
                        f"action {attempt!r} from {self.act_space} maps to {raw!r}, which is not in raw {self.raw_act}"
                    )
            raws.append(copy.deepcopy(raw))
            if i + 1 < len(turns):
                probe.transform_observation(next_observation)
        return raws

    def check_actions(self, first_observation: Any, turns: list[tuple[Any, Any, Any]]) -> None:
        actions = [action for action, _, _ in turns]
        probe = copy.deepcopy(self.itf)
        first = self._play_turns(probe, first_observation, turns, retry=False)
        if not getattr(self.itf, "stateful_across_episodes", False):
            again = self._play_turns(probe, first_observation, turns, retry=False)
            if not values_equal(first, again):
                self.fail(
                    f"state leaks between reset()s: actions {actions!r} mapped to {first!r}, then to "
                    f"{again!r} after a reset"
                )
        retried = self._play_turns(copy.deepcopy(self.itf), first_observation, turns, retry=True)
        if not values_equal(first, retried):
            self.fail(
                f"a retried turn maps differently: actions {actions!r} mapped to {first!r}, but to {retried!r} "
                "when each turn first tried another action (as after a step the env rejects); keep a turn's "
                "choice pending until the next observation"
            )

    def check_mask(self, first_observation: Any, raw_mask: Any, rng: random.Random) -> bool:
        """Check one mask translation; False when the interface declares this mask unsupported."""
        try:
            mask = self.itf.transform_action_mask(raw_mask)
        except MaskTranslationError:
            return False
        act_space = self.act_space
        assert act_space is not None
        if not _maskable(act_space):
            return True
        error = _mask_form_error(act_space, mask)
        if error:
            self.fail(error)
        if _has_legal(self.raw_act, raw_mask) and not _has_legal(act_space, mask):
            self.fail(f"raw mask {raw_mask} has legal actions but the translated mask {mask} has none")
        for action in _allowed_actions(act_space, mask, rng, _ACTIONS_PER_MASK):
            probe = copy.deepcopy(self.itf)
            probe.transform_reset(first_observation)
            raw = probe.transform_action(action)
            if not mask_allows(self.raw_act, raw_mask, raw):
                self.fail(
                    f"model action {action!r} is legal in the translated mask {mask} but maps "
                    f"to raw action {raw!r}, which raw mask {raw_mask} forbids"
                )
        return True


def _run(
    examples: int,
    seed: int,
    strategy: SearchStrategy[Any] | None,
    fallback: Callable[[random.Random], Any],
    body: Callable[[Any], None],
) -> None:
    """Run ``body`` over hypothesis examples when hypothesis is installed, else over seeded samples.

    Inside another hypothesis test (a property test that calls the checker) the seeded
    sampler is used, since hypothesis does not nest.
    """
    try:
        from hypothesis import HealthCheck, Phase, given, settings
        from hypothesis.control import currently_in_test_context

        nested = currently_in_test_context()
    except ImportError:
        nested = True
    if nested or strategy is None:
        rng = random.Random(seed)
        for _ in range(examples):
            body(fallback(rng))
        return

    # No "explain" phase: the failure message already names the rule, and explaining costs seconds.
    @settings(
        max_examples=examples,
        deadline=None,
        database=None,
        derandomize=True,
        suppress_health_check=list(HealthCheck),
        phases=[p for p in Phase if p is not Phase.explain],
    )
    @given(strategy)
    def run(example: Any) -> None:
        body(example)

    run()


def _sample(space: spaces.Space, rng: random.Random) -> Any:
    """One element of ``space`` drawn from a copy seeded by ``rng`` (the space's own generator is left alone)."""
    sampler = copy.deepcopy(space)
    sampler.seed(rng.randrange(2**31))
    return sampler.sample()


def _strategies(
    observation_space: spaces.Space, action_space: spaces.Space, act_space: spaces.Space, maskable: bool
) -> tuple[SearchStrategy[Any] | None, SearchStrategy[Any] | None, SearchStrategy[Any] | None]:
    """Hypothesis strategies of the three rules (episodes, actions, masks); ``None`` without hypothesis."""
    try:
        from hypothesis import strategies as st

        from arena.testing.strategies import values
    except ImportError:  # hypothesis is optional: seeded samples instead
        return None, None, None
    raw_masks = st.one_of(st.none(), _mask_strategy(action_space)) if maskable else st.none()
    steps = st.lists(st.tuples(values(observation_space), raw_masks), min_size=1, max_size=4)
    actions = st.tuples(
        values(observation_space),
        st.lists(st.tuples(values(act_space), values(act_space), values(observation_space)), min_size=1, max_size=4),
    )
    masks = st.tuples(values(observation_space), _mask_strategy(action_space)) if maskable else None
    return steps, actions, masks


def check_interface(
    interface: Interface,
    observation_space: spaces.Space,
    action_space: spaces.Space,
    *,
    examples: int = 50,
    seed: int = 0,
    require_masks: bool = True,
) -> None:
    """Check that ``interface`` keeps the interface contract on these raw spaces.

    The one call a plugin author puts in a test. With hypothesis installed, raw
    observations, actions and masks are generated by hypothesis (failures shrink to a
    minimal example); otherwise (and inside another hypothesis test) by seeded sampling.
    Rules checked, each reported precisely when broken:

    * ``setup`` yields gymnasium spaces, and ``observation_space``/``action_space`` stay
      the same objects afterwards (*space changed between calls*);
    * every transformed observation (first and later ones, each after its turn's mask,
      as the drivers deliver them) lies in ``observation_space`` (*observation outside
      the declared space*), and no later call modifies an observation already returned;
    * the same raw observations and actions after a fresh ``reset`` give the same results
      (*state leaking between resets*), unless the interface sets
      ``stateful_across_episodes = True``;
    * every action drawn from ``action_space`` maps into the raw action space (*action
      not mapping into the raw space*), and a turn retried with another action (after the
      env rejects a step) maps as if the first attempt never happened;
    * for raw actions that carry masks (Discrete, MultiDiscrete, Tuple of them): a
      translated mask has the layout of the model action space, int8 0/1 entries (*mask
      of wrong length*), keeps a legal action when the raw mask has one, and every model
      action it allows maps to a raw action the raw mask allows. An interface that raises
      :class:`~arena.errors.MaskTranslationError` for every mask (it transforms actions but
      ignores masks) is reported, unless it declares ``translates_masks = False`` or the
      check is run with ``require_masks=False``; with ``partial_mask_translation = True`` it
      may raise it for the masks it documents it cannot express (even all of a space's masks).

    Spaces an interface cannot handle must be rejected at ``setup`` with
    :class:`~arena.errors.SpaceMismatchError`; that error propagates from here.

    Args:
        interface: the interface to check; it is set up on the given spaces.
        observation_space: the raw observation space.
        action_space: the raw action space.
        examples: generated examples per rule.
        seed: seed of the fallback sampler.
        require_masks: report an interface that cannot translate any mask of a maskable raw
            action space (default True).

    Raises:
        ContractViolation: naming the interface, the spaces and the broken rule.

    Example:
        >>> from gymnasium import spaces
        >>> from arena import Interface
        >>> check_interface(Interface(), spaces.Discrete(3), spaces.Discrete(2))
    """
    checker = _InterfaceChecker(interface, observation_space, action_space)
    checker.setup()
    act_space = checker.act_space
    if act_space is None:  # setup() refuses an interface without spaces; this narrows the type
        checker.fail("has no action space after setup()")
    maskable = _maskable(action_space)

    def sample_steps(rng: random.Random) -> list[tuple[Any, Any]]:
        return [
            (
                _sample(observation_space, rng),
                _random_mask(action_space, rng) if maskable and rng.random() < 0.5 else None,
            )
            for _ in range(rng.randint(1, 4))
        ]

    steps, actions, masks = _strategies(observation_space, action_space, act_space, maskable)
    _run(examples, seed, steps, sample_steps, checker.check_observations)
    _run(
        examples,
        seed + 1,
        actions,
        lambda rng: (
            _sample(observation_space, rng),
            [
                (_sample(act_space, rng), _sample(act_space, rng), _sample(observation_space, rng))
                for _ in range(rng.randint(1, 4))
            ],
        ),
        lambda pair: checker.check_actions(*pair),
    )
    if maskable:
        supported: list[bool] = []
        mask_rng = random.Random(seed + 3)
        _run(
            examples,
            seed + 2,
            masks,
            lambda rng: (_sample(observation_space, rng), _random_mask(action_space, rng)),
            lambda pair: supported.append(checker.check_mask(pair[0], pair[1], mask_rng)),
        )
        partial = interface.partial_mask_translation
        if supported and not any(supported) and require_masks and not partial and interface.translates_masks:
            checker.fail(
                "raises MaskTranslationError for every action mask of a maskable raw action space, so "
                "masked envs cannot use it; override action_mask() to translate masks (or declare "
                "translates_masks = False on the class, or check with require_masks=False, if it is "
                "meant only for envs without masks)"
            )
        if any(supported) and not all(supported) and not partial:
            checker.fail(
                "action_mask() translated some masks and raised MaskTranslationError for others; "
                "set partial_mask_translation = True if that is documented behaviour"
            )
    checker.check_spaces_stable("after transforming actions and masks")
