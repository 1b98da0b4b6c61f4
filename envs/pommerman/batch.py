"""Many Pommerman games stepped together in one compiled call."""

from __future__ import annotations

import os
from collections.abc import Callable, Mapping, Sequence
from typing import Any

import numpy as np
from gymnasium import spaces

from arena.batch import TurnModel
from arena.errors import InvalidActionError, InvalidValueError, ResetNeeded
from arena.seeding import game_seeds
from envs.pommerman import batch_core
from envs.pommerman._jit import compile_once
from envs.pommerman.board import seed_stream
from envs.pommerman.codes import LAYOUTS, code_length, code_space
from envs.pommerman.core import BOMB_CAP, SIZE
from envs.pommerman.planes import PLANE_NAMES, RADIO_PLANE_NAMES, num_planes
from envs.pommerman.rules import PommermanRules
from envs.pommerman.state import State, decode_state, encode_state

__all__ = ["PommermanBatch"]


def plane_space(mode: str) -> spaces.Box:
    """The ``Box`` of one view's planes in ``mode`` (see :mod:`envs.pommerman.planes`)."""
    high = [1] * 12 + [10, 10, 4, 3, 10, 10, 1, 1, 3, 255] + ([7, 7] if mode == "radio" else [])
    high_array = np.broadcast_to(np.array(high, dtype=np.uint8)[:, None, None], (len(high), SIZE, SIZE))
    return spaces.Box(0, high_array.copy(), dtype=np.uint8)


