"""Which vectorised env a training run steps: a game's numpy batch, a worker batch of single envs, or one SingleAgentEnv per game.

:func:`choose_path` derives it from what the run trains (``"batched"`` where the game's own batch
can serve the run, ``"workers"`` where an env without one has every agent act at once, for a seat or
for one policy in every seat of its side: a batch of single envs, :mod:`arena.worker_batch`,
``"single"`` otherwise);
:func:`batch_vec_env` builds the batched trainer env for a game
(:class:`~arena.training.batched.BatchVecEnv`, whatever the batch's turns).

This module imports Stable-Baselines3 when it is imported (the ``train`` extra).
"""

from __future__ import annotations

from collections.abc import Callable, Mapping, Sequence
from typing import Any

from arena.batch import turn_model
from arena.batched_stack import stack_batch_options
from arena.env import MultiAgentEnv
from arena.errors import ArenaError, InvalidValueError
from arena.interface import Interface
from arena.training.batch_slots import plays_in_batches, plays_per_game_copies
from arena.training.batched import BatchVecEnv, make_batch
from arena.training.pool import OpponentPool

__all__ = ["batch_reasons", "batch_vec_env", "choose_path", "path_reasons", "shared_side_reasons", "worker_reasons"]


def batch_vec_env(
    env: MultiAgentEnv | str | Callable[..., MultiAgentEnv],
    num_envs: int,
    *args: Any,
    env_kwargs: Mapping[str, Any] | None = None,
    **kwargs: Any,
) -> BatchVecEnv:
    """The batched trainer env for ``env``: :class:`BatchVecEnv` over the game's batch, whatever its
    turns (board games, snake), or given ``num_workers``, over a worker batch of the single env
    (soccer, MAgent2's battles).

    Arguments as :class:`BatchVecEnv` takes them.

    Example:
        >>> venv = batch_vec_env("tic_tac_toe", 2, "random")
        >>> type(venv).__name__, venv.num_envs
        ('BatchVecEnv', 2)
    """
    return BatchVecEnv(env, num_envs, *args, env_kwargs=env_kwargs, **kwargs)


def choose_path(
    env: Any,
    algo: str,
    opponent: Any,
    interface: Any,
    *,
    control: str = "seat",
    teammate: str | None = None,
) -> str:
    """How a run steps its games, derived from what it trains: ``"batched"``, ``"workers"`` or ``"single"``.

    * ``"batched"``: the env has a batch, the algorithm takes action masks (``maskable-ppo``), every
      opponent acts in batches (:func:`~arena.training.batch_slots.plays_in_batches`) and the learner
      plays one seat with no teammate; any interface stack trains there (per-game levels keep their
      per-episode state per game slot). With ``control="shared"`` (one policy in every seat of its
      side, :class:`~arena.training.batched.BatchVecEnv` with ``team=True``) the batch must be one where every
      seat moves at once;
    * ``"workers"``: the same trainer over a worker batch of single envs (:mod:`arena.worker_batch`),
      for an env without a batch of its own: ``control="shared"`` where the game's batch cannot
      serve the run (each member's episode ending when it leaves the game, ``member_done``), and a
      learner in one seat (or ``seats``) of an env whose agents all act at every step
      (:attr:`arena.MultiAgentEnv.simultaneous`: soccer, ViZDoom, MAgent2) and share one observation
      space and one action space, against opponents that act in batches, with no teammate, and an
      algorithm that takes masks or an env that masks no actions (:func:`worker_reasons`); an opponent
      that acts one game at a time plays there as one copy per game where it says copies can
      (:attr:`arena.Agent.copy_per_game`: ``vizdoom_aim``);
    * ``"single"``: anything else (one :class:`~arena.training.single_agent.SingleAgentEnv` per game):
      turn-based envs without a batch (poker, liar's dice), a learner beside a teammate or for a
      whole side (``control="team"``), opponents that act one game at a time, ``ppo`` on an env
      that masks actions (the single env forfeits an illegal move; a batch enforces masks).

    ``opponent`` is one agent or a list of them. :func:`path_reasons` says why a run takes its path.

    Raises:
        ValueError: ``control="shared"`` where the side cannot be trained so, saying why
            (:func:`shared_side_reasons`).

    Example:
        >>> import envs
        >>> from arena import RandomAgent
        >>> choose_path(envs.make("connect_four"), "maskable-ppo", RandomAgent(), None)
        'batched'
        >>> choose_path(envs.make("kuhn_poker"), "maskable-ppo", RandomAgent(), None)
        'single'
        >>> choose_path(envs.make("soccer"), "ppo", RandomAgent(), None, control="shared")
        'workers'
        >>> choose_path(envs.make("soccer"), "ppo", RandomAgent(), None)
        'workers'
    """
    return path_reasons(env, algo, opponent, interface, control=control, teammate=teammate)[0]


