"""``check_env``: does a multi-agent env keep arena's contract?"""

from __future__ import annotations

import copy
import numbers
import random
from collections.abc import Callable, Mapping
from typing import Any

import numpy as np
from gymnasium import spaces

from arena.env import MultiAgentEnv
from arena.errors import (
    ArenaError,
    ContractViolation,
    IllegalActionError,
    InvalidActionError,
    ResetNeeded,
    UnknownAgentError,
    WrongAgentsError,
)
from arena.evaluation.results import RESULT_KINDS

__all__ = ["check_env", "values_equal"]


def values_equal(a: Any, b: Any) -> bool:
    """Deep equality over dicts, sequences, numpy arrays and scalars (NaN equals NaN)."""
    if isinstance(a, Mapping) and isinstance(b, Mapping):
        return a.keys() == b.keys() and all(values_equal(a[k], b[k]) for k in a)
    if isinstance(a, (tuple, list)) and isinstance(b, (tuple, list)):
        return len(a) == len(b) and all(values_equal(x, y) for x, y in zip(a, b))
    if isinstance(a, np.ndarray) or isinstance(b, np.ndarray):
        a, b = np.asarray(a), np.asarray(b)
        return a.shape == b.shape and bool(np.array_equal(a, b, equal_nan=a.dtype.kind == "f"))
    if isinstance(a, float) and isinstance(b, float) and a != a and b != b:
        return True
    return bool(a == b)


