"""The multi-agent environment protocol.

An arena environment is Gymnasium-shaped and dict-valued. The one rule that covers
turns, simultaneous moves and everything in between (RLlib's rule): **the observation
dict holds exactly the agents that must act next**, and ``step`` must receive actions
for exactly those agents.
"""

from __future__ import annotations

import copy
from collections.abc import Mapping
from dataclasses import dataclass
from typing import Any

import numpy as np
from gymnasium import spaces
from gymnasium.utils import seeding

from arena.actions import ActionChecks
from arena.batch import GameBatch
from arena.errors import InvalidTypeError, InvalidValueError, UnknownAgentError

__all__ = [
    "MultiAgentEnv",
    "LegendEntry",
    "MultiAgentWrapper",
    "HoldsEnv",
    "AgentID",
    "StepResult",
    "has_hidden_information",
    "is_real_time",
    "match_options_of",
    "REAL_TIME_FPS",
    "factory_metadata",
    "factory_result_kind",
]

AgentID = str
#: What ``MultiAgentEnv.step`` returns: observations, rewards, terminations, truncations and infos, each by agent.
StepResult = tuple[
    dict[AgentID, Any],
    dict[AgentID, float],
    dict[AgentID, bool],
    dict[AgentID, bool],
    dict[AgentID, dict[str, Any]],
]


@dataclass(frozen=True)
class LegendEntry:
    """One entry of the key to an env's pictures (:meth:`MultiAgentEnv.render_legend`).

    Attributes:
        label: what it is, e.g. ``"bomb (its number: steps until it explodes)"``.
        picture: how ``render()`` in ``"rgb_array"`` mode draws it: an ``(H, W, 3)`` uint8 array.
        agent: the agent it draws, if it is one (the replay page adds that seat's entrant and side).
    """

    label: str
    picture: np.ndarray
    agent: AgentID | None = None


def _seed_int(env: Any, seed: Any) -> int:
    """``seed`` as a plain int (numpy integers and int subclasses pass), or arena's error naming the env."""
    if isinstance(seed, (bool, np.bool_)) or not isinstance(seed, (int, np.integer)):
        raise InvalidTypeError(
            f"{type(env).__name__}.reset: seed must be a non-negative integer or None, "
            f"got {type(seed).__name__} {seed!r}"
        )
    return int(seed)