def path_reasons(
    env: Any,
    algo: str,
    opponent: Any,
    interface: Any,
    *,
    control: str = "seat",
    teammate: str | None = None,
) -> tuple[str, list[str]]:
    """:func:`choose_path`'s path and why the faster paths cannot serve the run (empty on the batched path).

    Raises:
        ValueError: as :func:`choose_path`.

    Example:
        >>> import envs
        >>> from arena import RandomAgent
        >>> path_reasons(envs.make("kuhn_poker"), "maskable-ppo", RandomAgent(), None)
        ('single', ['<KuhnPoker> has no batch (make_batch)', '<KuhnPoker> is turn-based (simultaneous is False)'])
    """
    opponents = list(opponent) if isinstance(opponent, (list, tuple)) else [opponent]
    reasons = batch_reasons(env, interface)
    if algo != "maskable-ppo":
        reasons.append(f"--algo {algo} trains without action masks, which the batch enforces")
    for agent in opponents:
        if not plays_in_batches(agent):
            reasons.append(f"the opponent {agent} cannot act for many games at once")
    if control == "shared":
        # one policy in every seat of its side: on the game's batch where every seat moves at once,
        # else on a worker batch of single envs (the same trainer)
        options = stack_batch_options(interface)
        if not reasons and turn_model(make_batch(env, 1, batch_options=options)) == "simultaneous":
            return "batched", []
        side_reasons = shared_side_reasons(env, opponents)
        if side_reasons:
            why = f" (nor can the game's batch: {'; '.join(reasons)})" if reasons else ""
            raise InvalidValueError(f"--control shared cannot train this run: {'; '.join(side_reasons)}{why}")
        return "workers", reasons
    if not env.batchable:  # a worker batch of single envs, where it can serve the run
        against_workers = worker_reasons(env, algo, opponents, control=control, teammate=teammate)
        return ("single" if against_workers else "workers"), batch_reasons(env, interface) + against_workers
    if teammate is not None or control == "team":
        reasons.append("the learner plays beside a teammate or for a whole side")
    return ("single", reasons) if reasons else ("batched", [])


def worker_reasons(
    env: MultiAgentEnv,
    algo: str,
    opponents: Sequence[Any],
    *,
    control: str = "seat",
    teammate: str | None = None,
) -> list[str]:
    """Why a learner's seat in ``env`` cannot train on a worker batch of single envs (empty: it can).

    The worker batch steps every agent in play at once and the trainer
    (:class:`~arena.training.batched.BatchVecEnv`) fills the other seats with opponents acting in
    batches (or, where they say so, as one copy per game: :attr:`arena.Agent.copy_per_game`), so the
    env must declare simultaneous moves and one observation and one action space for all its agents,
    and the learner must play a seat of its own (no teammate, not a whole side); masks reach the
    learner, so an algorithm without them trains only where the env masks nothing.

    Example:
        >>> import envs
        >>> worker_reasons(envs.make("soccer"), "ppo", [])
        []
        >>> worker_reasons(envs.make("liars_dice"), "maskable-ppo", [])
        ['<LiarsDice> is turn-based (simultaneous is False)']
    """
    reasons = []
    if not env.simultaneous:
        reasons.append(f"{env} is turn-based (simultaneous is False)")
    seats = list(env.possible_agents)
    if len({(str(env.observation_space(seat)), str(env.action_space(seat))) for seat in seats}) != 1:
        reasons.append(f"the seats of {env} do not share one observation space and one action space")
    if algo != "maskable-ppo" and env.masked_actions:
        reasons.append(f"--algo {algo} trains without action masks and {env} masks its actions")
    for agent in opponents:
        members = agent if isinstance(agent, OpponentPool) else [agent]
        reasons += [
            f"the opponent {m} cannot act for many games at once nor be copied per game (copy_per_game)"
            for m in members
            if not (plays_in_batches(m) or plays_per_game_copies(m))
        ]
        reasons += [_reads_its_games_batch(m) for m in members if m.acts_on_batch and not m.batchable]
    if teammate is not None or control == "team":
        reasons.append("the learner plays beside a teammate or for a whole side")
    return reasons


