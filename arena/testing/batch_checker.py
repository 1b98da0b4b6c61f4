"""``check_batch``: a batch keeps :class:`arena.batch.GameBatch`'s contract and plays its single env's games."""

from __future__ import annotations

import copy
import random
from collections.abc import Callable, Mapping
from typing import Any

import numpy as np
from gymnasium import spaces

from arena.batch import TURN_MODELS, GameBatch
from arena.batched_stack import take_rows
from arena.env import MultiAgentEnv
from arena.errors import InvalidValueError, ResetNeeded
from arena.seeding import derive_seed
from arena.testing.env_checker import _Checker

__all__ = ["check_batch"]

#: Maps one agent's observation from the single env to the batch's form of it.
Observe = Callable[[str, Any], Any]


def _leaves(value: Any) -> list[Any]:
    if isinstance(value, dict):
        return [leaf for sub in value.values() for leaf in _leaves(sub)]
    if isinstance(value, tuple):
        return [leaf for sub in value for leaf in _leaves(sub)]
    return [value]


def _same(view: Any, expected: Any) -> bool:
    if isinstance(view, dict):
        return (
            isinstance(expected, dict)
            and view.keys() == expected.keys()
            and all(_same(view[key], expected[key]) for key in view)
        )
    if isinstance(view, tuple):
        return isinstance(expected, tuple) and len(view) == len(expected) and all(map(_same, view, expected))
    return bool(np.array_equal(view, np.asarray(expected)))


def _shape_problem(observations: Any, space: Any, lead: tuple[int, ...]) -> str | None:
    """What ``observations`` should have been for ``space`` with leading axes ``lead``, or ``None``."""
    if isinstance(space, spaces.Dict):
        if not isinstance(observations, dict) or set(observations) != set(space.spaces):
            return f"a dict with the keys {sorted(space.spaces)}"
        for key, sub in space.spaces.items():
            problem = _shape_problem(observations[key], sub, lead)
            if problem:
                return f"a dict whose {key!r} is {problem}"
        return None
    if isinstance(space, spaces.Tuple):
        if not isinstance(observations, tuple) or len(observations) != len(space.spaces):
            return f"a tuple of {len(space.spaces)}"
        problems = [_shape_problem(part, sub, lead) for part, sub in zip(observations, space.spaces)]
        return next((f"a tuple whose part {i} is {p}" for i, p in enumerate(problems) if p), None)
    shape = lead + tuple(space.shape or ())
    if not isinstance(observations, np.ndarray) or observations.shape != shape:
        return f"an array of shape {lead} + {space.shape}"
    return None


