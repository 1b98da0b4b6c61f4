"""Many snake games stepped together in numpy arrays."""

from __future__ import annotations

from typing import Any

import numpy as np

from arena.batch import TurnModel
from arena.errors import InvalidActionError, InvalidTypeError, InvalidValueError, ResetNeeded
from arena.seeding import game_seeds
from envs.snake import core
from envs.snake.core import BODY, EMPTY, FRUIT, HEAD, TAIL, WALL
from envs.snake.rules import SnakeRules

__all__ = ["SnakeBatch"]


class SnakeBatch:
    """``num_games`` games of :class:`~envs.snake.env.Snake`, stepped at once.

    Every array has the games on axis 0 and the snakes on axis 1; one step costs a
    fixed number of numpy calls whatever the number of games. A game that ends is
    reset in the same step (its next episode), so every call returns observations for
    the agents that act next.

    * ``reset(seed=s)`` gives game ``g`` the seed ``arena.seeding.derive_seed(s, g)`` (or
      ``s[g]`` when ``s`` is a sequence); after each end the game plays the next episode
      of its seed. Game ``g`` therefore plays exactly what a :class:`Snake` with the same
      options plays after ``reset(seed=derive_seed(s, g))`` followed by plain
      ``reset()`` calls, given the same actions.
    * ``step(actions)`` takes an integer array ``(num_games, num_snakes)`` (entries of
      dead snakes are ignored but must lie in 0..2) and returns ``(observations,
      rewards, terminations, truncations, infos)``: observations ``(num_games,
      num_snakes, h, w, c)`` uint8 as :class:`Snake` describes, all zero for a snake that
      is not in play; rewards ``float32`` and the flags ``bool``, ``(num_games,
      num_snakes)``, as the single env gives them (False and 0 for snakes not in play).
    * ``infos``: ``"live"``, the ``(num_games, num_snakes)`` mask of the snakes that act
      next (after the auto-reset); ``"episode_over"``, the ``(num_games,)`` mask of the
      games that ended in this step (and were reset); ``"final_observation"``, the
      ``(k, num_snakes, h, w, c)`` last observations of those ``k`` games, before their
      reset (zero for snakes that died); ``"acted"``, the mask of the snakes that
      acted in this step.

    Args:
        num_games: the number of games.
        copy: return fresh observation arrays (default); ``False`` returns the batch's
            own buffer, which the next call overwrites (fastest, for trainers that copy
            into their rollout storage anyway).
        **options: :class:`Snake`'s options (not ``render_mode``).

    Example:
        >>> import numpy as np
        >>> batch = SnakeBatch(8, height=10, width=10, num_snakes=2)
        >>> obs, infos = batch.reset(seed=0)
        >>> obs.shape, infos["live"].shape
        ((8, 2, 10, 10, 8), (8, 2))
        >>> obs, rewards, terms, truncs, infos = batch.step(np.ones((8, 2), dtype=np.int64))
        >>> rewards.dtype
        dtype('float32')
    """

    turns: TurnModel = "simultaneous"

    def __init__(self, num_games: int, *, copy: bool = True, **options: Any) -> None:
        if isinstance(num_games, bool) or not isinstance(num_games, (int, np.integer)) or num_games < 1:
            raise InvalidValueError(f"SnakeBatch: num_games must be a positive integer, got {num_games!r}")
        if "render_mode" in options:
            raise InvalidTypeError("SnakeBatch: render_mode is not an option of a batch; render a Snake instead")
        self.template = SnakeRules(**options)  # validates the options and holds the spaces
        t = self.template
        self.num_games, self.num_snakes, self.copy = int(num_games), t.num_snakes, bool(copy)
        self.height, self.width, self.vision_range, self.frame_stack = t.height, t.width, t.vision_range, t.frame_stack
        self.reward_dict, self.max_steps, self.snake_length, self.num_fruits = (
            t.reward_dict,
            t.max_steps,
            t.snake_length,
            t.num_fruits,
        )
        self.possible_agents = tuple(t.possible_agents)
        self.single_observation_space = t.observation_spaces["snake_0"]
        self.single_action_space = t.action_spaces["snake_0"]
        games, snakes = self.num_games, self.num_snakes
        self._pad, self._wp = t._pad, t._wp
        self._padded_walls = t._padded_walls
        self._size = size = t._padded_walls.size
        self._capacity = cap = self.height * self.width  # no snake is longer than the map
        self._walls_flat, self._free_cells = t._walls_flat, t._free_cells
        self._offsets = np.array(t._offsets, dtype=np.int64)
        self._codes = np.zeros((games, size), dtype=np.uint8)
        self._ring = np.zeros((games, snakes, cap), dtype=np.int64)  # each snake's cells, tail to head
        self._head_at = np.zeros((games, snakes), dtype=np.int64)  # the ring slot of the head
        self._head = np.zeros((games, snakes), dtype=np.int64)  # the head cell (the ring's, kept at hand)
        self._length = np.zeros((games, snakes), dtype=np.int64)
        self._headings = np.zeros((games, snakes), dtype=np.int64)
        self._view_heads = np.zeros((games, snakes), dtype=np.int64)
        self._live = np.zeros((games, snakes), dtype=bool)
        self._seeds = np.zeros(games, dtype=np.uint64)
        self._episodes = np.zeros(games, dtype=np.int64)
        self._keys = np.zeros(games, dtype=np.uint64)
        self._steps = np.zeros(games, dtype=np.int64)
        self._started = False
        self._rng = np.random.default_rng()
        # The start of each game's next episode, drawn ahead for many games at once
        # (one spawn call costs the same for 1 game or 500).
        self._next_for = np.full(games, -1, dtype=np.int64)
        self._next_keys = np.zeros(games, dtype=np.uint64)
        self._next_codes = np.zeros((games, size), dtype=np.uint8)
        self._next_cells = np.zeros((games, snakes, self.snake_length), dtype=np.int64)
        self._next_headings = np.zeros((games, snakes), dtype=np.int64)

        self._snake_ids = np.arange(snakes)
        self._rows = np.arange(games)
        self._code_base = self._rows[:, None] * size  # flat offsets of each game's grid
        self._seat = self._rows[:, None] * snakes + self._snake_ids  # flat (game, snake) index
        self._ring_base = self._seat * cap
        self._lut = t._lut  # (snakes, codes)
        self._lut_by_code = np.ascontiguousarray(t._lut.T)  # (codes, snakes)
        self._masked_lut = self._watcher_bits = None
        if snakes <= 8:  # row code * 2**snakes + watchers: the channels each live snake sees
            watchers = (np.arange(1 << snakes)[:, None] >> self._snake_ids) & 1
            self._masked_lut = (self._lut_by_code[:, None, :] * watchers[None].astype(np.uint64)).reshape(-1, snakes)
            self._watcher_bits = 1 << self._snake_ids
        codes = np.arange(3 + 3 * snakes)
        self._owner_of = np.where(codes > FRUIT, (codes - 3) // 3, 0)
        part = np.where(codes > FRUIT, (codes - 3) % 3, -1)
        self._hard = (codes == WALL) | (part == HEAD) | (part == BODY)  # deadly whatever happens
        self._is_tail, self._is_head, self._is_snake = part == TAIL, part == HEAD, codes > FRUIT
        h, w = t.view_shape
        self._view_size = h * w
        self._observer_stride = self._snake_ids * (h * w * self.frame_stack)
        self._buffer = np.zeros((games, snakes, h * w, self.frame_stack), dtype="<u8")
        self._obs = self._buffer.view(np.uint8).reshape(games, snakes, h, w, 8 * self.frame_stack)
        pad, wp = self._pad, self._wp
        cell = np.arange(size)
        r, c = cell // wp - pad, cell % wp - pad
        inside = (r >= 0) & (r < self.height) & (c >= 0) & (c < self.width)
        self._cell_to_view = np.where(inside, r * self.width + c, 0)
        self._map_cells = np.flatnonzero(inside)  # padded cells of the map, row by row
        self._part_codes = 3 + 3 * self._snake_ids  # + part gives the code

    def __str__(self) -> str:
        return f"<SnakeBatch {self.num_games} games of {self.template}>"

    __repr__ = __str__

    # ------------------------------------------------------------------ episode
    def reset(self, *, seed: int | Any | None = None, options: dict[str, Any] | None = None):
        """Reset every game; returns ``(observations, {"live": mask})``.

        Args:
            seed: an int (game ``g`` gets ``derive_seed(seed, g)``), a sequence of one seed
                per game, or ``None`` (the next episode of each game's seed; random seeds
                on the first call).
        """
        games = self.num_games
        if seed is None:
            if not self._started:
                self._seeds[:] = self._rng.integers(0, 2**63, size=games, dtype=np.uint64)
                self._episodes[:] = 0
                self._next_for[:] = -1
            else:
                self._episodes += 1
        else:
            self._seeds[:] = np.array(game_seeds(seed, games, self), dtype=np.uint64)
            self._episodes[:] = 0
            self._next_for[:] = -1  # drawn for the old seeds
        self._started = True
        self._start_episodes(self._rows)
        obs = self._obs.copy() if self.copy else self._obs
        return obs, {"live": self._live.copy()}

    def _draw_starts(self, games: np.ndarray, episodes: np.ndarray) -> None:
        """Draw the start of episode ``episodes[i]`` of game ``games[i]`` into the look-ahead."""
        keys = core.episode_keys(self._seeds[games], episodes)
        cells, headings = core.spawn(keys, self._padded_walls, self.num_snakes, self.snake_length)
        codes = np.broadcast_to(self._walls_flat, (len(games), self._size)).copy()
        rows = np.arange(len(games))[:, None]
        codes[rows[..., None], cells] = (self._part_codes + BODY)[None, :, None]
        codes[rows, cells[:, :, 0]] = self._part_codes + HEAD
        codes[rows, cells[:, :, -1]] = self._part_codes + TAIL
        core.place_fruits(
            codes, keys, np.zeros(len(games), np.uint64), np.full(len(games), self.num_fruits), self._free_cells
        )
        self._next_keys[games], self._next_codes[games] = keys, codes
        self._next_cells[games], self._next_headings[games] = cells, headings
        self._next_for[games] = episodes

    def _start_episodes(self, games: np.ndarray) -> None:
        """Start episode ``self._episodes[g]`` of each game ``g`` in ``games``."""
        missing = games[self._next_for[games] != self._episodes[games]]
        if len(missing):
            # Draw these, and the next episode of every other game whose look-ahead is used up.
            others = np.ones(self.num_games, dtype=bool)
            others[games] = False
            ahead = np.flatnonzero(others & (self._next_for != self._episodes + 1))
            episodes = np.concatenate([self._episodes[missing], self._episodes[ahead] + 1])
            self._draw_starts(np.concatenate([missing, ahead]), episodes)
        self._load(games)

    def _load(self, games: np.ndarray) -> None:
        length = self.snake_length
        cells = self._next_cells[games]
        self._keys[games] = self._next_keys[games]
        self._codes[games] = self._next_codes[games]
        self._ring[games, :, :length] = cells[:, :, ::-1]
        self._head_at[games] = length - 1
        self._length[games] = length
        self._headings[games] = self._next_headings[games]
        self._view_heads[games] = cells[:, :, 0]
        self._head[games] = cells[:, :, 0]
        self._live[games] = True
        self._steps[games] = 0
        self._buffer[games] = self._frames(games)[..., None]

    def _frames(self, games: np.ndarray) -> np.ndarray:
        """The packed view of every snake in ``games``: ``(len(games), snakes, h * w)`` uint64."""
        codes = self._codes[games]
        if self.vision_range is None:
            view = codes[:, self._map_cells]
            return self._lut[self._snake_ids[None, :, None], view[:, None, :]]
        reach, wp = self.vision_range, self._wp
        side = np.arange(-reach, reach + 1)
        heads = self._view_heads[games]
        cells = heads[:, :, None, None] + side[None, None, :, None] * wp + side[None, None, None, :]
        view = np.take_along_axis(codes, cells.reshape(len(games), -1), 1).reshape(cells.shape)
        return self._lut[self._snake_ids[None, :, None, None], view].reshape(len(games), self.num_snakes, -1)

    # --------------------------------------------------------------------- step
    def step(self, actions: Any):
        """Move every live snake of every game; see the class docstring for what comes back.

        Raises:
            ResetNeeded: before the first :meth:`reset`.
            InvalidActionError: ``actions`` is not an integer array of shape
                ``(num_games, num_snakes)`` with entries in 0..2.
        """
        if not self._started:
            raise ResetNeeded(f"{self}: step() called before reset()")
        actions = np.asarray(actions)
        if actions.shape != self._live.shape or actions.dtype.kind not in "iu":
            raise InvalidActionError(
                f"{self}: actions must be an integer array of shape {self._live.shape}, "
                f"got {actions.dtype} array of shape {actions.shape}"
            )
        if actions.size and (actions.min() < 0 or actions.max() > 2):
            raise InvalidActionError(
                f"{self}: actions must lie in 0..2 (left, straight, right), "
                f"got values from {actions.min()} to {actions.max()}"
            )
        snakes = self.num_snakes
        live, cap = self._live, self._capacity
        codes, ring = self._codes.reshape(-1), self._ring.reshape(-1)
        head = self._head
        headings = np.where(live, (self._headings + actions + 3) & 3, self._headings)
        self._headings = headings
        target = head + self._offsets[headings]
        found = codes[self._code_base + target]

        crowded = self._crowded(target, live)
        eat = live & (found == FRUIT) & ~crowded
        owner = self._owner_of[found]
        owner_seat = self._seat - self._snake_ids + owner
        deadly = self._hard[found] | (self._is_tail[found] & eat.reshape(-1)[owner_seat])
        died = live & (crowded | deadly)
        swap = self._is_head[found] & (target.reshape(-1)[owner_seat] == head)
        credit = live & deadly & self._is_snake[found] & (owner != self._snake_ids) & ~swap
        kills = np.bincount(owner_seat[credit], minlength=live.size).reshape(live.shape)
        survivors = live & ~died
        alive_count = survivors.sum(axis=1)
        table = self.reward_dict
        rewards = (table["fruit"] * eat).astype(np.float32)
        for key, flags in (("lose", died), ("time", survivors), ("kill", kills)):
            if table[key]:
                rewards += table[key] * flags
        if table["win"] and snakes > 1:
            rewards += table["win"] * (survivors & (alive_count == 1)[:, None])

        # The grid, in an order that keeps every write right: vanish, neck, tail, head.
        changed: list[np.ndarray] = []  # flat cells (game * size + cell)
        dead = np.flatnonzero(died)
        if len(dead):
            lengths = self._length.reshape(-1)[dead]
            back = np.arange(int(lengths.max()))
            slots = (self._head_at.reshape(-1)[dead][:, None] - back) % cap
            keep = back < lengths[:, None]
            gone = (ring[dead[:, None] * cap + slots] + (dead // snakes * self._size)[:, None])[keep]
            codes[gone] = EMPTY
            changed.append(gone)
        seats = np.flatnonzero(survivors)
        s_base = seats // snakes * self._size
        s_code = self._part_codes[seats % snakes]
        s_head = head.reshape(-1)[seats] + s_base
        s_target = target.reshape(-1)[seats]
        s_eat = eat.reshape(-1)[seats]
        head_at, length = self._head_at.reshape(-1), self._length.reshape(-1)
        codes[s_head] = s_code + BODY
        tail_slot = (head_at[seats] - length[seats] + 1) % cap
        ring_at = seats * cap
        old_tail = ring[ring_at + tail_slot] + s_base
        moving = ~s_eat
        codes[old_tail[moving]] = EMPTY
        new_tail = ring[ring_at + (tail_slot + moving) % cap] + s_base
        codes[new_tail] = s_code + TAIL
        head_slot = (head_at[seats] + 1) % cap
        head_at[seats] = head_slot
        ring[ring_at + head_slot] = s_target
        length[seats] += s_eat
        codes[s_target + s_base] = s_code + HEAD
        self._view_heads.reshape(-1)[seats] = s_target
        self._head.reshape(-1)[seats] = s_target
        changed += [s_head, old_tail, new_tail, s_target + s_base]
        self._steps += 1

        eaters = np.flatnonzero(eat)
        if len(eaters):
            eaten = np.bincount(eaters // snakes, minlength=self.num_games)
            fed = np.flatnonzero(eaten)
            grids = self._codes[fed]
            fg, fc = core.place_fruits(
                grids, self._keys[fed], self._steps[fed].astype(np.uint64), eaten[fed], self._free_cells
            )
            self._codes[fed[fg], fc] = FRUIT
            changed.append(fed[fg] * self._size + fc)

        truncated_games = self._steps >= self.max_steps
        truncations = survivors & truncated_games[:, None]
        over = (alive_count == 0) | truncated_games
        self._update_views(survivors, dead, changed)

        ended = np.flatnonzero(over)
        infos: dict[str, Any] = {"acted": live}
        self._live = survivors
        if len(ended):
            infos["final_observation"] = self._obs[ended].copy()
            self._episodes[ended] += 1
            self._start_episodes(ended)
        infos["live"] = self._live.copy()
        infos["episode_over"] = over
        obs = self._obs.copy() if self.copy else self._obs
        return obs, rewards, died, truncations, infos

    def _crowded(self, target: np.ndarray, live: np.ndarray) -> np.ndarray:
        """Which live snakes share their target cell with another live snake."""
        snakes = self.num_snakes
        if snakes > 8:
            same = (target[:, :, None] == target[:, None, :]) & live[:, None, :]
            return live & (same.sum(axis=2) > 1)
        crowded = np.zeros(live.shape, dtype=bool)
        for i in range(snakes):  # a loop over pairs of snakes, each over all games at once
            for j in range(i + 1, snakes):
                meet = (target[:, i] == target[:, j]) & live[:, i] & live[:, j]
                crowded[:, i] |= meet
                crowded[:, j] |= meet
        return crowded

    def _update_views(self, survivors: np.ndarray, dead: np.ndarray, changed: list[np.ndarray]) -> None:
        """Bring the newest frame up to date: only the changed cells for the full map."""
        buffer, stack, snakes = self._buffer, self.frame_stack, self.num_snakes
        if stack > 1:
            buffer[..., :-1] = buffer[..., 1:]
        if self.vision_range is not None:
            buffer[..., -1] = self._frames(self._rows)
            buffer[~survivors] = 0
            return
        buffer.reshape(-1, self._view_size * stack)[dead] = 0
        cells = np.concatenate(changed)
        games, cell = np.divmod(cells, self._size)
        codes = self._codes.reshape(-1)[cells]
        if self._masked_lut is not None and self._watcher_bits is not None:  # one lookup: every watcher's channels
            watchers = survivors.astype(np.int64) @ self._watcher_bits
            values = self._masked_lut[codes.astype(np.int64) * (1 << snakes) + watchers[games]]
        else:
            values = self._lut_by_code[codes] * survivors[games]
        first = (games * (snakes * self._view_size) + self._cell_to_view[cell]) * stack + stack - 1
        buffer.reshape(-1)[first[:, None] + self._observer_stride] = values

    def restart(self, games: Any) -> np.ndarray:
        """Abandon ``games`` and start each one's next episode now; returns their new observations.

        A trainer whose learner is out of a game ends that game for it, as the
        single-env bridge does.

        Raises:
            ResetNeeded: before the first :meth:`reset`.
        """
        if not self._started:
            raise ResetNeeded(f"{self}: restart() called before reset()")
        games = np.asarray(games, dtype=np.int64).reshape(-1)
        if len(games):
            self._episodes[games] += 1
            self._start_episodes(games)
        return self._obs[games].copy()

    # ---------------------------------------------------------------- helpers
    @property
    def live(self) -> np.ndarray:
        """The ``(num_games, num_snakes)`` mask of the snakes that act next (a copy)."""
        return self._live.copy()

    def map_codes(self, game: int) -> np.ndarray:
        """Game ``game``'s map as grid codes (see :mod:`envs.snake.core`), for tests and rendering."""
        pad = self._pad
        grid = self._codes[game].reshape(self._padded_walls.shape)
        return grid[pad : pad + self.height, pad : pad + self.width].copy()