def shared_side_reasons(env: MultiAgentEnv, opponents: Sequence[Any]) -> list[str]:
    """Why one policy cannot play every seat of a side of ``env`` against ``opponents`` on a
    worker batch (an empty list: it can).

    Example:
        >>> import envs
        >>> shared_side_reasons(envs.make("tic_tac_toe"), [])
        ['<TicTacToe> has no sides (teams)']
    """
    reasons = []
    teams = env.teams or {}
    if len(teams) != 2:
        reasons.append(f"{env} has no sides (teams)" if not teams else f"{env} has {len(teams)} sides, not 2")
    elif len({len(members) for members in teams.values()}) != 1:
        reasons.append(f"{env}'s sides differ in size ({', '.join(f'{k}: {len(v)}' for k, v in teams.items())})")
    seats = list(env.possible_agents)
    spaces_of = {(str(env.observation_space(seat)), str(env.action_space(seat))) for seat in seats}
    if len(spaces_of) != 1:
        reasons.append(f"the seats of {env} do not share one observation space and one action space")
    for agent in opponents:
        members = agent if isinstance(agent, OpponentPool) else [agent]
        reasons += [
            f"the opponent {m} cannot act for a side at once (act_batch) nor be copied per game (copy_per_game)"
            for m in members
            if not (plays_in_batches(m) or plays_per_game_copies(m))
        ]
        reasons += [_reads_its_games_batch(m) for m in members if m.acts_on_batch and not m.batchable]
    return reasons


def _reads_its_games_batch(agent: Any) -> str:
    """Why ``agent`` cannot play on a worker batch: it reads the game's own compiled batch (``act_on_batch``)."""
    return (
        f"the opponent {agent} acts by reading the game's own batch (act_on_batch), which this run cannot use, "
        "and not on a worker batch of single envs"
    )


def batch_reasons(env: MultiAgentEnv, interface: Interface | None) -> list[str]:
    """Why ``env``'s batch cannot feed ``interface`` (empty when it can).

    A batch may show a view of its own (Pommerman's planes, where the single env shows a dict); a
    stack trains on it only when one of its levels reads that view, which such a level declares by
    naming the ``make_batch`` options it needs (:attr:`arena.Interface.batch_options`). A batch the
    env refuses to make (Pong-2p with frame observations) is a reason too, in the env's words.

    Example:
        >>> import envs
        >>> batch_reasons(envs.make("connect_four"), None)
        []
        >>> batch_reasons(envs.make("kuhn_poker"), None)
        ['<KuhnPoker> has no batch (make_batch)']
    """
    if not env.batchable:
        return [f"{env} has no batch (make_batch)"]
    options = stack_batch_options(interface)
    try:
        batch = env.make_batch(1, **options)
    except ArenaError as err:
        return [f"{env} makes no batch here: {err}"]
    seat = env.possible_agents[0]
    if batch.single_observation_space != env.observation_space(seat) and not options:
        return [
            f"the batch shows {_brief(batch.single_observation_space)} where {env} shows "
            f"{_brief(env.observation_space(seat))}, and no level of the stack {interface} reads the "
            "batch's view (Interface.batch_options)"
        ]
    return []


def _brief(space: Any) -> str:
    """A space named short: its class and shape (a Box's bounds can fill a screen)."""
    shape = getattr(space, "shape", None)
    return f"{type(space).__name__}{tuple(shape)}" if shape else type(space).__name__
