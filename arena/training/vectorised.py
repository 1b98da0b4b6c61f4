"""Which vectorised env a training run steps: a game's numpy batch, the env's own, or one SingleAgentEnv per game.

:func:`choose_path` derives it from what the run trains (``"env"`` where the recipe names the
env's own vectorised env, ``"side"`` for one policy in every seat of its side, ``"batched"`` where the
batch can serve the run, ``"single"`` otherwise); :func:`batch_vec_env` builds the batched trainer env for a game,
turn-based (:class:`~arena.training.batched.BatchVecEnv`) or simultaneous
(:class:`~arena.training.batched_simultaneous.SimultaneousBatchVecEnv`); :func:`own_vec_env`
builds the one a recipe names (``TrainingRecipe.vec_env``, entry-point group ``arena.vec_envs``).

This module imports Stable-Baselines3 when it is imported (the ``train`` extra).
"""

from __future__ import annotations

from collections.abc import Callable, Mapping
from importlib import metadata
from typing import Any

from stable_baselines3.common.vec_env import VecEnv

from arena.batch import turn_model
from arena.env import MultiAgentEnv
from arena.errors import InvalidValueError, PluginError, UnknownNameError
from arena.interface import Interface
from arena.registry import make_env, reading_data, resolve
from arena.training.batch_slots import plays_in_batches
from arena.training.batched import BatchVecEnv, make_batch
from arena.training.batched_simultaneous import SimultaneousBatchVecEnv
from arena.training.side_vec_env import side_path_reasons

__all__ = ["VEC_ENV_GROUP", "batch_vec_env", "choose_path", "own_vec_env"]

#: The entry-point group where an env declares its own vectorised trainer env (``TrainingRecipe.vec_env``).
VEC_ENV_GROUP = "arena.vec_envs"


def batch_vec_env(
    env: MultiAgentEnv | str | Callable[..., MultiAgentEnv],
    num_envs: int,
    *args: Any,
    env_kwargs: Mapping[str, Any] | None = None,
    **kwargs: Any,
) -> BatchVecEnv:
    """The batched trainer env for ``env``: :class:`BatchVecEnv` for turn-based batches
    (board games), :class:`SimultaneousBatchVecEnv` for batches where all move at once (snake),
    and for an env without a compiled batch given ``num_workers`` (a worker batch, soccer).

    Arguments as :class:`BatchVecEnv` takes them.

    Example:
        >>> venv = batch_vec_env("tic_tac_toe", 2, "random")
        >>> type(venv).__name__, venv.num_envs
        ('BatchVecEnv', 2)
    """
    probe = make_env(env, **dict(env_kwargs or {}))
    if not probe.batchable and kwargs.get("num_workers") is not None:
        # a worker batch (arena.worker_batch) of the single env: simultaneous, from the name and options
        return SimultaneousBatchVecEnv(env, num_envs, *args, env_kwargs=env_kwargs, **kwargs)
    batch = make_batch(probe, 1)
    if turn_model(batch) == "alternating":
        return BatchVecEnv(probe, num_envs, *args, **kwargs)
    return SimultaneousBatchVecEnv(probe, num_envs, *args, **kwargs)