class PommermanBatch:
    """``num_games`` games of :class:`~envs.pommerman.Pommerman`, stepped at once in one compiled call.

    Every array has the games on axis 0 and the agents (``agent_0`` .. ``agent_3``) on
    axis 1. One :meth:`step` runs the rules of every game, scores it as the single env
    does, restarts the games that ended and writes every view's planes, inside one
    compiled call, into arrays allocated once.

    * ``reset(seed=s)`` starts game ``g``'s board stream from
      ``arena.seeding.derive_seed(s, g)`` (or ``s[g]`` for a sequence): game ``g`` then
      plays exactly what a :class:`Pommerman` with the same options plays after
      ``reset(seed=derive_seed(s, g))`` followed by plain ``reset()`` calls, given the same
      actions.
    * ``step(actions)`` takes ``(num_games, 4)`` ints 0-5 (radio: ``(num_games, 4, 3)``,
      the move and two words 0-7); entries of agents not in play are ignored (but must lie
      in the space). With ``ego=True`` moves are read in each agent's ego frame. Returns
      ``(observations, rewards, terminations, truncations, infos)``: observations
      ``(num_games, 4, planes, 11, 11)`` uint8 (:mod:`envs.pommerman.planes`; zero for an
      agent not in play; ``layout="codes"``: ``(num_games, 4, 248)``), rewards float32 and flags bool ``(num_games, 4)`` as the single
      env gives them (its step limit terminates: truncations stay False).
    * ``infos``: ``"live"``, the ``(num_games, 4)`` mask of the agents that act next (after
      restarts); ``"episode_over"``, the ``(num_games,)`` mask of the games that ended in
      this step (and restarted); ``"final_observation"``, the ``(k, 4, ...)``
      last views of those ``k`` games; ``"acted"``, who acted in this step.
    * :meth:`load_state` / :meth:`state_json` put a game in a slot or read it back, in
      the reference's state format (as :meth:`Pommerman.load_state`).

    Args:
        num_games: the number of games. Steps a CPU-second per game rise with it while a call's
            fixed cost spreads, and fall by a sixth to a third once a call's views
            (``num_games * 4 * view bytes``) and the games' state (up to 1.2 KB a game) outgrow
            the core's L2 cache: on a 2 MiB L2, past about 512 games of codes or 128 of planes,
            then hold (docs/performance.md, "A second kind of CPU" and "Codes in nibbles";
            ``bench/pommerman_batch.py`` prints a call's views beside the L2).
        mode: ``"ffa"``, ``"team"`` or ``"radio"``.
        ego: every agent sees the board turned so it starts top left; moves in that frame.
        layout: ``"planes"`` (default): each view 22 (radio 24) uint8 planes of 11 x 11
            (:mod:`envs.pommerman.planes`, 2,662 bytes); ``"codes"``: one flat row of 248 (250)
            bytes, two a cell (its code and the value planes, packed in nibbles) and each constant
            plane's value once (:mod:`envs.pommerman.codes`; its ``codes_to_planes`` and the
            interface level ``pommerman_batch_codes`` turn them into the planes). A tenth of the
            bytes a step writes; docs/performance.md gives the speed of each.
        copy: return fresh arrays (default), safe to keep. The compiled step writes the views
            straight into new, unzeroed memory each step (every row, the zero rows of agents not
            viewed or not alive too), so what it costs is the allocation, writes to memory not yet
            in the cache (``num_games * 4 * view bytes``: 2.7 MB at 256 games of planes, 0.25 MB
            of codes) and copies of the small arrays: 5-9% of ``copy=False``'s steps a CPU-second
            with codes, 11-33% with planes, at 64-1,024 games (docs/performance.md, "Codes in
            nibbles", 30 Nov 2026). ``False`` returns
            the batch's own buffers (observations, rewards, flags, the ``acted``, ``live`` and
            ``episode_over`` masks, the final observations), which the next call overwrites.
        view_agents: the agents whose views are written (default all four), e.g. a trainer's
            learner seats; the others' views stay zero, and writing fewer views is most of
            what a step costs beyond the rules. ``()`` writes none (callers reading the state).
        threads: step the games in this many chunks on numba's threads (``numba.prange``);
            1 (default) runs in the calling thread. More than 1 sets ``OMP_WAIT_POLICY=PASSIVE``
            unless it is set (before numba's first parallel call, it stops idle threads spinning);
            waking the threads costs tens of microseconds a call, so two threads pay only with
            many games and an idle second core (docs/performance.md, "Batched Pommerman beside
            pomcpp2", gives their rate against one thread's).
        max_steps: the step limit (800 in the reference).

    Raises:
        ValueError: a bad number of games, mode, ``layout``, ``max_steps``, ``threads`` or ``view_agents``.

    Example:
        >>> import numpy as np
        >>> batch = PommermanBatch(8, mode="team", ego=True)
        >>> obs, infos = batch.reset(seed=0)
        >>> obs.shape, bool(infos["live"].all())
        ((8, 4, 22, 11, 11), True)
        >>> obs, rewards, terms, truncs, infos = batch.step(np.zeros((8, 4), dtype=np.int64))
        >>> rewards.shape, rewards.dtype, infos["episode_over"].shape
        ((8, 4), dtype('float32'), (8,))
    """

    possible_agents = ("agent_0", "agent_1", "agent_2", "agent_3")
    turns: TurnModel = "simultaneous"

    def __init__(
        self,
        num_games: int,
        mode: str = "ffa",
        *,
        ego: bool = False,
        layout: str = "planes",
        copy: bool = True,
        threads: int = 1,
        max_steps: int = 800,
        view_agents: Sequence[str] | None = None,
    ) -> None:
        if isinstance(num_games, bool) or not isinstance(num_games, (int, np.integer)) or not 1 <= num_games <= 2**20:
            raise InvalidValueError(f"PommermanBatch: num_games must be an integer in 1..{2**20}, got {num_games!r}")
        if isinstance(threads, bool) or not isinstance(threads, (int, np.integer)) or not 1 <= threads <= 256:
            raise InvalidValueError(f"PommermanBatch: threads must be an integer in 1..256, got {threads!r}")
        if layout not in LAYOUTS:
            raise InvalidValueError(f"PommermanBatch: layout must be one of {LAYOUTS}, got {layout!r}")
        self.template = PommermanRules(mode, max_steps)  # checks the options
        self.view_agents = self._check_view_agents(view_agents)
        compile_once(
            batch_core.batch_step if threads == 1 else batch_core.batch_step_parallel,
            "the Pommerman batch" if threads == 1 else "the threaded Pommerman batch",
            lambda: _warm_up(mode, ego, threads),
            expect="one to three minutes on two cores",
        )
        self.mode, self.max_steps, self.num_games = mode, self.template.max_steps, int(num_games)
        self.ego, self.copy, self.threads, self.layout = bool(ego), bool(copy), int(threads), layout
        self.teams = self.template.teams
        self.plane_names = RADIO_PLANE_NAMES if mode == "radio" else PLANE_NAMES
        self.single_observation_space = plane_space(mode) if layout == "planes" else code_space(mode)
        self.single_action_space = self.template.action_space("agent_0")
        games = self.num_games
        view = (num_planes(mode), SIZE, SIZE) if layout == "planes" else (code_length(mode),)
        self._boards = np.zeros((games, SIZE, SIZE), np.uint8)
        self._items = np.zeros((games, SIZE, SIZE), np.uint8)
        self._flames = np.zeros((games, SIZE, SIZE), np.uint8)
        self._agents = np.zeros((games, 4, 6), np.int8)
        self._bombs = np.zeros((games, BOMB_CAP, 6), np.int8)
        self._counts = np.zeros((games, 2), np.int64)
        self._steps = np.zeros(games, np.int64)
        self._rngs = np.zeros((games, 1), np.uint64)
        self._radio = np.zeros((games, 4, 2), np.uint8)
        self._last = np.zeros((games, 4), np.int64)
        self._no_words = np.zeros((0, 4, 2), np.int64)
        self._obs = np.zeros((games, 4, *view), np.uint8)
        self._final = np.zeros((games, 4, *view), np.uint8)
        self._rewards = np.zeros((games, 4), np.float32)
        self._terms = np.zeros((games, 4), np.bool_)
        self._live = np.zeros((games, 4), np.bool_)
        self._acted = np.zeros((games, 4), np.bool_)
        self._over = np.zeros(games, np.bool_)
        self._no_truncations = np.zeros((games, 4), np.bool_)  # the step limit terminates, as in the single env
        self._no_truncations.flags.writeable = False
        if self.threads > 1:
            # OpenMP's default busy wait burns the other core between calls (docs/performance.md);
            # passive waiting costs nothing here. A user's own setting wins.
            os.environ.setdefault("OMP_WAIT_POLICY", "PASSIVE")
        self._work = batch_core.new_work(self.threads)
        # the compiled step's arguments around the moves, gathered once (the arrays are changed in place)
        self._state = (
            self._boards,
            self._items,
            self._flames,
            self._agents,
            self._bombs,
            self._counts,
            self._steps,
            self._rngs,
            self._radio,
            self._last,
        )
        # the seats whose views are written, a bit mask per game (set_view_seats changes them)
        bits = sum(1 << self.possible_agents.index(a) for a in self.view_agents)
        self._seats = np.full(games, bits, np.uint8)
        self._options = (*self._flags(), self.ego, self._seats, self.template.max_blast, self.max_steps, self.copy)
        # the compiled code writes the views as flat rows (games, 4, bytes): one compilation for both layouts
        views, finals = _rows(self._obs), _rows(self._final)
        self._outputs = (views, self._rewards, self._terms, self._live, self._acted, self._over, finals, self._work)
        self._run = batch_core.batch_step if self.threads == 1 else batch_core.batch_step_parallel
        # the step's arguments in its order; step() puts the moves, words and (copy=True) views in
        self._arguments: list[Any] = [*self._state, self._no_words, self._no_words, *self._options, *self._outputs]
        self._call = self._run  # the compiled overload itself after the first step (_compiled_entry)
        self._radio_moves = mode == "radio"
        self._action_shape = (games, 4, 3) if self._radio_moves else (games, 4)
        self._entropy = np.random.default_rng()
        self._started = False

    def __str__(self) -> str:
        return f"<PommermanBatch {self.num_games} games of {self.template}{' ego' if self.ego else ''}>"

    __repr__ = __str__

    def _flags(self) -> tuple[bool, bool]:
        return self.mode != "ffa", self.template.partial

    def _check_view_agents(self, view_agents: Sequence[str] | None) -> tuple[str, ...]:
        if view_agents is None:
            return self.possible_agents
        chosen = [view_agents] if isinstance(view_agents, str) else view_agents
        if (
            not isinstance(chosen, (list, tuple))
            or any(not isinstance(a, str) or a not in self.possible_agents for a in chosen)
            or len(set(chosen)) != len(chosen)
        ):
            raise InvalidValueError(
                f"PommermanBatch: view_agents must be distinct agents of {self.possible_agents}, got {view_agents!r}"
            )
        return tuple(a for a in self.possible_agents if a in chosen)

    # ------------------------------------------------------------------ episode
    def reset(self, *, seed: int | Any | None = None, options: dict[str, Any] | None = None):
        """Start a new episode in every game; returns ``(observations, {"live": mask})``.

        Args:
            seed: an int (game ``g`` gets ``derive_seed(seed, g)``), a sequence of one seed
                per game, or ``None`` (each game's stream goes on; fresh entropy the first time).
        """
        if seed is not None:
            for g, game_seed in enumerate(game_seeds(seed, self.num_games, self)):
                seed_stream(self._rngs[g], game_seed)
        elif not self._started:
            for g, game_seed in enumerate(self._entropy.integers(0, 2**63, self.num_games).tolist()):
                seed_stream(self._rngs[g], game_seed)
        self._started = True
        games = np.arange(self.num_games)
        self._start_games(games)
        obs = self._obs.copy() if self.copy else self._obs
        return obs, {"live": self._live.copy()}

    def _start_games(self, games: np.ndarray) -> None:
        """Deal fresh boards to ``games`` (each from its own stream) and observe them."""
        batch_core.reset_games(
            games,
            self._boards,
            self._items,
            self._flames,
            self._agents,
            self._counts,
            self._steps,
            self._rngs,
            self._radio,
            self._live,
            self._work,
        )
        self._observe(games)

    def _observe(self, games: np.ndarray) -> None:
        team, partial = self._flags()
        batch_core.observe_games(
            games,
            self._boards,
            self._flames,
            self._agents,
            self._bombs,
            self._counts,
            self._steps,
            self._radio,
            team,
            partial,
            self.ego,
            self._seats,
            self.max_steps,
            self._live,
            self._work,
            _rows(self._obs),
            False,
        )

    def set_view_seats(self, seats: Any) -> None:
        """Write, from the next step on, the views of only the seats marked in ``seats`` (per game).

        A trainer whose learner (and whose opponents reading views) sit in different seats in each
        game asks for just those views: views are most of what a step costs beyond the rules. The
        others' views are zero from the next step on. :meth:`observe` writes games' views at once.

        Args:
            seats: ``(num_games, 4)`` bool, ``True`` where a view is read.

        Raises:
            ValueError: ``seats`` of another shape or type.

        Example:
            >>> batch = PommermanBatch(2, "team", copy=False)
            >>> _ = batch.reset(seed=0)
            >>> batch.set_view_seats(np.array([[True, False, True, False], [False, True, False, True]]))
            >>> obs = batch.step(np.zeros((2, 4), np.int64))[0]
            >>> bool(obs[0, 1].any()), bool(obs[1, 1].any())
            (False, True)
        """
        mask = np.asarray(seats)
        if mask.shape != (self.num_games, 4) or mask.dtype != np.bool_:
            raise InvalidValueError(
                f"{self}: seats must be a bool array of shape {(self.num_games, 4)}, "
                f"got {mask.dtype} array of shape {mask.shape}"
            )
        self._seats[:] = mask @ np.array([1, 2, 4, 8], np.uint8)

    def observe(self, games: Any) -> np.ndarray:
        """Write the views of ``games`` now (those :meth:`set_view_seats` asks for); returns a copy of them.

        Raises:
            ResetNeeded: before the first :meth:`reset`.
            ValueError: ``games`` not indices of this batch's games.
        """
        if not self._started:
            raise ResetNeeded(f"{self}: observe() called before reset()")
        games = self._games(games)
        self._observe(games)
        return self._obs[games].copy()

    def restart(self, games: Any) -> np.ndarray:
        """Abandon ``games`` and start each one's next episode now; returns their new observations.

        Raises:
            ResetNeeded: before the first :meth:`reset`.
            ValueError: ``games`` not indices of this batch's games.
        """
        if not self._started:
            raise ResetNeeded(f"{self}: restart() called before reset()")
        games = self._games(games)
        self._start_games(games)
        return self._obs[games].copy()

    def _games(self, games: Any) -> np.ndarray:
        """``games`` as int64 indices, checked (the compiled code does not check its indices)."""
        indices = np.asarray(games).reshape(-1)
        if indices.size and (indices.dtype.kind not in "iu" or indices.min() < 0 or indices.max() >= self.num_games):
            raise InvalidValueError(f"{self}: games must be indices in 0..{self.num_games - 1}, got {games!r}")
        return indices.astype(np.int64)

    # --------------------------------------------------------------------- step
    def _check_actions(self, actions: Any) -> tuple[np.ndarray, np.ndarray]:
        """The moves (and words) as C-contiguous, aligned, writable int64 arrays: the one type the compiled
        step was resolved for (see :func:`_compiled_entry`); their ranges are checked in the compiled step."""
        shape = self._action_shape
        if type(actions) is np.ndarray and actions.dtype is _INT64 and actions.shape == shape and not self._radio_moves:
            if actions.flags.carray:  # the common case, in about half the general path's instructions
                return actions, self._no_words
        actions = np.asarray(actions)
        if actions.shape != shape or actions.dtype.kind not in "iu":
            raise InvalidActionError(
                f"{self}: actions must be an integer array of shape {shape}, "
                f"got {actions.dtype} array of shape {actions.shape}"
            )
        if self._radio_moves:  # slices of the actions: always fresh copies
            return np.ascontiguousarray(actions[..., 0], dtype=np.int64), np.ascontiguousarray(
                actions[..., 1:], dtype=np.int64
            )
        moves = np.ascontiguousarray(actions, dtype=np.int64)  # the caller's array when it is int64 already
        # a read-only or unaligned array is a type of its own to numba: copied, it is the one type
        return (moves if moves.flags.behaved else moves.copy()), self._no_words

    def _out_of_range(self, code: int, moves: np.ndarray, words: np.ndarray) -> InvalidActionError:
        if code == -1:
            return InvalidActionError(f"{self}: moves must lie in 0..5, got values from {moves.min()} to {moves.max()}")
        return InvalidActionError(
            f"{self}: radio words must lie in 0..7, got values from {words.min()} to {words.max()}"
        )

    def step(self, actions: Any):
        """Step every game; see the class docstring for what comes back.

        Raises:
            ResetNeeded: before the first :meth:`reset`.
            InvalidActionError: ``actions`` of the wrong shape, type or range.
        """
        if not self._started:
            raise ResetNeeded(f"{self}: step() called before reset()")
        arguments = self._arguments
        arguments[_MOVES], arguments[_WORDS] = self._check_actions(actions)
        fresh = self.copy
        if fresh:  # views written straight into new memory, every row: no zeroing before, no copy after
            obs = np.empty(self._obs.shape, np.uint8)
            arguments[_VIEWS] = _rows(obs)
        ended = self._call(*arguments)
        if self._call is self._run:  # the first step: numba picked (or compiled) the overload for these types
            self._call = _compiled_entry(self._run, arguments)
        if ended < 0:  # nothing was stepped
            moves, words = arguments[_MOVES], arguments[_WORDS]
            raise self._out_of_range(ended, moves, words)
        over = self._over.copy() if fresh else self._over
        infos: dict[str, Any] = {
            "acted": self._acted.copy() if fresh else self._acted,
            "live": self._live.copy() if fresh else self._live,
            "episode_over": over,
        }
        if ended:  # the compiled step left them in the first rows, in game order
            infos["final_observation"] = self._final[:ended].copy() if fresh else self._final[:ended]
        if not fresh:
            return self._obs, self._rewards, self._terms, self._no_truncations, infos
        return obs, self._rewards.copy(), self._terms.copy(), self._no_truncations.copy(), infos

    # ------------------------------------------------------------------- states
    def _game(self, game: Any) -> int:
        if isinstance(game, bool) or not isinstance(game, (int, np.integer)) or not 0 <= game < self.num_games:
            raise InvalidValueError(f"{self}: game must be an integer in 0..{self.num_games - 1}, got {game!r}")
        return int(game)

    def load_state(self, game: int, state: Mapping[str, Any]) -> np.ndarray:
        """Continue game ``game`` from a state dict in the reference format; returns its four views (the layout's shape).

        The living agents act next. The batch must have been reset once (the other games
        need a state too).

        Raises:
            ResetNeeded: before the first :meth:`reset`.
            ValueError: a bad game index, a missing or bad field (named), or a state the rules never
                reach (flames the board does not show, a bomb on flames).
        """
        g = self._game(game)
        if not self._started:
            raise ResetNeeded(f"{self}: load_state() called before reset()")
        decoded = decode_state(state, self.mode == "radio")
        self._boards[g], self._items[g], self._flames[g] = decoded.board, decoded.items, decoded.flames
        self._agents[g], self._bombs[g], self._counts[g] = decoded.agents, decoded.bombs, decoded.counts
        self._steps[g], self._radio[g] = decoded.step_count, decoded.radio
        intended = [int(a[0]) if isinstance(a, (list, tuple)) else int(a) for a in decoded.intended_actions[:4]]
        self._last[g] = (intended + [0, 0, 0, 0])[:4]
        self._live[g] = decoded.agents[:, 0] != 0
        self._observe(np.array([g]))
        return self._obs[g].copy()

    def state_json(self, game: int) -> dict[str, Any]:
        """Game ``game``'s state as a dict in the reference trajectory format (see :meth:`load_state`)."""
        g = self._game(game)
        state = State(
            board=self._boards[g].copy(),
            items=self._items[g].copy(),
            flames=self._flames[g].copy(),
            agents=self._agents[g].copy(),
            bombs=self._bombs[g].copy(),
            counts=self._counts[g].copy(),
            radio=self._radio[g].astype(np.int64),
            step_count=int(self._steps[g]),
            intended_actions=self._last[g].tolist(),
        )
        return encode_state(state, self.mode == "radio")

    @property
    def live(self) -> np.ndarray:
        """The ``(num_games, 4)`` mask of the agents that act next (a copy)."""
        return self._live.copy()


