"""ViZDoom deathmatch as an arena env: one real engine per player, stepped in lockstep (or one alone with bots)."""

from __future__ import annotations

import math
import os
from collections.abc import Mapping, Sequence
from typing import Any

import numpy as np
from gymnasium import spaces

from arena.env import AgentID, MultiAgentEnv, StepResult
from arena.errors import EngineError, InvalidTypeError, InvalidValueError, ResetNeeded
from envs.vizdoom.engines import EngineGroup, free_port, import_vizdoom

__all__ = ["VizdoomDeathmatch", "BUTTONS", "SCENARIOS", "SCENARIO_STARTS", "TICRATE"]

TICRATE = 35  #: Doom's tics per second of game time
#: The binary buttons every player has, in the order of the action vector.
BUTTONS = ("ATTACK", "MOVE_FORWARD", "MOVE_BACKWARD", "MOVE_LEFT", "MOVE_RIGHT", "TURN_LEFT", "TURN_RIGHT")
#: Bundled maps: name -> the WAD file in ViZDoom's scenarios folder (its MAP01).
SCENARIOS = {"deathmatch": "multi_deathmatch.wad", "duel": "multi_duel.wad", "cig": "cig.wad"}
#: How many players and bots a bundled map has room for: its deathmatch starts (more telefrag at spawn).
SCENARIO_STARTS = {"deathmatch": 2, "duel": 2, "cig": 25}
_RESTARTS = 16  # map restarts at most in a reset until no player starts telefragged (see _restart)
_BOT_TICS = 8  # tics at most for added bots to enter the map
_MAX_TURN = 45.0  # degrees per tic a delta turn may ask for
# The screens ViZDoom renders (its ScreenResolution.RES_* names), checked before any engine starts.
RESOLUTIONS = (
    "160x120",
    "200x125",
    "200x150",
    "256x144",
    "256x160",
    "256x192",
    "320x180",
    "320x200",
    "320x240",
    "320x256",
    "400x225",
    "400x250",
    "400x300",
    "512x288",
    "512x320",
    "512x384",
    "640x360",
    "640x400",
    "640x480",
    "800x450",
    "800x500",
    "800x600",
    "1024x576",
    "1024x640",
    "1024x768",
    "1280x720",
    "1280x800",
    "1280x960",
    "1280x1024",
    "1400x787",
    "1400x875",
    "1400x1050",
    "1600x900",
    "1600x1000",
    "1600x1200",
    "1920x1080",
)


def _positive_int(where: str, name: str, value: Any, low: int = 1, high: int | None = None) -> int:
    if (
        isinstance(value, bool)
        or not isinstance(value, (int, np.integer))
        or value < low
        or (high is not None and value > high)
    ):
        bounds = f"an integer in {low}..{high}" if high is not None else f"an integer >= {low}"
        raise InvalidValueError(f"{where}: {name} must be {bounds}, got {value!r}")
    return int(value)