class _Checker:
    def __init__(self, env: MultiAgentEnv, seed: int) -> None:
        self.env = env
        self.seed = seed
        self.name = f"check_env({env})"

    def fail(self, message: str) -> None:
        raise ContractViolation(f"{self.name}: {message}")

    def expect_raise(self, error: type[Exception], call: Callable[[], Any], what: str) -> None:
        try:
            call()
        except error as err:
            if not str(err):
                self.fail(f"{what} raised {type(err).__name__} with an empty message")
            return
        except Exception as err:  # noqa: BLE001 - reported, not swallowed
            self.fail(f"{what} should raise {error.__name__}, raised {type(err).__name__}: {err}")
        self.fail(f"{what} should raise {error.__name__}, but did not")

    # ------------------------------------------------------------- static
    def check_agents_and_spaces(self) -> None:
        env = self.env
        possible = env.possible_agents
        if not isinstance(possible, list) or not possible or not all(isinstance(a, str) for a in possible):
            self.fail(f"possible_agents must be a non-empty list of str, got {possible!r}")
        if len(set(possible)) != len(possible):
            self.fail(f"possible_agents has duplicates: {possible}")
        for agent in possible:
            for kind in ("observation_space", "action_space"):
                first, second = getattr(env, kind)(agent), getattr(env, kind)(agent)
                if not isinstance(first, spaces.Space):
                    self.fail(f"{kind}({agent!r}) must be a gymnasium Space, got {type(first).__name__}")
                if first is not second:
                    self.fail(f"{kind}({agent!r}) must return the same object on every call")
        self.expect_raise(
            UnknownAgentError,
            lambda: env.observation_space("__no_such_agent__"),
            "observation_space() of an unknown agent",
        )
        self.expect_raise(
            UnknownAgentError, lambda: env.action_space("__no_such_agent__"), "action_space() of an unknown agent"
        )

    def check_teams(self) -> None:
        teams, possible = self.env.teams, self.env.possible_agents
        if teams is None:
            return
        if not isinstance(teams, Mapping) or not teams:
            self.fail(f"teams must be None or a non-empty dict team name -> tuple of agent ids, got {teams!r}")
        if self.env.team_outcome not in ("shared", "individual"):
            self.fail(f"team_outcome must be 'shared' or 'individual', got {self.env.team_outcome!r}")
        placed: dict[str, str] = {}
        for team, members in teams.items():
            if not isinstance(team, str):
                self.fail(f"team names must be str, got {team!r}")
            if not isinstance(members, tuple) or not members:
                self.fail(f"team {team!r} must be a non-empty tuple of agent ids, got {members!r}")
            for agent in members:
                if agent not in possible:
                    self.fail(f"team {team!r} names {agent!r}, which is not in possible_agents {possible}")
                if agent in placed:
                    self.fail(f"agent {agent!r} is in two teams: {placed[agent]!r} and {team!r}")
                placed[agent] = team
        missing = [agent for agent in possible if agent not in placed]
        if missing:
            self.fail(f"agents {missing} are in no team; every agent must be in exactly one team of {list(teams)}")

    def check_result_kind(self) -> None:
        """The env declares what a game's result is for ranking (one of ``RESULT_KINDS``)."""
        kind = self.env.result_kind
        if not isinstance(kind, str) or kind not in RESULT_KINDS:
            self.fail(
                f"result_kind must be one of {', '.join(map(repr, RESULT_KINDS))} (what a game's result is "
                f"for ranking: win/draw/loss, finishing ranks, or the return's amount), got {kind!r}"
            )

    def check_result_scores(self, seed: int) -> None:
        """A ``"return"`` env is rated by its returns, so no team scores may rank its sides otherwise."""
        if self.env.result_kind == "return" and self.env.teams and self.env.team_scores() is not None:
            self.fail(
                f"episode with seed {seed}: result_kind is 'return' (players compare by their returns), but "
                "team_scores() ranks the sides by other scores; declare result_kind 'outcome' or 'ranks'"
            )

    def check_team_outcome(self, returns: dict[str, float], seed: int) -> None:
        """Teammates win or lose together: with ``team_outcome == "shared"`` their returns are equal."""
        teams = self.env.teams
        if not teams or self.env.team_outcome != "shared":
            return
        for team, members in teams.items():
            values = {agent: returns[agent] for agent in members}
            if len(set(values.values())) > 1:
                self.fail(
                    f"episode with seed {seed}: the members of team {team!r} ended with different returns "
                    f"{values}; with team_outcome 'shared' teammates win or lose together (set "
                    "team_outcome = 'individual' if members earn their own rewards)"
                )

    # ------------------------------------------------------------ dynamic
    def check_observations(self, observations: Any, infos: Any, where: str) -> None:
        env = self.env
        if not isinstance(observations, dict) or not isinstance(infos, dict):
            self.fail(
                f"{where} must return dicts of observations and infos, got "
                f"{type(observations).__name__} and {type(infos).__name__}"
            )
        for agent, observation in observations.items():
            if agent not in env.agents:
                self.fail(f"{where}: observation for {agent!r}, which is not in agents {env.agents}")
            space = env.observation_space(agent)
            if not space.contains(observation):
                self.fail(f"{where}: observation for {agent!r} is not in {space}: {observation!r}")
            info = infos.get(agent)
            if not isinstance(info, dict):
                self.fail(f"{where}: infos must hold a dict for acting agent {agent!r}, got {info!r}")
            if "action_mask" in info:
                self.check_mask(agent, info["action_mask"], where)

    def check_mask(self, agent: str, mask: Any, where: str) -> None:
        space = self.env.action_space(agent)
        if not isinstance(space, spaces.Discrete):
            return
        if not isinstance(mask, np.ndarray) or mask.dtype != np.int8 or mask.shape != (space.n,):
            got = f"{type(mask).__name__} {getattr(mask, 'dtype', '')} {getattr(mask, 'shape', '')}"
            self.fail(f"{where}: action_mask of {agent!r} must be an int8 array of shape ({space.n},), got {got}")
        if not mask.any():
            self.fail(f"{where}: action_mask of {agent!r} allows no action")
        if not np.isin(mask, (0, 1)).all():
            self.fail(f"{where}: action_mask of {agent!r} must hold only 0 and 1, got {mask}")

    def check_simultaneous(self, observations: dict, sat_out: set[str], where: str) -> None:
        """In a ``simultaneous`` env an agent that sat out a step (in ``agents``, no observation: out of
        play, say a dead teammate waiting for its side's outcome) never acts again in the episode."""
        if not self.env.simultaneous:
            return
        back = sorted(sat_out & set(observations))
        if back:
            self.fail(
                f"{where}: simultaneous is True (every agent in play acts at every step), but agents {back} "
                "act again after a step without an observation, as in turns"
            )
        sat_out |= set(self.env.agents) - set(observations)

    def sample_actions(self, observations: dict, infos: dict, rng: random.Random) -> dict:
        actions = {}
        for agent in observations:
            space = self.env.action_space(agent)
            mask = infos.get(agent, {}).get("action_mask")
            if isinstance(space, spaces.Discrete) and mask is not None:
                legal = np.flatnonzero(mask)
                actions[agent] = int(space.start) + int(legal[rng.randrange(len(legal))])
            else:
                sampler = copy.deepcopy(space)
                sampler.seed(rng.randrange(2**31))
                actions[agent] = sampler.sample()
        return actions

    def check_bad_actions(self, observations: dict, infos: dict, rng: random.Random) -> None:
        env = self.env
        good = self.sample_actions(observations, infos, rng)
        self.expect_raise(WrongAgentsError, lambda: env.step({}), "step({}) while agents must act")
        self.expect_raise(
            WrongAgentsError,
            lambda: env.step({**good, "__no_such_agent__": 0}),
            "step() with an action for an unknown agent",
        )
        agent = next(iter(observations))
        space = env.action_space(agent)
        self.expect_raise(
            InvalidActionError,
            lambda: env.step({**good, agent: "not-an-action"}),
            f"step() with a non-action for {agent!r}",
        )
        if isinstance(space, spaces.Discrete):
            outside = int(space.start) + int(space.n)
            self.expect_raise(
                InvalidActionError,
                lambda: env.step({**good, agent: outside}),
                f"step() with action {outside} outside {space} for {agent!r}",
            )
            mask = infos.get(agent, {}).get("action_mask")
            if mask is not None and not mask.all() and env.illegal_action == "raise":
                illegal = int(space.start) + int(np.flatnonzero(mask == 0)[0])
                self.expect_raise(
                    IllegalActionError,
                    lambda: env.step({**good, agent: illegal}),
                    f"step() with masked action {illegal} for {agent!r}",
                )

    def rollout(self, seed: int, probe_errors: bool, max_steps: int) -> list[Any]:
        env, rng, probe_rng = self.env, random.Random(seed), random.Random(~seed)
        trace: list[Any] = []
        observations, infos = env.reset(seed=seed)
        self.check_observations(observations, infos, f"reset(seed={seed})")
        sat_out: set[str] = set()
        self.check_simultaneous(observations, sat_out, f"reset(seed={seed})")
        trace.append(observations)
        alive = set(env.agents)
        returns, cut = dict.fromkeys(env.possible_agents, 0.0), False
        if not observations and alive:
            self.fail(f"reset(seed={seed}) returned no observations while agents {env.agents} are live")
        steps = 0
        while observations:
            if probe_errors and steps < 2:
                self.check_bad_actions(observations, infos, probe_rng)
            actions = self.sample_actions(observations, infos, rng)
            result = env.step(actions)
            if not isinstance(result, tuple) or len(result) != 5:
                self.fail("step() must return (observations, rewards, terminations, truncations, infos)")
            observations, rewards, terminations, truncations, infos = result
            where = f"step {steps} (seed {seed})"
            for label, table in (("rewards", rewards), ("terminations", terminations), ("truncations", truncations)):
                if not isinstance(table, dict):
                    self.fail(f"{where}: {label} must be a dict, got {type(table).__name__}")
                for agent, value in table.items():
                    if agent not in env.possible_agents:
                        self.fail(f"{where}: {label} name unknown agent {agent!r}")
                    if label == "rewards" and (not isinstance(value, numbers.Real) or isinstance(value, bool)):
                        self.fail(f"{where}: reward for {agent!r} must be a real number, got {value!r}")
                    if label == "rewards" and value != 0 and agent not in alive:
                        self.fail(f"{where}: reward {value} for {agent!r}, which already left the episode")
                    if label != "rewards" and not isinstance(value, (bool, np.bool_)):
                        self.fail(f"{where}: {label}[{agent!r}] must be a bool, got {value!r}")
            for agent, value in rewards.items():
                returns[agent] += value
            cut = cut or any(truncations.values())
            leaving = {a for a in alive if terminations.get(a) or truncations.get(a)}
            if leaving & set(env.agents):
                self.fail(f"{where}: agents {sorted(leaving & set(env.agents))} terminated but are still in agents")
            alive = set(env.agents)
            self.check_observations(observations, infos, where)
            self.check_simultaneous(observations, sat_out, where)
            if not observations and alive:
                self.fail(f"{where}: no observations while agents {sorted(alive)} are still in the episode")
            trace.append((observations, rewards, terminations, truncations))
            steps += 1
            if steps > max_steps:
                self.fail(f"episode did not end within {max_steps} steps")
        self.expect_raise(ResetNeeded, lambda: env.step({}), "step() after the episode ended")
        if not cut:  # a cut episode has no outcome to judge
            self.check_team_outcome(returns, seed)
            self.check_result_scores(seed)
        return trace


