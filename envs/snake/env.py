"""Multi-snake on a grid: marlenv's rules, fixed and fast."""

from __future__ import annotations

from collections import deque
from collections.abc import Mapping, Sequence
from typing import Any

import numpy as np

from arena.env import MultiAgentEnv
from arena.errors import InvalidValueError, ResetNeeded
from envs.snake import core
from envs.snake.batched import SnakeBatch
from envs.snake.core import EMPTY, FRUIT, HEAD, TAIL, WALL
from envs.snake.rules import SnakeRules

__all__ = ["Snake"]


class Snake(SnakeRules, MultiAgentEnv):
    """Several snakes on one grid, moving at once; eat fruit, grow, do not crash.

    The rules are marlenv's ``Snake-v1`` (``observer="snake"``), with its bugs fixed:

    * **Reset**: walls from the map (by default a wall all round the border); the snakes
      are random self-avoiding walks of ``snake_length`` cells, heading away from their
      neck with a free cell in front; then ``num_fruits`` fruits on random empty cells.
    * **Action** (every live snake, every step): ``Discrete(3)``, relative to the heading:
      0 turn left, 1 straight on, 2 turn right (marlenv numbers them 1, 0, 2).
    * **Moves** are simultaneous. A snake dies when its head enters a wall (or leaves
      the map), a body cell, a head, or the tail of a snake that is growing this step;
      a tail that moves on is free to enter. Heads that meet (the same cell, or two
      heads swapping places) kill every snake involved. The snake whose body was entered
      by another snake's head gets ``kill`` (once per snake killed; none for running
      into oneself or for meeting heads); the dead one gets ``lose``. Dead snakes vanish
      from the grid at once and leave ``agents``.
    * **Fruit**: a snake whose head enters a fruit alone eats it, gets ``fruit`` and
      grows by one cell (its tail stays). Each eaten fruit is replaced on a random empty
      cell, so the count stays at ``num_fruits`` while there is room. When two heads meet
      on a fruit, the fruit stays.
    * **Other rewards**: ``time`` to every snake that survives a step; ``win`` to the
      last snake alive (with ``num_snakes > 1``) on every step it survives as the only one.
    * **End**: a snake that dies is terminated; when none is left, or after ``max_steps``
      steps (the survivors are truncated), the episode is over.

    **Observation** (each live snake): ``Box(0, on_value, (h, w, 8 * frame_stack), uint8)``,
    NHWC. ``(h, w)`` is the map, or the ``2 * vision_range + 1`` square centred on the
    snake's head (not rotated; cells outside the map read as walls). Each frame has 8
    channels (:data:`~envs.snake.core.CHANNELS`, marlenv's order): ``wall, fruit,
    other_head, other_body, other_tail, own_head, own_body, own_tail``; with
    ``frame_stack > 1`` the frames are concatenated on the channel axis, oldest first
    (the first observation repeats the reset frame).

    Fixes over marlenv 1.0.1: per-snake ``Discrete(3)`` (not ``Discrete(12)``); the
    episode is reproducible from ``reset(seed=...)``; no kill credit for running into
    oneself or for a head-on crash; fruits are placed on distinct cells, any empty cell
    can get one, and a head-on crash on a fruit does not add one; the view outside the
    map reads as wall.

    Args:
        height, width: the map size, walls included (ignored when ``walls`` is a map).
        num_snakes: the number of snakes (``snake_0`` ...), 1 to 84.
        snake_length: the starting length, at least 2.
        vision_range: ``None`` for the whole map, else the radius of the egocentric crop.
        frame_stack: the number of frames per observation.
        walls: ``None`` (border walls), or a map: a 2-D 0/1 array or a list of strings of
            ``#`` (wall) and ``.`` (free).
        reward_dict: the reward table with exactly the keys ``fruit``, ``kill``, ``lose``,
            ``time``, ``win`` (default: fruit 1.0, the others 0).
        num_fruits: fruits on the map (default ``round(0.8 * num_snakes)``, at least 1).
        max_steps: the step limit (marlenv's 10,000).
        on_value: the value of a set channel (1 like marlenv; 255 makes the observation
            an image to Stable-Baselines3's ``CnnPolicy``).
        render_mode: ``"ansi"`` or ``"rgb_array"`` (``cell_pixels`` pixels a cell).

    Raises:
        TypeError: an option that is not one of these.
        ValueError: an option out of its range (the message names it).

    Example:
        >>> env = Snake(height=10, width=10, num_snakes=2)
        >>> obs, infos = env.reset(seed=1)
        >>> sorted(obs), obs["snake_0"].shape
        (['snake_0', 'snake_1'], (10, 10, 8))
        >>> obs, rewards, terms, truncs, infos = env.step({"snake_0": 1, "snake_1": 1})
    """

    metadata = {"render_modes": ["ansi", "rgb_array"], "name": "snake", "render_fps": 10, "real_time": True}
    simultaneous = True  # every agent in play acts at every step
    result_kind = "ranks"  # snakes place by their returns
    env_name = "snake"

    def __init__(self, *, render_mode: str | None = None, **options: Any) -> None:
        # the game's options, their defaults and checks are SnakeRules' alone (its batch takes the same)
        super().__init__(**options)
        self._batch_options = options
        if render_mode not in (None, "ansi", "rgb_array"):
            raise InvalidValueError(
                f"{type(self).__name__}: render_mode must be None, 'ansi' or 'rgb_array', got {render_mode!r}"
            )
        self.render_mode = render_mode
        self.agents = []
        self._cells = bytearray(self._padded_walls.size)  # the game's grid, with numpy views on it
        self._link_views()

        self._bodies: list[deque[int]] = []
        self._view_heads: list[int] = []  # where each snake's crop is centred (its last head)
        self._headings: list[int] = []
        self._live: list[int] = []
        self._acting: list[str] | None = None
        self._frames: deque[np.ndarray] = deque(maxlen=self.frame_stack)
        self._last_obs: np.ndarray | None = None
        self._seed: int | None = None
        self._episode = 0
        self._key = np.zeros(1, dtype=np.uint64)
        self._steps = 0

    def make_batch(self, num_games: int, **options: Any) -> SnakeBatch:
        """``num_games`` games with this env's options, stepped together (:class:`~envs.snake.SnakeBatch`)."""
        return SnakeBatch(num_games, **{**self._batch_options, **options})

    # ----------------------------------------------------------------- episode
    def reset(self, *, seed: int | None = None, options: dict[str, Any] | None = None):
        """Start an episode; returns an observation for every snake.

        ``reset(seed=s)`` plays episode 0 of seed ``s``; a later ``reset()`` plays the
        next episode of the same seed (the first unseeded reset draws a seed).
        """
        super().reset(seed=seed)
        if seed is not None:
            self._seed, self._episode = int(seed), 0
        elif self._seed is None:
            self._seed, self._episode = int(self.np_random.integers(2**63)), 0
        else:
            self._episode += 1
        self._key = core.episode_keys([self._seed], [self._episode])
        cells, headings = core.spawn(self._key, self._padded_walls, self.num_snakes, self.snake_length)
        self._start([list(body) for body in cells[0]], headings[0].tolist())
        core.place_fruits(
            self._flat[None], self._key, np.zeros(1, np.uint64), np.array([self.num_fruits]), self._free_cells
        )
        return self._begin()

    def _start(self, bodies: Sequence[Sequence[int] | None], headings: Sequence[int]) -> None:
        """Lay the walls and the snakes (padded flat cells, head first; None for a dead snake)."""
        self._flat[:] = self._walls_flat
        self._bodies, self._headings, self._live = [], list(headings), []
        self._view_heads = [body[0] if body else self._pad * (self._wp + 1) for body in bodies]
        for index, body in enumerate(bodies):
            self._bodies.append(deque(body or ()))
            if body:
                self._live.append(index)
                head, part, tail = self._codes[index]
                self._flat[list(body)] = part
                self._flat[body[0]] = head
                self._flat[body[-1]] = tail
        self._steps = 0

    def _begin(self):
        self.agents = [self.possible_agents[i] for i in self._live]
        self._acting = list(self.agents)
        frame = self._frame()
        self._frames.clear()
        self._frames.extend([frame] * self.frame_stack)
        observations = self._observe()
        return observations, {agent: {} for agent in self.agents}

    def place(
        self,
        snakes: Sequence[Sequence[tuple[int, int]] | None],
        fruits: Sequence[tuple[int, int]] = (),
        *,
        seed: int | None = None,
    ):
        """Start an episode from a given position (for tests, puzzles and demos).

        Args:
            snakes: one entry per snake: its cells as ``(row, col)`` map coordinates, head
                first (the heading points from the second cell to the head), or ``None``
                for a snake that is out of play.
            fruits: the fruit cells.
            seed: seeds the later random draws (new fruits), as in :meth:`reset`.

        Returns:
            ``(observations, infos)`` like :meth:`reset`.

        Raises:
            ValueError: a wrong number of snakes, cells that are not neighbours, outside
                the map, on a wall, or taken twice.
        """
        where = f"{self}.place"
        if len(snakes) != self.num_snakes:
            raise InvalidValueError(f"{where}: expected {self.num_snakes} snakes (or None), got {len(snakes)}")
        given = core.parse_positions([s for s in snakes if s is not None], where)
        taken: set[tuple[int, ...]] = set()
        for cell in [c for s in given for c in s] + [tuple(f) for f in fruits]:
            r, c = cell
            if not (0 <= r < self.height and 0 <= c < self.width) or self.walls[r, c] or cell in taken:
                raise InvalidValueError(f"{where}: cell {cell} is outside the map, on a wall or taken twice")
            taken.add(cell)
        self.reset(seed=seed)
        pad, wp = self._pad, self._wp
        bodies: list[list[int] | None] = []
        headings = []
        cells = iter(given)
        for entry in snakes:
            if entry is None:
                bodies.append(None)
                headings.append(0)
                continue
            body = next(cells)
            bodies.append([(r + pad) * wp + c + pad for r, c in body])
            (r0, c0), (r1, c1) = body[0], body[1]
            headings.append([(-1, 0), (0, 1), (1, 0), (0, -1)].index((r0 - r1, c0 - c1)))
        self._start(bodies, headings)
        for r, c in fruits:
            self._grid[r + pad, c + pad] = FRUIT
        return self._begin()

    def step(self, actions: Mapping[str, Any]):
        """Move every live snake at once; see the class docstring for the rules.

        Raises:
            ResetNeeded, WrongAgentsError, InvalidActionError: as
            :meth:`MultiAgentEnv.step` describes; a rejected call changes nothing.
        """
        self.check_actions(actions, self._acting)
        acting = self._acting or []  # None: check_actions raised ResetNeeded
        cells, offsets, bodies, headings = self._cells, self._offsets, self._bodies, self._headings
        live = self._live
        targets: dict[int, int] = {}
        seen: set[int] = set()
        crowded: set[int] = set()
        for index, agent in zip(live, acting):
            heading = (headings[index] + int(actions[agent]) - 1) & 3
            headings[index] = heading
            target = bodies[index][0] + offsets[heading]
            targets[index] = target
            if target in seen:
                crowded.add(target)
            seen.add(target)
        eaters = [i for i in live if cells[targets[i]] == FRUIT and targets[i] not in crowded]
        kills = dict.fromkeys(live, 0)
        dead = []
        for index in live:
            target = targets[index]
            code = cells[target]
            died = target in crowded or code == WALL
            if code > FRUIT:
                owner, part = divmod(code - 3, 3)
                if part != TAIL or owner in eaters:  # a tail moves on unless its snake grows
                    died = True
                    swap = part == HEAD and targets.get(owner) == bodies[index][0]
                    if owner != index and not swap:
                        kills[owner] += 1
            if died:
                dead.append(index)
        survivors = [i for i in live if i not in dead] if dead else live
        winner = survivors[0] if len(survivors) == 1 and self.num_snakes > 1 else -1

        table = self.reward_dict
        rewards, terminations = {}, {}
        for index, agent in zip(live, acting):
            died = index in dead
            reward = table["lose"] if died else table["time"]
            if index in eaters:
                reward += table["fruit"]
            if kills[index]:
                reward += table["kill"] * kills[index]
            if index == winner:
                reward += table["win"]
            rewards[agent] = reward
            terminations[agent] = died

        # The grid, in an order that keeps every write right: vanish, neck, tail, head.
        for index in dead:
            self._flat[list(bodies[index])] = EMPTY
            bodies[index].clear()
        for index in survivors:
            cells[bodies[index][0]] = self._codes[index][1]
        for index in survivors:
            if index not in eaters:
                cells[bodies[index].pop()] = EMPTY
        for index in survivors:
            body = bodies[index]
            head, _, tail = self._codes[index]
            cells[body[-1]] = tail
            body.appendleft(targets[index])
            cells[targets[index]] = head
            self._view_heads[index] = targets[index]
        self._steps += 1
        if eaters:
            core.place_fruits(
                self._flat[None],
                self._key,
                np.array([self._steps], np.uint64),
                np.array([len(eaters)]),
                self._free_cells,
            )

        truncated = self._steps >= self.max_steps
        truncations = dict.fromkeys(acting, False)
        if truncated:
            for index in survivors:
                truncations[self.possible_agents[index]] = True
            survivors = []
        self._live = survivors
        self._frames.append(self._frame())
        if survivors:
            self.agents = [self.possible_agents[i] for i in survivors]
            self._acting = list(self.agents)
            observations = self._observe()
        else:
            self.agents = []
            self._acting = None
            self._stack()
            observations = {}
        infos: dict[str, dict[str, Any]] = {agent: {} for agent in acting}
        return observations, rewards, terminations, truncations, infos

    # Views of `_cells`: a copy (deepcopy, pickle) would turn each into an array of its own and
    # lose the link, so they are left out of the state and made again on the copy.
    _VIEWS = ("_flat", "_grid", "_map", "_windows")

    def _link_views(self) -> None:
        hp, wp = self._padded_walls.shape
        pad = self._pad
        self._flat = np.frombuffer(self._cells, dtype=np.uint8)
        self._grid = self._flat.reshape(hp, wp)
        self._map = self._grid[pad : pad + self.height, pad : pad + self.width]
        if self.vision_range is not None:
            side = 2 * self.vision_range + 1
            self._windows = np.lib.stride_tricks.sliding_window_view(self._grid, (side, side))

    def __getstate__(self) -> dict[str, Any]:
        return {key: value for key, value in self.__dict__.items() if key not in self._VIEWS}

    def __setstate__(self, state: dict[str, Any]) -> None:
        self.__dict__.update(state)
        self._link_views()

    # -------------------------------------------------------------- observing
    def _frame(self) -> np.ndarray:
        """This instant's 8 channels per observer, packed as uint64: ``(N, h, w)``."""
        if self.vision_range is None:
            return self._flat_lut.take(self._map + self._lut_rows)
        wp, reach = self._wp, self.vision_range
        heads = np.array(self._view_heads)
        windows = self._windows[heads // wp - reach, heads % wp - reach]
        return self._flat_lut.take(windows + self._lut_rows)

    def _stack(self) -> np.ndarray:
        if self.frame_stack == 1:
            frames = self._frames[-1][..., None]
        else:
            frames = np.stack(self._frames, axis=-1)
        self._last_obs = frames.view(np.uint8)
        return self._last_obs

    def _observe(self) -> dict[str, np.ndarray]:
        stacked = self._stack()
        names = self.possible_agents
        return {names[i]: stacked[i] for i in self._live}

    def observe(self, agent: str) -> np.ndarray:
        """``agent``'s observation of the latest state, also after it died (a copy).

        Raises:
            UnknownAgentError: ``agent`` is not a snake of this env.
            ResetNeeded: before the first reset.
        """
        index = self.possible_agents.index(agent) if agent in self.action_spaces else None
        if index is None:
            raise self._unknown_agent(agent)
        if self._last_obs is None:
            raise ResetNeeded(f"{self}: observe() called before reset()")
        return self._last_obs[index].copy()

    # ------------------------------------------------------------- utilities
    def render(self) -> str | np.ndarray | None:
        """``"ansi"``: the map as text (see :func:`~envs.snake.core.ansi_text`);
        ``"rgb_array"``: an RGB image, ``cell_pixels`` pixels a cell."""
        if self.render_mode == "ansi":
            return core.ansi_text(self._map, self.num_snakes)
        if self.render_mode == "rgb_array":
            return core.rgb_image(self._map, self.num_snakes, self.cell_pixels)
        return None

    def action_names(self, agent: str) -> list[str]:
        """``["left", "straight", "right"]``: turns relative to the snake's heading."""
        self.action_space(agent)
        return list(core.ACTION_NAMES)

    @property
    def steps(self) -> int:
        """Steps played in this episode."""
        return self._steps

    def snake_cells(self, agent: str) -> list[tuple[int, int]]:
        """The ``(row, col)`` map cells of ``agent``'s snake, head first (empty once dead)."""
        self.action_space(agent)
        wp, pad = self._wp, self._pad
        body = self._bodies[self.possible_agents.index(agent)] if self._bodies else ()
        return [(cell // wp - pad, cell % wp - pad) for cell in body]

    def heading(self, agent: str) -> int:
        """``agent``'s heading: 0 up, 1 right, 2 down, 3 left."""
        self.action_space(agent)
        return self._headings[self.possible_agents.index(agent)]

    def fruit_cells(self) -> list[tuple[int, int]]:
        """The ``(row, col)`` map cells holding a fruit."""
        return [(int(r), int(c)) for r, c in np.argwhere(self._map == FRUIT)]
