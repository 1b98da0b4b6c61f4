"""Training-time evaluation matches: quick seeded games of the learner against opponents, for learning
curves and promotion (the tournament's evaluation is :mod:`arena.tournament`; ratings are :mod:`arena.evaluation`).

:func:`match` plays the games one by one with :func:`arena.play` (any env, any agent);
:func:`match_batch` plays them all at once in the env's numpy batch (two-player
turn-based games that offer ``make_batch``, agents that act for many games at once),
one ``act_batch`` call per agent per move: the same games, many times faster;
:func:`match_sides` plays armies: each agent acts for every member of its side in one call
(a learner trained with ``control="shared"``).
"""

from __future__ import annotations

import copy
from collections.abc import Sequence
from dataclasses import dataclass, field

import numpy as np

from arena.agent_wrapper import AgtItfWrapper
from arena.agents.base import Agent
from arena.batch import AlternatingBatch, turn_model
from arena.batched_stack import stack_rows
from arena.env import AgentID, MultiAgentEnv
from arena.errors import InvalidValueError
from arena.play_loop import play
from arena.seeding import derive_seed
from arena.tournament.stats import score_rate
from arena.training.learner_arguments import team_members
from arena.training.pool import OpponentPool

__all__ = ["Score", "match", "match_batch", "match_sides", "can_match_batch"]


@dataclass
class Score:
    """Wins, draws and losses of one agent over a set of games.

    ``outcomes`` holds one value per game: 1 for a win, 0.5 for a draw, 0 for a loss.
    A win is a first rank that not every player shares; a draw is a first rank that all
    share (so in games of three or more, sharing first place with some is a win).

    Example:
        >>> Score([1.0, 0.5, 0.0, 1.0]).win_rate, Score([1.0, 0.5, 0.0, 1.0]).score
        (0.5, 0.625)
    """

    outcomes: list[float] = field(default_factory=list)

    @property
    def games(self) -> int:
        return len(self.outcomes)

    @property
    def wins(self) -> int:
        return sum(1 for o in self.outcomes if o == 1.0)

    @property
    def draws(self) -> int:
        return sum(1 for o in self.outcomes if o == 0.5)

    @property
    def losses(self) -> int:
        return sum(1 for o in self.outcomes if o == 0.0)

    @property
    def win_rate(self) -> float:
        return self.wins / self.games if self.outcomes else 0.0

    @property
    def score(self) -> float:
        """Wins plus half the draws, per game (0.0 before any game)."""
        return score_rate(self.wins, self.draws, self.games, empty=0.0)


def match(
    env: MultiAgentEnv,
    agent: Agent,
    opponent: Agent | OpponentPool,
    games: int,
    *,
    seed: int = 0,
    seats: Sequence[AgentID] | None = None,
    teammate: Agent | None = None,
) -> Score:
    """Play ``games`` seeded games of ``agent`` against ``opponent`` with :func:`arena.play`.

    The agent takes ``seats`` in turn (default: every seat of the env), so each seat is
    played equally often; the other seats go to the opponent (copies of it when there
    are several; a fresh draw from a pool for every game). Game ``i`` is seeded with
    ``derive_seed(seed, i)``, so the same call gives the same games. In an env with sides,
    ``teammate`` (copies of it) fills the other seats of the agent's side, and the result
    is its side's.

    Example:
        >>> import envs
        >>> from arena import RandomAgent
        >>> score = match(envs.make("tic_tac_toe"), RandomAgent(seed=1), RandomAgent(seed=2), 10)
        >>> score.games
        10
    """
    if games < 1:
        raise InvalidValueError(f"match: games must be at least 1, got {games!r}")
    possible = list(env.possible_agents)
    seats = possible if seats is None else list(seats)
    rng = np.random.default_rng(seed)
    copies: dict[tuple[int, int], Agent] = {}
    outcomes: list[float] = []
    for game in range(games):
        seat = seats[game % len(seats)]
        drawn = opponent.sample(rng) if isinstance(opponent, OpponentPool) else opponent
        lineup: dict[AgentID, Agent] = {}
        mates = [] if teammate is None else [a for a in team_members(env, seat) if a != seat]
        for slot, agent_id in enumerate(a for a in possible if a != seat and a not in mates):
            lineup[agent_id] = drawn if slot == 0 else copies.setdefault((id(drawn), slot), copy.deepcopy(drawn))
        for slot, agent_id in enumerate(mates if teammate is not None else []):
            mate = teammate if teammate is not None else agent  # (mates are empty without a teammate)
            lineup[agent_id] = mate if slot == 0 else copies.setdefault((id(mate), -slot), copy.deepcopy(mate))
        lineup[seat] = agent
        episode = play(env, lineup, seed=derive_seed(seed, game))
        ranks, side = episode.ranks, seat
        if env.teams:  # a side's result: its team's rank
            ranks, side = episode.team_ranks, next(t for t, ids in env.teams.items() if seat in ids)
        if ranks[side] != 1:
            outcomes.append(0.0)
        elif all(rank == 1 for rank in ranks.values()):
            outcomes.append(0.5)
        else:
            outcomes.append(1.0)
    return Score(outcomes)