#: The int64 dtype object numpy gives the arrays it makes (an equal dtype made otherwise takes the general path).
_INT64 = np.dtype(np.int64)
#: Where :meth:`PommermanBatch.step` puts the moves, the words and the views among the compiled step's arguments.
_MOVES, _WORDS, _VIEWS = 10, 11, 19


def _compiled_entry(dispatcher: Any, arguments: Sequence[Any]) -> Callable[..., Any]:
    """The compiled overload of ``dispatcher`` for the types of ``arguments``, called without numba's dispatch.

    numba's dispatcher types every argument on each call to pick an overload (for the step's 26
    arguments, 19 of them arrays and the last a tuple of 14 scratch arrays: about half of what a
    step of one game costs); the
    overload's own entry point (``overloads[types].entry_point``, numba's compiled wrapper) only
    unboxes them. It trusts its caller: an argument of another type would be read as the wrong
    one, so the batch calls it only with the arrays it owns and moves made into the one type
    (:meth:`PommermanBatch._check_actions`). Falls back to the dispatcher where numba's
    internals differ (or without numba).
    """
    try:
        types = tuple(dispatcher.typeof_pyval(argument) for argument in arguments)
        entry = dispatcher.overloads[types].entry_point
    except (AttributeError, KeyError, TypeError):
        return dispatcher
    return entry if callable(entry) else dispatcher


def _rows(views: np.ndarray) -> np.ndarray:
    """The views ``(games, 4, ...)`` as one flat row each (a view of the same memory)."""
    return views.reshape(views.shape[0], 4, -1)


def _warm_up(mode: str, ego: bool, threads: int) -> None:
    """A few steps of a scratch batch of two games: numba compiles its step and views here, once."""
    batch = PommermanBatch(2, mode, ego=ego, threads=threads, max_steps=10)
    batch.reset(seed=0)
    stop = np.zeros((2, 4, 3) if mode == "radio" else (2, 4), np.int64)
    for _ in range(3):
        batch.step(stop)