class VizdoomDeathmatch(MultiAgentEnv):
    """ViZDoom deathmatch: 1-4 players, each a real ViZDoom engine, networked on 127.0.0.1.

    ``reset`` starts one engine per player (the first hosts, the others join on a free
    UDP port chosen for this env) plus ``bots`` built-in bots, and ``close`` ends them;
    ``reset`` again restarts the map on the running engines (``new_episode``), which is
    much faster than starting new ones. All players act every step; a step is
    ``frame_skip`` tics, each tic one ``make_action`` per player issued concurrently.

    **Alone against bots** (``players=1``, ``bots`` >= 1), the fast training mode: one engine
    hosts the learner and the bots, with no network lockstep: a step is one
    ``make_action(action, frame_skip)`` (the action repeated ``frame_skip`` tics, the frags of
    those tics summed into the reward). Grey 160x120 screens (``screen_format="grey"``) are the
    cheapest the engine renders. See **Determinism** for its seeds.

    **Observation** per player, a ``Dict``:

    * ``"screen"``: ``Box(0, 255, (height, width, 3 or 1), uint8)``, the player's view
      (``screen_format="rgb"`` or ``"grey"``).
    * ``"variables"``: ``Box(-inf, inf, (len(game_variables),), float32)``, the chosen game
      variables (``HEALTH``, ``FRAGCOUNT``, ``SELECTED_WEAPON_AMMO`` ...) in that order.
    * ``"enemies"`` (when ``enemies=True``): ``Box(0, 1, (players + bots - 1, 5), float32)``
      from the engine's labels: one row per other player in view (never the observer's own
      body, which the labels of a network game list too; without bots, only a ``DoomPlayer``
      standing where a player stands counts), nearest (tallest on screen) first,
      ``[visible, centre x, centre y, width, height]`` as screen fractions; rows of players
      out of view are zero.
    * ``"radar"`` (when ``radar`` is on, by default with 2 or more players):
      ``Box(-1, 1, (players - 1, 3), float32)``, one row per
      other player in seat order: ``[1, bearing, distance]`` with the bearing from where the
      player faces in half-turns (``+0.5``: 90 degrees to its left, ``-0.5``: to its right) and
      the distance in map units / 4096 (clipped to 1), read from every engine's position and
      angle, seen or not (privileged information, for scripted agents; bots are not listed).

    **Action** per player: ``MultiBinary(7)``, the buttons :data:`BUTTONS` (attack, forward,
    backward, strafe left, strafe right, turn left, turn right), held for the whole step.
    With ``delta_turn=True`` it is a ``Dict`` of those ``"buttons"`` and ``"turn"``,
    ``Box(-45, 45, (1,), float32)``, degrees to turn per tic (the engine's delta button).

    **Reward**: ``frag_reward`` per frag gained (a kill +1; a suicide costs a frag, -1) plus
    ``death_reward`` per death. **Dead players** respawn on their own after about a second
    (``sv_forcerespawn``); meanwhile they keep acting (their actions do nothing) and
    ``infos[agent]["dead"]`` is true. ``infos[agent]`` also holds ``"frags"`` and ``"deaths"``,
    and with bots ``"bot_frags"``, each bot's frags this match (a list in the order they joined).
    **End**: every player terminates at the time limit (the match's rule end).

    **Maps** (``scenario``), ViZDoom's bundled multiplayer maps; every player starts alive with
    the same health on each (ViZDoom may drop a player entering a map onto another one's start,
    killing it: ``reset`` restarts the map until nobody was):

    * ``"cig"`` (the default): MAP01 of ``cig.wad``, the deathmatch map of the ViZDoom
      Competition at CIG 2016 (its limited-deathmatch track): 25 deathmatch starts, so 2-4
      players and bots; everyone starts and respawns with 100 health and a rocket launcher with
      10 rockets (the map's script); medikits, armour and rockets lie about.
    * ``"deathmatch"``: ``multi_deathmatch.wad``, a small room for exactly 2 players and **not a
      fair match**: its ACS script (map-wide variables shared by both players' ENTER scripts)
      puts the players at random spots of their halves, sets both to 15 health, and ends the
      map at ``player_1``'s first death, not at ``player_0``'s; ``player_0`` respawns with 100
      health while ``player_1`` keeps its 15. Play it with seats swapped (a tournament does).
    * ``"duel"``: ``multi_duel.wad``, for exactly 2 players: two ledges at the ends of a
      corridor whose slime floor kills; rocket launchers with 50 rockets, 100 health.

    **Determinism**: the seed goes to the engines (``-rngseed``) and the bots, but networked
    engines apply a player's input at a tic that depends on timing, so with 2 or more players
    the same seed and actions do not always give the same episode (``metadata["reproducible"]``
    is false); the screens differ within a few dozen tics. A lone player (``players=1``) has no
    network: the first episode on a new engine follows from the seed, but a running engine keeps
    its random state (spawn spots, bots) across map restarts whatever seed it is given. So with
    ``reproducible=True`` each ``reset(seed=...)`` starts a new engine (about 0.5 s against
    0.01 s for a map restart) and the same seed and actions give the same episode
    (``metadata["reproducible"]`` is then true); by default (for training) seeded resets restart
    the map. What arena seeds (agents, schedules) stays reproducible.

    Args:
        players: 1-4 players (``player_0`` hosts); 1 plays alone against ``bots`` (at least one).
        bots: built-in ViZDoom bots added to the match (0-8).
        scenario: ``"cig"``, ``"deathmatch"`` or ``"duel"`` (bundled maps, see **Maps**), or a
            path to a ``.wad`` (its MAP01).
        time_limit: seconds of game time per episode (35 tics a second); ``None`` takes
            the class attribute ``default_time_limit`` (60).
        frame_skip: tics per step (each one ``make_action`` per player).
        resolution: ``"160x120"``, ``"320x240"`` ... (ViZDoom's ``RES_*`` names).
        screen_format: ``"rgb"`` or ``"grey"``.
        game_variables: names of ``vizdoom.GameVariable`` members to observe.
        enemies: observe the enemies table (the scripted ``vizdoom_aim`` agent needs it).
        radar: observe where the other players are (``vizdoom_aim`` seeks them with it);
            ``None`` (the default): with 2 or more players (bots are not on it).
        delta_turn: add the delta turn to the action (a ``Box``).
        frag_reward, death_reward: the reward per frag and per death.
        connect_timeout: seconds for the engines to start and connect before
            :class:`~envs.vizdoom.engines.EngineError`.
        reproducible: a lone player's seeded resets start a new engine, so that episodes
            follow from their seeds (``players=1`` only; see **Determinism**).

    Example:
        >>> env = VizdoomDeathmatch(time_limit=1.0)  # engines start at reset, not here
        >>> env.possible_agents, env.action_space("player_0")
        (['player_0', 'player_1'], MultiBinary(7))
        >>> fast = VizdoomDeathmatch(players=1, bots=3, screen_format="grey")  # alone against 3 bots
        >>> fast.possible_agents, fast.observation_space("player_0")["screen"].shape
        (['player_0'], (120, 160, 1))
    """

    metadata = {
        "render_modes": ["rgb_array"],
        "name": "vizdoom_deathmatch",
        "render_fps": TICRATE,
        "real_time": True,
        "reproducible": False,
    }
    simultaneous = True  # every agent in play acts at every step
    env_name = "vizdoom_deathmatch"
    result_kind = "ranks"  # players place by their returns (frags)
    #: The ``time_limit`` when none is given (seconds); a test suite may shorten it.
    default_time_limit = 60.0
    training_options = frozenset({"time_limit"})  # the length of a match

    def __init__(
        self,
        players: int = 2,
        bots: int = 0,
        scenario: str = "cig",
        time_limit: float | None = None,
        frame_skip: int = 4,
        resolution: str = "160x120",
        screen_format: str = "rgb",
        game_variables: Sequence[str] = ("HEALTH", "ARMOR", "FRAGCOUNT", "SELECTED_WEAPON_AMMO"),
        enemies: bool = True,
        radar: bool | None = None,
        delta_turn: bool = False,
        frag_reward: float = 1.0,
        death_reward: float = 0.0,
        connect_timeout: float = 30.0,
        render_mode: str | None = None,
        reproducible: bool = False,
    ) -> None:
        where = "VizdoomDeathmatch"
        self.players = _positive_int(where, "players", players, 1, 4)
        self.bots = _positive_int(where, "bots", bots, 0, 8)
        if self.players == 1 and self.bots == 0:
            raise InvalidValueError(f"{where}: players=1 plays alone against built-in bots: bots must be 1-8, got 0")
        self.frame_skip = _positive_int(where, "frame_skip", frame_skip)
        if time_limit is None:
            time_limit = self.default_time_limit
        if (
            isinstance(time_limit, bool)
            or not isinstance(time_limit, (int, float))
            or not (math.isfinite(time_limit) and time_limit > 0)
        ):
            raise InvalidValueError(f"{where}: time_limit must be a positive number of seconds, got {time_limit!r}")
        self.time_limit = float(time_limit)
        if scenario not in SCENARIOS and not (isinstance(scenario, str) and scenario.endswith(".wad")):
            raise InvalidValueError(
                f"{where}: scenario must be one of {sorted(SCENARIOS)} or a path to a .wad file, got {scenario!r}"
            )
        if scenario in SCENARIO_STARTS and self.players + self.bots > SCENARIO_STARTS[scenario]:
            raise InvalidValueError(
                f"{where}: the {scenario!r} map has {SCENARIO_STARTS[scenario]} deathmatch starts, "
                f"too few for {self.players} players and {self.bots} bots"
            )
        self.scenario = scenario
        size = resolution.lower().split("x") if isinstance(resolution, str) else ()
        if len(size) != 2 or not all(part.isdigit() for part in size):
            raise InvalidValueError(f"{where}: resolution must be 'WIDTHxHEIGHT' such as '160x120', got {resolution!r}")
        self.resolution = f"{int(size[0])}x{int(size[1])}"
        if self.resolution not in RESOLUTIONS:
            raise InvalidValueError(
                f"{where}: resolution must be one ViZDoom renders, 160x120 to 1920x1080 "
                f"({', '.join(RESOLUTIONS)}), got {resolution!r}"
            )
        self.width, self.height = int(size[0]), int(size[1])
        if screen_format not in ("rgb", "grey"):
            raise InvalidValueError(f"{where}: screen_format must be 'rgb' or 'grey', got {screen_format!r}")
        self.screen_format = screen_format
        if isinstance(game_variables, str) or not all(isinstance(name, str) for name in game_variables):
            raise InvalidTypeError(
                f"{where}: game_variables must be a sequence of GameVariable names, got {game_variables!r}"
            )
        self.game_variables = tuple(name.upper() for name in game_variables)
        if radar is not None and not isinstance(radar, (bool, np.bool_)):
            raise InvalidTypeError(f"{where}: radar must be True, False or None, got {radar!r}")
        if radar and self.players == 1:
            raise InvalidValueError(
                f"{where}: radar=True needs other players to show (bots are not on it), got players=1; "
                "leave radar at None or False"
            )
        radar = self.players > 1 if radar is None else radar
        self.enemies, self.radar, self.delta_turn = bool(enemies), bool(radar), bool(delta_turn)
        if not isinstance(reproducible, (bool, np.bool_)):
            raise InvalidTypeError(f"{where}: reproducible must be True or False, got {reproducible!r}")
        if reproducible and self.players > 1:
            raise InvalidValueError(
                f"{where}: reproducible=True needs players=1 (networked engines apply inputs at tics "
                f"that depend on timing), got players={self.players}"
            )
        self.reproducible = bool(reproducible)
        if self.reproducible:
            self.metadata = {**self.metadata, "reproducible": True}
        for name, value in (
            ("frag_reward", frag_reward),
            ("death_reward", death_reward),
            ("connect_timeout", connect_timeout),
        ):
            if isinstance(value, bool) or not isinstance(value, (int, float)) or not math.isfinite(value):
                raise InvalidValueError(f"{where}: {name} must be a finite number, got {value!r}")
        if not connect_timeout > 0:
            raise InvalidValueError(f"{where}: connect_timeout must be positive, got {connect_timeout!r}")
        self.frag_reward, self.death_reward = float(frag_reward), float(death_reward)
        self.connect_timeout = float(connect_timeout)
        if render_mode not in (None, "rgb_array"):
            raise InvalidValueError(f"{where}: render_mode must be None or 'rgb_array', got {render_mode!r}")
        self.render_mode = render_mode

        self.possible_agents = [f"player_{i}" for i in range(self.players)]
        self.agents = []
        channels = 3 if screen_format == "rgb" else 1
        entries: dict[str, spaces.Space] = {
            "screen": spaces.Box(0, 255, (self.height, self.width, channels), np.uint8),
            "variables": spaces.Box(-np.inf, np.inf, (len(self.game_variables),), np.float32),
        }
        if self.enemies:
            entries["enemies"] = spaces.Box(0.0, 1.0, (self.players + self.bots - 1, 5), np.float32)
        if self.radar:
            entries["radar"] = spaces.Box(-1.0, 1.0, (self.players - 1, 3), np.float32)
        self.observation_spaces = {agent: spaces.Dict(entries) for agent in self.possible_agents}
        buttons = spaces.MultiBinary(len(BUTTONS))
        action = (
            spaces.Dict({"buttons": buttons, "turn": spaces.Box(-_MAX_TURN, _MAX_TURN, (1,), np.float32)})
            if self.delta_turn
            else buttons
        )
        self.action_spaces = {agent: action for agent in self.possible_agents}
        self._engines: EngineGroup | None = None
        self._acting: list[AgentID] | None = None
        self._last: dict[AgentID, dict[str, np.ndarray]] = {}

    @classmethod
    def match_options(cls, training_options: Mapping[str, Any]) -> dict[str, Any]:
        """The fast mode's options (``players=1``: alone against bots, one seat, no match to enter)
        without ``players``, ``bots`` and ``reproducible``: the 2-player match, on the screens, map,
        buttons, frame skip and time limit the agent trained with; other options as they are.

        Example:
            >>> VizdoomDeathmatch.match_options({"players": 1, "bots": 3, "screen_format": "grey"})
            {'screen_format': 'grey'}
            >>> VizdoomDeathmatch.match_options({"players": 3})
            {'players': 3}
        """
        options = dict(training_options)
        if options.get("players") == 1:
            for name in ("players", "bots", "reproducible"):
                options.pop(name, None)
        return options

    # ---------------------------------------------------------------- engines
    def _configure(self, vizdoom: Any, seed: int, port: int) -> Any:
        scenarios = vizdoom.scenarios_path
        wad = os.path.join(scenarios, SCENARIOS[self.scenario]) if self.scenario in SCENARIOS else self.scenario
        resolution = getattr(vizdoom.ScreenResolution, f"RES_{self.width}X{self.height}", None)
        if resolution is None:
            known = sorted(name[4:].lower() for name in dir(vizdoom.ScreenResolution) if name.startswith("RES_"))
            raise InvalidValueError(
                f"{self}: resolution {self.resolution!r} is not one ViZDoom renders; known: {', '.join(known)}"
            )
        try:
            variables = [getattr(vizdoom.GameVariable, name) for name in self.game_variables]
        except AttributeError as err:
            raise InvalidValueError(f"{self}: unknown game variable in {list(self.game_variables)}: {err}") from None
        buttons = [getattr(vizdoom.Button, name) for name in BUTTONS]
        if self.delta_turn:
            buttons.append(vizdoom.Button.TURN_LEFT_RIGHT_DELTA)
        timeout = max(1, round(self.time_limit * TICRATE))
        grey = self.screen_format == "grey"
        limit = math.ceil(self.connect_timeout) + 600  # the engine's own timeout crashes ViZDoom: ours comes first

        def configure(index: int, game: Any) -> None:
            game.set_doom_scenario_path(wad)
            game.set_doom_map("map01")
            game.set_mode(vizdoom.Mode.PLAYER)
            game.set_screen_resolution(resolution)
            game.set_screen_format(vizdoom.ScreenFormat.GRAY8 if grey else vizdoom.ScreenFormat.RGB24)
            game.set_render_hud(False)
            game.set_available_buttons(buttons)
            game.set_available_game_variables(variables)
            game.set_labels_buffer_enabled(self.enemies)
            game.set_episode_timeout(timeout)
            game.set_seed(seed)
            if index == 0:
                game.add_game_args(  # -host 1: a lone player's game, no network to wait on
                    f"-host {self.players} -port {port} -netmode 0 -deathmatch "
                    "+sv_forcerespawn 1 +sv_respawnprotect 1 +sv_spawnfarthest 1 +sv_nomonsters 1 "
                    f"+viz_connect_timeout {limit} +name player_0 +colorset 0"
                )
            else:
                game.add_game_args(
                    f"-join 127.0.0.1 -port {port} +viz_connect_timeout {limit} +name player_{index} +colorset {index}"
                )

        return configure

    def _start(self, seed: int) -> None:
        vizdoom = import_vizdoom(str(self))
        configure = self._configure(vizdoom, seed, free_port())
        self._engines = EngineGroup(configure, self.players, connect_timeout=self.connect_timeout, where=str(self))
        self._variables = [vizdoom.GameVariable.FRAGCOUNT, vizdoom.GameVariable.DEATHCOUNT]
        self._count = vizdoom.GameVariable.PLAYER_COUNT
        self._where = [vizdoom.GameVariable.POSITION_X, vizdoom.GameVariable.POSITION_Y, vizdoom.GameVariable.ANGLE]
        # The bots join after the players, so their frag counters are the next player numbers (host's view).
        first_bot = self.players + 1
        self._bot_frags = [
            getattr(vizdoom.GameVariable, f"PLAYER{k}_FRAGCOUNT") for k in range(first_bot, first_bot + self.bots)
        ]

    def _restart(self) -> None:
        """Restart the map on every engine (then add the bots) until no player starts dead.

        ViZDoom places each player entering a map on a deathmatch start drawn at random without
        looking whether another player already stands there, and the player arriving there kills the
        one standing (a telefrag: the victim reads -999900 health, 100 - 1000000, and respawns
        later, after the map's ENTER scripts ran, so not as the others start). That happens
        on the map a network game first starts, on restarts, and when bots join (a map restart drops
        them): with two players about half the time on the two-start maps (``deathmatch``,
        ``duel``), less on ``cig``. So the map restarts (a few tens of milliseconds) until nobody has
        been killed at the start.
        """
        engines = self._running()
        games = engines.games
        idle = [0.0] * (len(BUTTONS) + self.delta_turn)
        for _ in range(_RESTARTS):
            engines.map(lambda game: game.new_episode())
            if self.bots:
                host = games[0]
                host.send_game_command("removebots")
                for _ in range(self.bots):
                    host.send_game_command("addbot")
                for _ in range(_BOT_TICS):  # they enter at the next tics
                    engines.act([idle] * self.players, 1)
                    if host.get_game_variable(self._count) >= self.players + self.bots:
                        break
            if not any(game.is_player_dead() for game in games):
                return
        raise EngineError(
            f"{self}: a player was killed on its spawn spot (a telefrag) at each of "
            f"{_RESTARTS} map restarts; the map may have too few deathmatch starts for "
            f"{self.players} players and {self.bots} bots"
        )

    @property
    def engine_pids(self) -> list[int]:
        """The PIDs of this env's running engines (empty before ``reset`` and after ``close``)."""
        return self._engines.pids() if self._engines is not None else []

    # --------------------------------------------------------------- dynamics
    def reset(
        self, *, seed: int | None = None, options: dict[str, Any] | None = None
    ) -> tuple[dict[AgentID, Any], dict[AgentID, dict[str, Any]]]:
        """Start a new match: on new engines the first time (or after ``close``), else on the running ones.

        With ``reproducible=True``, each reset with a ``seed`` starts a new engine (see **Determinism**).

        Raises:
            EngineError: the engines did not start and connect within ``connect_timeout``.
            MissingDependencyError: ViZDoom is not installed (the ``vizdoom`` extra).
        """
        super().reset(seed=seed)
        engine_seed = int(self.np_random.integers(1, 2**31 - 1))
        if seed is not None and self.reproducible:
            # A running engine keeps its random state (spawn spots, bots) across new_episode
            # whatever seed it is given: only a new one plays the seed's episode.
            self._close_engines()
        if self._engines is None:
            self._start(engine_seed)
        else:  # the running engines restart the map together: much faster than new engines
            for game in self._engines.games:
                game.set_seed(engine_seed)
        self._restart()  # also on new engines: see _restart
        # The engine counts deaths since it started (map restarts keep them): a match's count from here.
        self._deaths_before = [int(game.get_game_variable(self._variables[1])) for game in self._running().games]
        self.agents = list(self.possible_agents)
        self._scores = [(0, 0)] * self.players
        observations, infos = self._observe()
        self._acting = list(observations)
        return observations, infos

    def step(self, actions: Mapping[AgentID, Any]) -> StepResult:
        """All players act for ``frame_skip`` tics.

        Edge cases: before ``reset`` or after the time limit, :class:`~arena.errors.ResetNeeded`;
        actions for other agents than ``agents``, :class:`~arena.errors.WrongAgentsError`; an
        action outside the space, :class:`~arena.errors.InvalidActionError` (nothing is sent).
        """
        self.check_actions(actions, self._acting)
        vectors = [self._vector(actions[agent]) for agent in self.possible_agents]
        try:
            self._running().act(vectors, self.frame_skip)
        except EngineError:
            self.close()  # the engines were killed: the next reset starts new ones
            raise
        before = self._scores
        observations, infos = self._observe()
        rewards = {}
        for i, agent in enumerate(self.possible_agents):
            (frags, deaths), (frags0, deaths0) = self._scores[i], before[i]
            rewards[agent] = self.frag_reward * (frags - frags0) + self.death_reward * (deaths - deaths0)
        finished = not observations
        terminations = {agent: finished for agent in self.possible_agents}
        truncations = {agent: False for agent in self.possible_agents}
        if finished:
            self.agents, self._acting = [], None
        else:
            self._acting = list(observations)
        return observations, rewards, terminations, truncations, infos

    def _running(self) -> EngineGroup:
        """The engines, which reset() starts."""
        if self._engines is None:
            raise ResetNeeded(f"{self}: the engines start in reset(); call reset() first")
        return self._engines

    def _vector(self, action: Any) -> list[float]:
        if self.delta_turn:
            return [float(b) for b in action["buttons"]] + [float(action["turn"][0])]
        return [float(b) for b in action]

    def _observe(self) -> tuple[dict[AgentID, Any], dict[AgentID, dict[str, Any]]]:
        games = self._running().games
        infos: dict[AgentID, dict[str, Any]]
        finished = games[0].is_episode_finished()
        # Every player's position and angle, from its own engine (the radar and the enemies table use them).
        where = (
            [[game.get_game_variable(v) for v in self._where] for game in games]
            if not finished and (self.radar or self.enemies)
            else []
        )
        observations, infos, scores = {}, {}, []
        bot_frags = [int(games[0].get_game_variable(v)) for v in self._bot_frags]
        for i, (agent, game) in enumerate(zip(self.possible_agents, games)):
            frags, deaths = (int(game.get_game_variable(v)) for v in self._variables)
            deaths -= self._deaths_before[i]
            scores.append((frags, deaths))
            dead = bool(game.is_player_dead())
            infos[agent] = {"frags": frags, "deaths": deaths, "dead": dead}
            if self.bots:
                infos[agent]["bot_frags"] = list(bot_frags)
            if finished:
                continue
            state = game.get_state()
            observation = self._last.get(agent) if state is None else self._convert(state, i, where)
            if observation is None:
                observation = self.observation_spaces[agent].sample()  # never happens in practice
                observation = {key: np.zeros_like(value) for key, value in observation.items()}
            self._last[agent] = observation
            observations[agent] = observation
        self._scores = scores
        if self.radar and observations:
            self._add_radar(where, observations)
        return observations, infos

    def _add_radar(self, where: list[list[float]], observations: dict[AgentID, Any]) -> None:
        for i, agent in enumerate(self.possible_agents):
            if agent not in observations:
                continue
            x, y, facing = where[i]
            rows = []
            for j, (other_x, other_y, _) in enumerate(where):
                if j != i:
                    bearing = (math.degrees(math.atan2(other_y - y, other_x - x)) - facing + 180.0) % 360.0 - 180.0
                    rows.append((1.0, bearing / 180.0, min(math.hypot(other_x - x, other_y - y) / 4096.0, 1.0)))
            observations[agent] = {**observations[agent], "radar": np.array(rows, np.float32)}

    def _convert(self, state: Any, index: int, where: list[list[float]]) -> dict[str, np.ndarray]:
        screen = state.screen_buffer
        if screen.ndim == 2:
            screen = screen[:, :, None]
        variables = np.asarray(state.game_variables if state.game_variables is not None else (), np.float32)
        observation: dict[str, np.ndarray] = {"screen": np.ascontiguousarray(screen, np.uint8), "variables": variables}
        if self.enemies:
            table = np.zeros((self.players + self.bots - 1, 5), np.float32)
            seen = [
                label
                for label in state.labels or ()
                if label.object_name == "DoomPlayer" and self._is_enemy(label, index, where)
            ]
            seen.sort(key=lambda label: -label.height)
            for row, label in zip(table, seen):
                row[:] = (
                    1.0,
                    (label.x + label.width / 2) / self.width,
                    (label.y + label.height / 2) / self.height,
                    label.width / self.width,
                    label.height / self.height,
                )
            np.clip(table, 0.0, 1.0, out=table)
            observation["enemies"] = table
        return observation

    def _is_enemy(self, label: Any, index: int, where: list[list[float]]) -> bool:
        """Whether a ``DoomPlayer`` label seen by player ``index`` is another player, alive or just killed.

        In a network game the labels buffer also lists the observer's own (unseen) body, at the
        bottom of its screen. A label standing where one of the engines' players stands is that
        player; any other is no player's (a body left behind), unless bots play (their positions
        are not known here, so such labels are kept).
        """

        def within(j: int, near: float) -> bool:
            x, y = where[j][0], where[j][1]
            return abs(label.object_position_x - x) < near and abs(label.object_position_y - y) < near

        # The observer's own position is exact (checked first: another player may stand or lie right
        # beside it); the others' come from their own engines, at the same tic.
        if within(index, 1.0):
            return False
        return self.bots > 0 or any(within(j, 16.0) for j in range(len(where)) if j != index)

    def render(self) -> np.ndarray | None:
        """``player_0``'s last screen (``render_mode="rgb_array"``), else ``None``."""
        if self.render_mode != "rgb_array" or "player_0" not in self._last:
            return None
        screen = self._last["player_0"]["screen"]
        return np.repeat(screen, 3, axis=2) if screen.shape[2] == 1 else screen.copy()

    # ------------------------------------------------------------------ close
    def _close_engines(self) -> None:
        engines, self._engines = getattr(self, "_engines", None), None
        if engines is not None:
            engines.close()

    def close(self) -> None:
        """End every engine (SIGKILL by PID for one that does not close); safe to call twice."""
        self._close_engines()
        self.agents, self._acting = [], None

    def __del__(self) -> None:
        try:
            self._close_engines()
        except Exception:  # noqa: BLE001 - at interpreter exit; the engines die with the process anyway
            pass

    def __getstate__(self) -> dict[str, Any]:
        # Engines belong to one process: a copy or an unpickled env starts its own at reset.
        state = dict(self.__dict__)
        state.update(_engines=None, _acting=None, agents=[], _last={})
        return state

    def __str__(self) -> str:
        return f"<VizdoomDeathmatch players={self.players} bots={self.bots} scenario={self.scenario!r}>"