def can_match_batch(
    env: MultiAgentEnv, agent: Agent, opponent: Agent | OpponentPool, teammate: Agent | None = None
) -> bool:
    """Whether :func:`match_batch` can play these games: a two-player turn-based env with a
    batch whose turns alternate (:func:`arena.batch.turn_model`), no sides or teammate, batchable agents.

    Pool members are looked at as they are now; a snapshot added later must be batchable
    too (the self-play snapshots are).

    Example:
        >>> import envs
        >>> from arena import RandomAgent
        >>> can_match_batch(envs.make("connect_four"), RandomAgent(), RandomAgent())
        True
    """
    if teammate is not None or env.teams or len(env.possible_agents) != 2 or not env.batchable:
        return False
    opponents = list(opponent) if isinstance(opponent, OpponentPool) else [opponent]
    if not agent.batchable or not all(member.batchable for member in opponents):
        return False
    return turn_model(env.make_batch(1)) == "alternating"


# match's parameters on purpose: the evaluation callback calls either with the same arguments.
def match_batch(
    env: MultiAgentEnv,
    agent: Agent,
    opponent: Agent | OpponentPool,
    games: int,
    *,
    seed: int = 0,
    seats: Sequence[AgentID] | None = None,
) -> Score:
    """:func:`match` with every game in one numpy batch (``env.make_batch(games)``).

    The games are :func:`match`'s: game ``i`` is seeded with ``derive_seed(seed, i)``,
    the agent takes ``seats[i % len(seats)]``, and a pool opponent is drawn for game ``i``
    from the same generator in the same order. Each move, the agent acts in every game
    where it is to move with one :meth:`~arena.Agent.act_batch` call, and each distinct
    opponent likewise in its games; each game is played once (the batch's auto-reset
    is ignored). Deterministic agents therefore play exactly :func:`match`'s games;
    agents that draw random numbers draw them in another order, so their games differ
    one by one but not in distribution. Rewards and ``done`` are not delivered to the
    agents (the batched path's rule); a game's result comes from the players' returns.

    Raises:
        ValueError: ``games`` below 1, or games this function cannot batch (see
            :func:`can_match_batch`).

    Example:
        >>> import envs
        >>> from arena import RandomAgent
        >>> match_batch(envs.make("connect_four"), RandomAgent(seed=1), RandomAgent(seed=2), 10).games
        10
    """
    if games < 1:
        raise InvalidValueError(f"match_batch: games must be at least 1, got {games!r}")
    if not can_match_batch(env, agent, opponent):
        raise InvalidValueError(
            f"match_batch: cannot batch {agent} against {opponent} on {env} (needs a two-player "
            "turn-based env with make_batch and agents that act in batches); use match()"
        )
    possible = list(env.possible_agents)
    seats = possible if seats is None else list(seats)
    rng = np.random.default_rng(seed)
    seat = np.array([possible.index(seats[game % len(seats)]) for game in range(games)], dtype=np.int64)
    players: list[Agent] = [agent]  # code 0 is the agent, then each distinct opponent
    codes: dict[int, int] = {id(agent): 0}
    opponent_code = np.empty(games, dtype=np.int64)
    for game in range(games):
        drawn = opponent.sample(rng) if isinstance(opponent, OpponentPool) else opponent
        opponent_code[game] = codes.setdefault(id(drawn), len(players))
        if opponent_code[game] == len(players):
            players.append(drawn)
    obs_space, act_space = env.observation_space(possible[0]), env.action_space(possible[0])
    for index, player in enumerate(players):
        if player.observation_space is not obs_space or player.action_space is not act_space:
            player.setup(obs_space, act_space)
        player.reset(seed=derive_seed(derive_seed(seed, games), index))
    batch = env.make_batch(games)
    if not isinstance(batch, AlternatingBatch):
        raise InvalidValueError(f"match_batch: {batch} is not a batch whose turns alternate (arena.batch)")
    board, infos = batch.reset(seed=seed)
    masks, to_play = infos["action_mask"], infos["to_play"].astype(np.int64)
    returns = np.zeros((games, 2))
    playing = np.ones(games, dtype=bool)
    while playing.any():
        movers = np.flatnonzero(playing)
        who = np.where(to_play[movers] == seat[movers], 0, opponent_code[movers])
        actions = np.empty(len(movers), dtype=np.int64)
        for code in np.unique(who).tolist():
            which = who == code
            actions[which] = players[code].act_batch(board[movers[which]], masks[movers[which]])
        observations, rewards, _, _, infos = batch.step(actions, games=movers)
        returns[movers] += rewards
        board[movers], masks[movers] = observations, infos["action_mask"]
        to_play[movers] = infos["to_play"]
        playing[movers[infos["episode_over"]]] = False  # the batch restarted them: not played again
    mine = returns[np.arange(games), seat]
    theirs = returns[np.arange(games), 1 - seat]
    return Score(np.where(mine > theirs, 1.0, np.where(mine == theirs, 0.5, 0.0)).tolist())