class MultiAgentEnv(ActionChecks):
    """Base class of arena's multi-agent environments.

    Subclasses fill ``possible_agents``, ``observation_spaces`` and ``action_spaces``
    (dicts keyed by agent id) in ``__init__`` and implement :meth:`reset` and
    :meth:`step`. The spaces are built once, so ``observation_space(agent)`` returns
    the same object on every call. An env with sides also sets :attr:`teams`.

    Contract (see ``docs/architecture.md``):

    * ``reset`` returns ``(observations, infos)``; ``step`` returns
      ``(observations, rewards, terminations, truncations, infos)``.
    * ``observations`` holds exactly the agents that must act next; ``infos`` holds at
      least those agents, and ``infos[agent]["action_mask"]`` (int8, one entry per
      discrete action) carries legal actions where the env has them.
    * Rewards, terminations and truncations may name any live agent, acting or not.
      An agent whose termination or truncation is true leaves ``agents``; the episode
      is over when ``agents`` is empty.
    * With :attr:`teams`: a player out of play whose side can still win or lose stops
      acting (absent from the observations) but stays in ``agents`` until its side's
      outcome is decided, then gets the side's final reward and terminates with the others.

    Optional capabilities are declared here with their defaults, as Gymnasium declares
    ``metadata`` and ``spec``, so callers ask the env instead of probing it; an env that
    supports one overrides it:

    * :attr:`metadata`: ``"render_modes"``, ``"render_fps"``, ``"name"``, ``"real_time"``
      (a game on a clock, see :func:`is_real_time`) and ``"reproducible"`` (``False``: the
      same seed and actions may give another episode, so replays are watched, not verified);
    * :attr:`perfect_information`, :attr:`illegal_action`, :attr:`masked_actions`, :attr:`simultaneous`,
      :attr:`teams`, :attr:`team_outcome`, :attr:`result_kind`, :attr:`training_options`;
    * :meth:`action_names`, :meth:`observation_text`, :meth:`render_legend`, :meth:`side_view`,
      :meth:`team_scores`, :meth:`sample_hidden_state`, :meth:`clone`, :meth:`make_batch`
      (with :attr:`batchable`), :meth:`match_options`.

    That is the whole list: each is a plain class attribute or a method returning ``None`` (or
    raising :class:`NotImplementedError`) when unsupported. One thing is still probed with
    ``hasattr``: ``acting_agents``, which only :mod:`arena.agents.mcts` reads. A batch from
    :meth:`make_batch` declares its own turn model (:class:`arena.batch.GameBatch`'s ``turns``).

    Example:
        >>> import envs
        >>> env = envs.make("tic_tac_toe")
        >>> obs, infos = env.reset(seed=0)
        >>> list(obs)
        ['player_0']
        >>> obs, rewards, terms, truncs, infos = env.step({"player_0": 4})
        >>> list(obs)
        ['player_1']
    """

    # Not a ClassVar: wrappers and adapters set their own (Gymnasium's Env and Wrapper do the same).
    metadata: dict[str, Any] = {"render_modes": []}
    render_mode: str | None = None

    #: Keyword options that shape training but not the game an agent meets (an episode's length,
    #: reward terms). A trained agent's other recorded options are compared with the env it is
    #: loaded into, option by option where the env keeps the option as an attribute of the same
    #: name, and a difference is warned about (:func:`arena.training.trained.load_trained_agent`).
    training_options: frozenset[str] = frozenset()

    #: The sides, for an env that has them: team name -> the team's agent ids in seat order,
    #: every possible agent in exactly one team, teams in a fixed order (tournaments seat
    #: entrants by it). ``None`` for an env without sides (every agent for itself).
    teams: dict[str, tuple[AgentID, ...]] | None = None
    #: How the members of a team are scored (only read when ``teams`` is set):
    #: ``"shared"``: teammates win or lose together, so their episode returns are equal
    #: (``arena.testing.check_env`` verifies it); ``"individual"``: members earn their own
    #: rewards and the side is judged by its members' mean return.
    team_outcome: str = "shared"
    #: What a game's result is for ranking (:data:`arena.evaluation.results.RESULT_KINDS`):
    #: ``"outcome"`` (win, draw or loss: the players ranked first win, the others lose),
    #: ``"ranks"`` (the finishing order) or ``"return"`` (the amount, as poker's chips: players
    #: compare by mean return per game). Players are ranked by their returns, or with
    #: :meth:`team_scores` by those. Tournaments rate by it and their tables say which.
    result_kind: str = "ranks"
    #: ``True``: every agent asked to act gets ``infos[agent]["action_mask"]`` and the mask matters
    #: (turn-based board, card and dice games); the exports then put it where each peer library
    #: looks by default (PettingZoo's classic observation dict). ``False``: no masks, or all-legal ones.
    masked_actions: bool = False
    #: ``True``: every agent in play acts at every step, so the observations name them all (real-time
    #: games, rock-paper-scissors; PettingZoo's ``ParallelEnv``). Training reads it: a learner's seat in
    #: such an env without a batch of its own trains on a worker batch of single envs
    #: (:func:`arena.training.vectorised.choose_path`). ``False``: turns, or not declared.
    simultaneous: bool = False
    #: ``True``: turn-based and deterministic, and every agent sees the whole state (planners such
    #: as :class:`arena.agents.MCTSAgent` need it); ``False``: hidden information (cards, dice, fog),
    #: so a person's private observation is shown only to them; ``None``: not declared.
    perfect_information: bool | None = None
    #: What ``step`` does with an action the current mask forbids: ``"raise"``
    #: (:class:`IllegalActionError`) or ``"penalty"`` (the env documents a penalty and plays on).
    illegal_action: str = "raise"

    possible_agents: list[AgentID]
    agents: list[AgentID]
    observation_spaces: dict[AgentID, spaces.Space]
    action_spaces: dict[AgentID, spaces.Space]

    _np_random: np.random.Generator | None = None
    _np_seed: int | None = None  # a seed from reset() whose generator is built on first use

    # ----------------------------------------------------------------- spaces
    def observation_space(self, agent: AgentID) -> spaces.Space:
        """The observation space of ``agent`` (the same object on every call).

        Raises:
            UnknownAgentError: ``agent`` is not in ``possible_agents``.
        """
        try:
            return self.observation_spaces[agent]
        except (KeyError, TypeError):
            raise self._unknown_agent(agent) from None

    def action_space(self, agent: AgentID) -> spaces.Space:
        """The action space of ``agent`` (the same object on every call).

        Raises:
            UnknownAgentError: ``agent`` is not in ``possible_agents``.
        """
        try:
            return self.action_spaces[agent]
        except (KeyError, TypeError):
            raise self._unknown_agent(agent) from None

    def _unknown_agent(self, agent: object) -> UnknownAgentError:
        return UnknownAgentError(f"{self}: unknown agent {agent!r}; expected one of {list(self.possible_agents)}")

    # ---------------------------------------------------------------- dynamics
    def reset(
        self, *, seed: int | None = None, options: dict[str, Any] | None = None
    ) -> tuple[dict[AgentID, Any], dict[AgentID, dict[str, Any]]]:
        """Start a new episode.

        Subclasses call ``super().reset(seed=seed)`` first so that ``np_random`` is
        re-seeded when a seed is given (Gymnasium's rule: ``seed=None`` keeps the
        current generator, or seeds one from entropy on the first call).

        Returns:
            ``(observations, infos)``: observations for the agents that act first.
        """
        if seed is not None:
            if type(seed) is not int:
                seed = _seed_int(self, seed)
            if seed < 0:
                raise InvalidValueError(
                    f"{type(self).__name__}.reset: seed must be a non-negative integer, got {seed!r}"
                )
            # Built lazily: seeding costs more than a whole game of tic-tac-toe, and many
            # games never draw a random number.
            self._np_random, self._np_seed = None, seed
        return {}, {}

    def step(self, actions: Mapping[AgentID, Any]) -> StepResult:
        """Apply one action per acting agent.

        Edge cases every env honours (``arena.testing.check_env`` checks them):

        * before the first ``reset`` or after the episode ended: :class:`ResetNeeded`;
        * actions for any set of agents other than the keys of the last observations:
          :class:`WrongAgentsError`;
        * an action outside the agent's action space: :class:`InvalidActionError`;
        * an action the agent's current mask forbids: :class:`IllegalActionError`
          (unless the env documents a penalty variant).

        A rejected call changes nothing: the env can be stepped again with valid actions.
        """
        raise NotImplementedError

    def render(self) -> Any:
        """Render the current state according to ``render_mode`` (``None`` if unset)."""
        return None

    def sample_hidden_state(self, agent: AgentID, observation: Any, rng: np.random.Generator) -> MultiAgentEnv:
        """A copy of the game in progress as ``agent`` might believe it to be (a determinization).

        The capability behind information-set search (``arena.agents.MCTSAgent`` on poker and
        dice). An env with hidden information overrides it: the copy keeps what ``agent`` knows
        (the public history, and its own private information read from ``observation``, the
        observation the env last gave it) and draws everything else anew from ``rng`` (other
        players' cards or dice, undealt cards, the seed of future chance events), uniformly
        among the states consistent with that knowledge. It must never depend on the hidden
        values themselves: two games that ``agent`` cannot tell apart give equal copies for
        equal ``rng`` states. The copy steps like the env and never touches it.

        Args:
            agent: the agent whose view is kept (the one to act now).
            observation: that agent's current raw observation.
            rng: the sampler's only source of randomness.

        Raises:
            NotImplementedError: the env has no sampler (the default; ``MCTSAgent`` then needs
                ``perfect_information = True``).
        """
        raise NotImplementedError(f"{self} cannot sample its hidden state (sample_hidden_state is not implemented)")

    def close(self) -> None:
        """Release resources; safe to call more than once."""

    def team_scores(self) -> dict[str, float] | None:
        """The sides' scores that decide the outcome, for an env whose outcome is not its members' returns.

        ``None`` (the default): a side is judged by its members' returns (:attr:`team_outcome`).
        An env with :attr:`teams` may return side -> score instead (higher is better; MAgent2's
        battles count the soldiers alive); :func:`arena.play` reads it when the episode ends and
        ``Episode.team_ranks`` ranks the sides by it.
        """
        return None

    # ---------------------------------------------------------- capabilities
    def side_view(self) -> str | None:
        """The interface spec that shows one side of this team env as one picture (the replay page's side view).

        ``None`` (the default): no side view. An env with :attr:`teams` may name a registered
        interface that takes a side's ``Tuple`` of observations (``None`` for members that do not
        act) and gives planes, e.g. MAgent2's battlefield map ``"magent_grid_control(map_size=12)"``;
        the replay page builds it through the registry (``arena`` imports no interface), one per side.
        """
        return None

    def action_names(self, agent: AgentID) -> list[str] | None:
        """Names of ``agent``'s discrete actions, one per action; ``None`` (the default) when the
        env does not name them (they are listed by number).

        Example:
            >>> import envs
            >>> envs.make("tic_tac_toe").action_names("player_0")[:2], MultiAgentEnv().action_names("player_0")
            (['r0c0', 'r0c1'], None)
        """
        return None

    def render_legend(self) -> list[LegendEntry] | None:
        """The key to this env's pictures: what each colour or shape of ``render()`` is.

        ``None`` (the default): the pictures need no key. An env whose picture codes things by
        colour (whose agent is which colour, what a bomb or a power-up looks like) lists them; the
        replay page shows them beside the board, each agent with its entrant and side.
        """
        return None

    def observation_text(self, agent: AgentID, observation: Any) -> str | None:
        """``agent``'s ``observation`` as text a person can read (their cards, their dice); ``None``
        (the default) when the env has no text of its own (callers print the observation as is)."""
        return None

    def clone(self) -> MultiAgentEnv:
        """An independent copy of the env mid-game, which plays on exactly like the original.

        Planners (MCTS) call it for every simulation. The default is ``copy.deepcopy``; envs
        override it with a cheaper copy of their game state.
        """
        return copy.deepcopy(self)

    @classmethod
    def match_options(cls, training_options: Mapping[str, Any]) -> dict[str, Any]:
        """The options of the match an agent trained with ``training_options`` enters (default: the same).

        An env whose training mode is no match between agents maps it to one: ViZDoom alone against
        bots (``players=1``, one seat) maps to its 2-player match. ``arena train`` prints the
        ``arena tournament`` command with these options, and a trained agent entered in that match
        is not warned that it learned another game (:func:`arena.training.trained.trained_elsewhere`).

        Example:
            >>> MultiAgentEnv.match_options({"rounds": 5})
            {'rounds': 5}
        """
        return dict(training_options)

    def make_batch(self, num_games: int, **options: Any) -> GameBatch:
        """A batched version of this env: ``num_games`` games stepped in one call over arrays.

        Only envs with :attr:`batchable` true have one; it keeps the contract of
        :class:`arena.batch.GameBatch` (``docs/architecture.md``, "The batch contract").

        Raises:
            NotImplementedError: the env has no batched version (the default).
        """
        raise NotImplementedError(f"{self} has no batched version (no make_batch(num_games) method)")

    @property
    def batchable(self) -> bool:
        """Whether :meth:`make_batch` gives a batched version (the env's class overrides it).

        Example:
            >>> import envs
            >>> envs.make("connect_four").batchable, envs.make("kuhn_poker").batchable
            (True, False)
        """
        return type(self).make_batch is not MultiAgentEnv.make_batch

    # ------------------------------------------------------------- utilities
    @property
    def np_random(self) -> np.random.Generator:
        """The env's random generator, seeded by ``reset(seed=...)``."""
        if self._np_random is None:
            self._np_random, _ = seeding.np_random(self._np_seed)
            self._np_seed = None
        return self._np_random

    @property
    def unwrapped(self) -> MultiAgentEnv:
        """The innermost env (``self`` for an env that wraps nothing)."""
        return self

    @property
    def name(self) -> str:
        """A short name for messages: the registry name, or the class name."""
        return getattr(self, "env_name", type(self).__name__)

    def __str__(self) -> str:
        return f"<{type(self).__name__}>"

    def __repr__(self) -> str:
        return str(self)

    def __enter__(self) -> MultiAgentEnv:
        return self

    def __exit__(self, *exc: object) -> None:
        self.close()