def choose_path(
    env: Any,
    algo: str,
    opponent: Any,
    interface: Any,
    *,
    control: str = "seat",
    teammate: str | None = None,
    vec_env: str | None = None,
) -> str:
    """How a run steps its games, derived from what it trains: ``"env"``, ``"side"``, ``"batched"``
    or ``"single"``.

    * ``"env"``: the recipe names the env's own vectorised env (``vec_env``) and the learner plays as
      that trainer's does (no ``teammate``, no ``control="team"``);
    * ``"batched"`` with ``control="shared"``: one policy in every seat of its side on a batch where
      every seat moves at once (:class:`SimultaneousBatchVecEnv` with ``team=True``), when the
      conditions of the batched path below hold;
    * ``"side"``: ``control="shared"`` otherwise, one policy in every seat of its side
      (:class:`~arena.training.side_vec_env.SideVecEnv`);
    * ``"batched"``: the env has a batch, the algorithm takes action masks (``maskable-ppo``), every
      opponent acts in batches (:func:`~arena.training.batch_slots.plays_in_batches`) and the learner
      plays one seat with no teammate; any interface stack trains there (per-game levels keep their
      per-episode state per game slot);
    * ``"single"``: anything else (one :class:`~arena.training.single_agent.SingleAgentEnv` per game).

    ``opponent`` is one agent or a list of them.

    Raises:
        ValueError: ``control="shared"`` where the side cannot be trained so, saying why.

    Example:
        >>> import envs
        >>> from arena import RandomAgent
        >>> choose_path(envs.make("connect_four"), "maskable-ppo", RandomAgent(), None)
        'batched'
        >>> choose_path(envs.make("kuhn_poker"), "maskable-ppo", RandomAgent(), None)
        'single'
    """
    opponents = list(opponent) if isinstance(opponent, (list, tuple)) else [opponent]
    if vec_env is not None and teammate is None and control != "team":
        return "env"
    reasons = []
    if not env.batchable:
        reasons.append(f"{env} has no batch (make_batch)")
    if algo != "maskable-ppo":
        reasons.append(f"--algo {algo} trains without action masks, which the batch enforces")
    for agent in opponents:
        if not plays_in_batches(agent):
            reasons.append(f"the opponent {agent} cannot act for many games at once")
    if control == "shared":
        # one policy in every seat of its side: on the batch where every seat moves at once
        # (SimultaneousBatchVecEnv(team=True)), else a side's members as sub-envs
        if not reasons and turn_model(make_batch(env, 1)) == "simultaneous":
            return "batched"
        side_reasons = side_path_reasons(env, opponents, interface)
        if side_reasons:
            raise InvalidValueError(f"--control shared cannot train this run: {'; '.join(side_reasons)}")
        return "side"
    if teammate is not None or control == "team":
        reasons.append("the learner plays beside a teammate or for a whole side")
    return "single" if reasons else "batched"


def own_vec_env(
    name: str,
    env: str,
    num_games: int,
    opponents: Any,
    *,
    interface: Interface | None,
    env_options: Mapping[str, Any],
    from_data: str | None = None,
) -> VecEnv:
    """The env's own vectorised trainer env that a recipe names (``TrainingRecipe.vec_env``).

    ``name`` is looked up in the entry-point group :data:`VEC_ENV_GROUP` (or is a
    ``"module:callable"``) and called as
    ``factory(env, num_games, opponents, interface=interface, env_options=env_options)``:

    * ``env``: the env's registered name; ``env_options``: its options;
    * ``num_games``: games stepped together (the VecEnv may have several learner slots a game);
    * ``opponents``: an :class:`~arena.training.OpponentPool` (self-play: snapshots join it and
      reach the VecEnv through ``env_method("set_opponents", pool)``) or one agent;
    * ``interface``: the learner's stack (not set up); the VecEnv keeps it as its ``interface``
      attribute (what :class:`~arena.training.evaluation_games.EvaluationGames` evaluates behind and the trained
      folder records), and its observations are that stack's observations.

    It returns an SB3 ``VecEnv``; for MaskablePPO its ``env_method("action_masks")`` gives one mask a slot.

    Args:
        from_data: where ``name`` was read from when it came from data (a loaded run's
            ``recipe.json``): then only registered names resolve (:func:`arena.registry.reading_data`).

    Raises:
        UnknownNameError: ``name`` is not registered (the message lists the names that are).
        PluginError: the factory fails to load, or returns something other than a VecEnv with an
            ``interface`` attribute.
        ValueError: the factory refuses the run (its message says why).

    Example:
        >>> own_vec_env("no_such_trainer", "tic_tac_toe", 2, None, interface=None, env_options={})  # doctest: +ELLIPSIS
        Traceback (most recent call last):
        ...
        arena.errors.UnknownNameError: unknown vectorised env 'no_such_trainer' (TrainingRecipe.vec_env); \
registered in arena.vec_envs: ...; or give 'package.module:callable'
    """
    try:
        if from_data is None:
            factory = resolve("vec_env", name)
        else:
            with reading_data(from_data):
                factory = resolve("vec_env", name)
    except UnknownNameError:
        if ":" in name:
            raise
        known = sorted(entry.name for entry in metadata.entry_points(group=VEC_ENV_GROUP))
        raise UnknownNameError(
            f"unknown vectorised env {name!r} (TrainingRecipe.vec_env); registered in {VEC_ENV_GROUP}: "
            f"{', '.join(known) or '(none)'}; or give 'package.module:callable'"
        ) from None
    venv = factory(env, num_games, opponents, interface=interface, env_options=dict(env_options))
    if not isinstance(venv, VecEnv):
        raise PluginError(
            f"the vectorised env {name!r} must return a Stable-Baselines3 VecEnv, got {type(venv).__name__}"
        )
    try:
        venv.get_attr("interface", indices=[0])
    except AttributeError:
        raise PluginError(
            f"the vectorised env {name!r} returned {venv}, which has no 'interface' attribute (the learner's stack)"
        ) from None
    return venv