def match_sides(
    env: MultiAgentEnv, agent: Agent, opponent: Agent | OpponentPool, games: int, *, seed: int = 0
) -> Score:
    """Play ``games`` seeded games in an env with two sides, ``agent`` playing every member of one
    side (the sides in turn) and ``opponent`` every member of the other.

    Every step, a batchable player (:attr:`arena.Agent.batchable`) acts for all its side's live
    members in one ``act_batch`` call over their stacked observations; any other player plays each
    seat through a copy of its own (a model behind a stateful interface keeps one model and gets an
    interface per seat), as a tournament seats one entrant on a whole side. A pool gives a fresh
    draw every game. Game ``i`` is seeded with ``derive_seed(seed, i)``. The result
    is the sides' outcome: :meth:`~arena.MultiAgentEnv.team_scores` where the env has it, else each
    side's summed rewards; higher wins, equal is a draw.

    Raises:
        ValueError: ``games`` below 1, an env without two sides.

    Example::

        score = match_sides(envs.make("magent_battle"), trained, make_agent("magent_attack_nearest"), 10)
    """
    if games < 1:
        raise InvalidValueError(f"match_sides: games must be at least 1, got {games!r}")
    teams = env.teams or {}
    if len(teams) != 2:
        raise InvalidValueError(f"match_sides: {env} must have two sides (teams), got {list(teams)}")
    sides = list(teams)
    first = teams[sides[0]][0]
    spaces_ = (env.observation_space(first), env.action_space(first))
    rng = np.random.default_rng(seed)
    outcomes: list[float] = []
    for game in range(games):
        mine, theirs = sides[game % 2], sides[1 - game % 2]
        drawn = opponent.sample(rng) if isinstance(opponent, OpponentPool) else opponent
        players: dict[str, Agent | list[Agent]] = {}
        for side, player in ((mine, agent), (theirs, drawn)):
            if player.observation_space is not spaces_[0] or player.action_space is not spaces_[1]:
                player.setup(*spaces_)
            player.reset(seed=derive_seed(seed, game))
            players[side] = player if player.batchable else _seat_players(player, len(teams[side]), spaces_)
        scores = _play_sides(env, players, derive_seed(seed, game))
        outcomes.append(1.0 if scores[mine] > scores[theirs] else 0.5 if scores[mine] == scores[theirs] else 0.0)
    return Score(outcomes)


def _seat_players(player: Agent, seats: int, spaces_: tuple) -> list[Agent]:
    """One player per seat of a side for ``player``, which cannot act for the side at once: the
    player itself in the first seat, copies in the others (a model behind an interface is shared,
    each copy getting its own interface), set up and reset with the player's seed."""
    copies: list[Agent] = [player]
    for _ in range(seats - 1):
        if isinstance(player, AgtItfWrapper) and player.members is None:
            copies.append(AgtItfWrapper(player.agent, player.interface))  # claimed: a deep copy
        else:
            copies.append(copy.deepcopy(player))
    for copied in copies[1:]:
        copied.setup(*spaces_)
        copied.reset()
    return copies


def _play_sides(env: MultiAgentEnv, players: dict[str, Agent | list[Agent]], seed: int) -> dict[str, float]:
    """One game, each side's player acting for its live members (at once, or a player per seat);
    each side's outcome."""
    teams = env.teams or {}
    observations, _ = env.reset(seed=seed)
    totals = dict.fromkeys(teams, 0.0)
    side_of = {member: side for side, members in teams.items() for member in members}
    rewards: dict[AgentID, float] = {}
    while env.agents:
        actions: dict[AgentID, object] = {}
        for side, player in players.items():
            live = [member for member in teams[side] if member in observations]
            if not live:
                continue
            if isinstance(player, list):
                seat = {member: i for i, member in enumerate(teams[side])}
                chosen = [player[seat[m]].act(observations[m], reward=float(rewards.get(m, 0.0))) for m in live]
            else:
                # dict observations (Pommerman's) as one dict of stacked arrays, as a batch hands them out
                chosen = list(player.act_batch(stack_rows([observations[member] for member in live])))
            actions.update((m, int(a) if np.ndim(a) == 0 else a) for m, a in zip(live, chosen))
        observations, rewards, _, _, _ = env.step(actions)
        for member, reward in rewards.items():
            totals[side_of[member]] += float(reward)
    scores = env.team_scores()
    return dict(scores) if scores else totals