class HoldsEnv:
    """Mixin for objects that hold the env they wrap or adapt as ``env`` (wrappers, the
    single-agent bridge, the PettingZoo, RLlib and Gymnasium adapters): rendering and
    closing are that env's. List it first among the bases so it wins over the other
    protocol's own ``render``/``close``."""

    env: Any

    def render(self) -> Any:
        """The held env's rendering (as its render mode does)."""
        return self.env.render()

    def close(self) -> None:
        """Close the held env."""
        self.env.close()


class MultiAgentWrapper(HoldsEnv, MultiAgentEnv):
    """Base of arena envs that wrap another arena env, like ``gymnasium.Wrapper``.

    It keeps the wrapped env as ``env`` and forwards what a wrapper does not change:
    ``render``, ``close`` (from :class:`HoldsEnv`), :attr:`unwrapped`, :attr:`np_random`, ``metadata``,
    ``render_mode``, ``perfect_information`` and ``illegal_action``; ``str()`` shows the stack.
    The other capabilities keep their defaults unless the wrapper forwards them (a wrapper
    that changes agents or actions cannot pass the env's names on unchecked). Subclasses set their agents and spaces and
    implement ``reset`` and ``step``.

    Args:
        env: the wrapped env.

    Raises:
        TypeError: ``env`` is not an arena env.

    Example:
        >>> import envs
        >>> class Quiet(MultiAgentWrapper):  # forwards everything it does not change
        ...     def reset(self, *, seed=None, options=None):
        ...         return self.env.reset(seed=seed, options=options)
        >>> wrapped = Quiet(envs.make("tic_tac_toe"))
        >>> str(wrapped), wrapped.unwrapped is wrapped.env
        ('<Quiet<TicTacToe>>', True)
    """

    def __init__(self, env: MultiAgentEnv) -> None:
        if not isinstance(env, MultiAgentEnv):
            raise InvalidTypeError(f"{type(self).__name__}: expected an arena.MultiAgentEnv, got {type(env).__name__}")
        self.env = env
        self.metadata = env.metadata
        self.render_mode = env.render_mode
        self.perfect_information = env.perfect_information
        self.illegal_action = env.illegal_action
        self.simultaneous = env.simultaneous
        self.result_kind = env.result_kind

    @property
    def unwrapped(self) -> MultiAgentEnv:
        return self.env.unwrapped

    @property
    def np_random(self) -> np.random.Generator:
        return self.env.np_random

    def team_scores(self) -> dict[str, float] | None:
        return self.env.team_scores()

    def __str__(self) -> str:
        return f"<{type(self).__name__}{self.env}>"