class _BatchChecker(_Checker):
    def __init__(self, env: MultiAgentEnv, batch: Any, seed: int, observe: Observe | None) -> None:
        super().__init__(env, seed)
        self.name = f"check_batch({env}, {batch})"
        self.batch = batch
        self.observe: Observe = observe or (lambda agent, observation: observation)
        self.agents = tuple(env.possible_agents)

    def check_declarations(self, num_games: int) -> None:
        batch = self.batch
        if not isinstance(batch, GameBatch):
            self.fail("make_batch must return an arena.batch.GameBatch (turns, num_games, possible_agents, spaces)")
        turns = getattr(type(batch), "turns", None)
        if turns not in TURN_MODELS:
            self.fail(f"the batch's class must declare turns, one of {TURN_MODELS}; got {turns!r}")
        if turns == "sides":
            raise NotImplementedError(f"{self.name}: check_batch does not check 'sides' batches yet")
        if batch.num_games != num_games:
            self.fail(f"num_games is {batch.num_games}, but make_batch was asked for {num_games}")
        if tuple(batch.possible_agents) != self.agents:
            self.fail(f"possible_agents {tuple(batch.possible_agents)} differ from the env's {self.agents}")

    def check_arrays(self, observations: Any, infos: Any, where: str) -> None:
        batch, games = self.batch, self.batch.num_games
        lead = (games,) if batch.turns == "alternating" else (games, len(self.agents))
        problem = _shape_problem(observations, batch.single_observation_space, lead)
        if problem:
            self.fail(f"{where}: observations must be {problem}, got {observations!r}")
        if not isinstance(infos, dict):
            self.fail(f"{where}: infos must be a dict of arrays, got {type(infos).__name__}")
        keys = ("to_play", "action_mask") if batch.turns == "alternating" else ("live",)
        for key in keys:
            if not isinstance(infos.get(key), np.ndarray) or infos[key].shape[: len(lead)] != lead:
                self.fail(f"{where}: infos[{key!r}] must be an array with leading shape {lead}, got {infos.get(key)!r}")

    def check_outcome(self, rewards: Any, terminations: Any, truncations: Any, infos: dict, where: str) -> None:
        shape = (self.batch.num_games, len(self.agents))
        for name, array, dtype in (("rewards", rewards, np.float32), ("terminations", terminations, np.bool_)):
            if not isinstance(array, np.ndarray) or array.shape != shape or array.dtype != dtype:
                self.fail(f"{where}: {name} must be a {np.dtype(dtype)} array of shape {shape}, got {array!r}")
        if not isinstance(truncations, np.ndarray) or truncations.shape != shape or truncations.dtype != np.bool_:
            self.fail(f"{where}: truncations must be a bool array of shape {shape}, got {truncations!r}")
        over = infos.get("episode_over")
        if not isinstance(over, np.ndarray) or over.shape != shape[:1] or over.dtype != np.bool_:
            self.fail(f"{where}: infos['episode_over'] must be a bool array of shape {shape[:1]}, got {over!r}")
            return
        final = infos.get("final_observation", np.zeros((0,)))
        count = len(_leaves(final)[0])
        if over.any() and count != int(over.sum()):
            self.fail(f"{where}: {int(over.sum())} games ended but final_observation has {count} rows")
        space = self.batch.single_observation_space
        rows = [take_rows(final, k) for k in range(count)]
        if self.batch.turns != "alternating":
            agents = range(len(self.agents))
            rows = [
                take_rows(row, i)
                for row in rows
                for i in agents
                if any(leaf.any() for leaf in _leaves(take_rows(row, i)))
            ]
        if any(not space.contains(row) for row in rows):
            self.fail(f"{where}: a final observation is not in {space}")

    def compare_game(self, g: int, observations: Any, infos: dict, single_obs: dict, single_infos: dict, where: str):
        """Game ``g`` of the batch shows what the single env shows: who acts, their observations and masks."""
        at = f"{where}, game {g}"
        if self.batch.turns == "alternating":
            if len(single_obs) != 1:
                self.fail(f"{at}: the single env has {sorted(single_obs)} acting; turns cannot alternate")
            (agent,) = single_obs
            if self.agents[int(infos["to_play"][g])] != agent:
                self.fail(f"{at}: to_play says {self.agents[int(infos['to_play'][g])]}, the single env {agent}")
            self.expect_view(take_rows(observations, g), single_obs[agent], agent, at)
            mask = single_infos.get(agent, {}).get("action_mask")
            if mask is not None and not np.array_equal(infos["action_mask"][g], np.asarray(mask).astype(bool)):
                self.fail(f"{at}: action_mask {infos['action_mask'][g]} differs from the single env's {mask}")
            return
        live = [agent in single_obs for agent in self.agents]
        if infos["live"][g].tolist() != live:
            self.fail(
                f"{at}: live {infos['live'][g].tolist()} differs from who acts in the single env {sorted(single_obs)}"
            )
        for i, agent in enumerate(self.agents):
            if agent in single_obs:
                self.expect_view(take_rows(observations, (g, i)), single_obs[agent], agent, at)
            elif any(leaf.any() for leaf in _leaves(take_rows(observations, (g, i)))):
                self.fail(f"{at}: {agent} is not in play but its observation is not zero")
        if "action_mask" in infos:
            for i, agent in enumerate(self.agents):
                mask = single_infos.get(agent, {}).get("action_mask")
                if mask is not None and not np.array_equal(infos["action_mask"][g, i], np.asarray(mask).astype(bool)):
                    self.fail(f"{at}: action_mask of {agent} differs from the single env's {mask}")

    def expect_view(self, view: Any, observation: Any, agent: str, at: str) -> None:
        if not self.batch.single_observation_space.contains(view):
            self.fail(f"{at}: the observation of {agent} is not in {self.batch.single_observation_space}")
        if not _same(view, self.observe(agent, observation)):
            self.fail(f"{at}: the observation of {agent} differs from the single env's")

    def batch_actions(self, chosen: list[dict], rng: random.Random) -> np.ndarray:
        """One array of the batch's actions from each game's chosen actions (a fixed legal filler elsewhere)."""
        space = copy.deepcopy(self.batch.single_action_space)
        space.seed(rng.randrange(2**31))
        filler = np.asarray(space.sample())
        if self.batch.turns == "alternating":
            return np.stack([np.asarray(next(iter(c.values()))) for c in chosen])
        actions = np.broadcast_to(filler, (len(chosen), len(self.agents), *filler.shape)).copy()
        for g, c in enumerate(chosen):
            for agent, action in c.items():
                actions[g, self.agents.index(agent)] = action
        return actions


