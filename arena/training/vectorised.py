"""Which vectorised env a training run steps: a game's numpy batch, or one SingleAgentEnv per game.

:func:`choose_path` decides (``"batched"`` where the batch can serve the run, ``"single"``
otherwise, with the reasons when asked for the batch and refused); :func:`batch_vec_env`
builds the batched trainer env for a game, turn-based (:class:`~arena.training.batched.BatchVecEnv`)
or simultaneous (:class:`~arena.training.batched_simultaneous.SimultaneousBatchVecEnv`).

This module imports Stable-Baselines3 when it is imported (the ``train`` extra).
"""

from __future__ import annotations

from collections.abc import Callable, Mapping
from typing import Any

from arena.env import MultiAgentEnv
from arena.registry import make_env
from arena.training.batched import BatchVecEnv, make_batch
from arena.training.batched_simultaneous import SimultaneousBatchVecEnv
from arena.training.side import side_path_reasons

__all__ = ["batch_vec_env", "choose_path"]


def batch_vec_env(
    env: MultiAgentEnv | str | Callable[..., MultiAgentEnv],
    num_envs: int,
    *args: Any,
    env_kwargs: Mapping[str, Any] | None = None,
    **kwargs: Any,
) -> BatchVecEnv:
    """The batched trainer env for ``env``: :class:`BatchVecEnv` for turn-based batches
    (board games), :class:`SimultaneousBatchVecEnv` for batches where all move at once (snake).

    Arguments as :class:`BatchVecEnv` takes them.

    Example:
        >>> venv = batch_vec_env("tic_tac_toe", 2, "random")
        >>> type(venv).__name__, venv.num_envs
        ('BatchVecEnv', 2)
    """
    probe = make_env(env, **dict(env_kwargs or {}))
    batch = make_batch(probe, 1)
    if hasattr(batch, "to_play"):
        return BatchVecEnv(probe, num_envs, *args, **kwargs)
    return SimultaneousBatchVecEnv(probe, num_envs, *args, **kwargs)


def choose_path(requested: str, env: Any, algo: str, opponent: Any, interface: Any) -> str:
    """``"batched"``, ``"single"`` or ``"side"``: which training path ``requested`` (``"auto"``,
    ``"batched"``, ``"single"``, ``"side"``) gives for this run (``"side"`` only when asked for).

    ``opponent`` is one agent or a list of them (every one must act in batches).

    Raises:
        ValueError: ``"batched"`` or ``"side"`` where that path cannot run, saying why.

    Example:
        >>> import envs
        >>> from arena import RandomAgent
        >>> choose_path("auto", envs.make("connect_four"), "maskable-ppo", RandomAgent(), None)
        'batched'
    """
    if requested == "side":
        side_reasons = side_path_reasons(
            env, opponent if isinstance(opponent, (list, tuple)) else [opponent], interface
        )
        if side_reasons:
            raise ValueError(f"--path side cannot train this run: {'; '.join(side_reasons)}")
        return "side"
    reasons = []
    if not env.batchable:
        reasons.append(f"{env} has no batch (make_batch)")
    if algo != "maskable-ppo":
        reasons.append(f"--algo {algo} trains without action masks, which the batch enforces")
    for agent in opponent if isinstance(opponent, (list, tuple)) else [opponent]:
        if not agent.batchable:
            reasons.append(f"the opponent {agent} cannot act for many games at once")
    if interface is not None and interface.stateful:
        reasons.append(f"the interface {interface} keeps per-episode state")
    if requested == "batched" and reasons:
        raise ValueError(f"--path batched cannot train this run: {'; '.join(reasons)}")
    if requested == "single" or reasons:
        return "single"
    return "batched"