#: Frames a second from which a game counts as real-time (see :func:`is_real_time`).
REAL_TIME_FPS = 10


def has_hidden_information(env: MultiAgentEnv) -> bool:
    """Whether ``env`` declares hidden information (``perfect_information = False``).

    Example:
        >>> import envs
        >>> has_hidden_information(envs.make("kuhn_poker")), has_hidden_information(envs.make("tic_tac_toe"))
        (True, False)
    """
    return env.unwrapped.perfect_information is False


def is_real_time(env: MultiAgentEnv) -> bool:
    """Whether ``env`` is a real-time game, which a person cannot play by typing moves.

    A real-time game (Pong, Snake) advances on a clock, a move per frame. The env says so
    with ``metadata["real_time"]`` (true or false); without that key, an env animated at
    ``REAL_TIME_FPS`` frames a second or more (Gymnasium's ``metadata["render_fps"]``)
    counts as real-time, while turn-based games render at a frame or two a second, if at all.

    Example:
        >>> import envs
        >>> is_real_time(envs.make("tic_tac_toe")), is_real_time(envs.make("snake"))
        (False, True)
    """
    metadata = env.unwrapped.metadata or {}
    if "real_time" in metadata:
        return bool(metadata["real_time"])
    fps = metadata.get("render_fps")
    return isinstance(fps, (int, float)) and fps >= REAL_TIME_FPS