def check_env(env: MultiAgentEnv, *, seed: int = 0, episodes: int = 3, max_steps: int = 100_000) -> None:
    """Check that ``env`` keeps the arena env contract; raise on the first broken rule.

    Checks: agent ids and spaces (the same objects on every call, unknown agents
    rejected); ``step`` before ``reset`` and after the end raise
    :class:`~arena.errors.ResetNeeded`; observations name only live agents and lie in
    their spaces; in an env that declares ``simultaneous``, an agent that sits out a step
    never acts again in the episode (no turns); masks are int8 with one entry per action and at least one legal;
    wrong agent sets, out-of-space and masked actions are rejected with a message and
    leave the env usable; rewards and flags are well typed and name known agents;
    terminated agents leave ``agents``; seeded random play is deterministic (unless the
    env declares ``metadata["reproducible"] = False``); text
    rendering returns a string; an env with ``teams`` puts every agent in exactly one
    team, and teammates' returns are equal when ``team_outcome`` is ``"shared"``; ``result_kind`` is one
    of ``RESULT_KINDS`` (and a ``"return"`` env gives no team scores). An env that documents a penalty for illegal moves
    (``env.illegal_action == "penalty"``) is not asked to reject masked actions.

    Args:
        env: the env to check (it is reset, played, and closed twice at the end).
        seed: the base seed of the random rollouts.
        episodes: how many seeded episodes to play.
        max_steps: the longest episode considered a bug-free one.

    Raises:
        ContractViolation: naming the env and the broken rule.

    Example:
        >>> import envs
        >>> check_env(envs.make("tic_tac_toe"))
    """
    if not isinstance(env, MultiAgentEnv):
        raise ContractViolation(f"check_env: expected an arena.MultiAgentEnv, got {type(env).__name__}")
    checker = _Checker(env, seed)
    checker.check_agents_and_spaces()
    checker.check_teams()
    checker.check_result_kind()
    if not env.agents:
        checker.expect_raise(ResetNeeded, lambda: env.step({}), "step() before the first reset()")
    # An env whose episodes depend on more than its seed (networked game engines) declares
    # ``metadata["reproducible"] = False`` (adapters pass metadata on); its episodes are
    # checked, but not replayed for comparison.
    reproducible = env.metadata.get("reproducible", True) is not False
    for episode in range(episodes):
        first = checker.rollout(seed + episode, probe_errors=episode == 0, max_steps=max_steps)
        if not reproducible:
            continue
        again = checker.rollout(seed + episode, probe_errors=False, max_steps=max_steps)
        if not values_equal(first, again):
            checker.fail(f"two episodes with seed {seed + episode} and the same actions differ")
    if env.render_mode == "ansi":
        text = env.render()
        if not isinstance(text, str):
            checker.fail(f"render() in 'ansi' mode must return a str, got {type(text).__name__}")
    try:
        env.close()
        env.close()
    except ArenaError as err:
        checker.fail(f"close() must be safe to call twice: {err}")