def check_batch(
    env: MultiAgentEnv,
    *,
    num_games: int = 3,
    seed: int = 0,
    steps: int = 30,
    observe: Observe | None = None,
    batch_options: Mapping[str, Any] | None = None,
    make_batch: Callable[..., Any] | None = None,
) -> None:
    """Check that ``env.make_batch(num_games)`` (or ``make_batch(num_games)``) keeps :class:`arena.batch.GameBatch`'s contract.

    Checks the declarations (``turns``, ``num_games``, ``possible_agents``), the shapes and
    dtypes of what ``reset`` and ``step`` return, observations in ``single_observation_space``,
    and that the batched form equals the per-game form: game ``g`` reset with ``seed`` and
    stepped ``steps`` times with random legal actions shows the same acting agents,
    observations, masks, rewards, terminations, truncations and episode ends as a copy of
    ``env`` reset with ``derive_seed(seed, g)`` (and plain ``reset()`` after each end)
    and given the same actions. Final observations are checked for their count and space
    only: the single env shows no observation at the end of an episode.

    Args:
        env: the env whose batch is checked (copied per game, not stepped itself).
        num_games: the number of games in the batch.
        seed: the batch's reset seed.
        steps: the number of batch steps.
        observe: maps ``(agent, single env observation)`` to the batch's form of it, for a
            batch whose observations are another encoding of the env's (default: the same).
        batch_options: keyword options for ``make_batch``.
        make_batch: builds the batch checked, as ``make_batch(num_games, **batch_options)``
            (default: ``env.make_batch``), e.g. :func:`arena.worker_batch.batch_of` for ``env``'s
            name. A batch with a ``close`` method is closed at the end.

    Raises:
        ContractViolation: naming the first difference, the step and the game.
        ValueError: ``num_games`` or ``steps`` is not a positive integer.

    Example:
        >>> import envs
        >>> check_batch(envs.make("tic_tac_toe"), num_games=2, steps=5)
    """
    for name, value in (("num_games", num_games), ("steps", steps)):
        if isinstance(value, bool) or not isinstance(value, int) or value < 1:
            raise InvalidValueError(f"check_batch: {name} must be a positive integer, got {value!r}")
    make = make_batch or env.make_batch
    batch = make(num_games, **dict(batch_options or {}))
    try:
        unstarted = make(num_games, **dict(batch_options or {}))
        try:
            _check(env, batch, unstarted, num_games, seed, steps, observe)
        finally:
            getattr(unstarted, "close", lambda: None)()
    finally:
        getattr(batch, "close", lambda: None)()


def _check(
    env: MultiAgentEnv, batch: Any, unstarted: Any, num_games: int, seed: int, steps: int, observe: Observe | None
) -> None:
    checker = _BatchChecker(env, batch, seed, observe)
    checker.check_declarations(num_games)
    checker.expect_raise(ResetNeeded, lambda: unstarted.step(None), "step before reset")
    singles = [copy.deepcopy(env) for _ in range(num_games)]
    observations, infos = batch.reset(seed=seed)
    checker.check_arrays(observations, infos, "reset")
    starts = [single.reset(seed=derive_seed(seed, g)) for g, single in enumerate(singles)]
    single_obs, single_infos = [s[0] for s in starts], [s[1] for s in starts]
    for g in range(num_games):
        checker.compare_game(g, observations, infos, single_obs[g], single_infos[g], "reset")
    rng = random.Random(seed)
    for step in range(steps):
        where = f"step {step}"
        chosen = [checker.sample_actions(single_obs[g], single_infos[g], rng) for g in range(num_games)]
        observations, rewards, terminations, truncations, infos = batch.step(checker.batch_actions(chosen, rng))
        checker.check_arrays(observations, infos, where)
        checker.check_outcome(rewards, terminations, truncations, infos, where)
        for g, single in enumerate(singles):
            obs, r, te, tr, inf = single.step(chosen[g])
            for i, agent in enumerate(checker.agents):
                got = (float(rewards[g, i]), bool(terminations[g, i]), bool(truncations[g, i]))
                if got != (float(r.get(agent, 0.0)), bool(te.get(agent, False)), bool(tr.get(agent, False))):
                    checker.fail(
                        f"{where}, game {g}: {agent} got (reward, terminated, truncated) {got}, "
                        f"the single env {(r.get(agent, 0.0), te.get(agent, False), tr.get(agent, False))}"
                    )
            if bool(infos["episode_over"][g]) != (not single.agents):
                checker.fail(
                    f"{where}, game {g}: episode_over is {bool(infos['episode_over'][g])}, "
                    f"but the single env's agents are {single.agents}"
                )
            if not single.agents:
                obs, inf = single.reset()
            single_obs[g], single_infos[g] = obs, inf
            checker.compare_game(g, observations, infos, obs, inf, where)