def match_options_of(env: Any, training_options: Mapping[str, Any]) -> dict[str, Any]:
    """The options of the match an agent trained on ``env`` with ``training_options`` enters
    (:meth:`MultiAgentEnv.match_options`; an env that declares none: the same options).

    Raises:
        InvalidTypeError: the env's ``match_options`` returned something other than a mapping.

    Example:
        >>> import envs
        >>> match_options_of(envs.make("pong_2p"), {"rounds": 5})
        {'rounds': 5}
    """
    game = getattr(env, "unwrapped", env)
    declared = getattr(game, "match_options", None)
    if declared is None:
        return dict(training_options)
    options = declared(dict(training_options))
    if not isinstance(options, Mapping):
        raise InvalidTypeError(
            f"{type(game).__name__}.match_options must return a mapping of env options, got {type(options).__name__}"
        )
    return dict(options)


def factory_result_kind(factory: Any) -> str:
    """The :attr:`~MultiAgentEnv.result_kind` an env factory declares, read without building an env
    (an arena env class declares it; any other factory gets the default, ``"ranks"``).

    Example:
        >>> import envs
        >>> factory_result_kind(type(envs.make("leduc_poker"))), factory_result_kind(envs.make)
        ('return', 'ranks')
    """
    if isinstance(factory, type) and issubclass(factory, MultiAgentEnv):
        return factory.result_kind
    return MultiAgentEnv.result_kind


def factory_metadata(factory: Any) -> Mapping[str, Any]:
    """The :attr:`~MultiAgentEnv.metadata` an env factory declares, read without building an env.

    An arena env class declares it at class level (``gymnasium.make`` reads an env class's
    ``metadata`` the same way); any other factory (a function) declares nothing: ``{}``.

    Example:
        >>> import envs
        >>> factory_metadata(type(envs.make("snake")))["real_time"], factory_metadata(envs.make)
        (True, {})
    """
    if isinstance(factory, type) and issubclass(factory, MultiAgentEnv):
        return factory.metadata
    return {}
