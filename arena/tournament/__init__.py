"""Head-to-head evaluation: tournaments with fair seating, honest statistics and ratings.

The entry point is :func:`run_tournament`::

    >>> from arena.tournament import run_tournament
    >>> result = run_tournament("tic_tac_toe", ["random", 'rnd2=random{"seed": 5}'], games=10, seed=1)
    >>> result.pairings["random", "rnd2"].games
    10

Options beyond the common ones are the parts a tournament is made of: its rules, where it runs
and when it stops::

    >>> rules = TournamentRules.make("tic_tac_toe", ["random", "rnd2=random"], games=4, move_time_limit=5.0)
    >>> result = run_tournament(rules=rules, execution=Execution.make("serial"), stopping=Stopping())
    >>> result.scheduled
    4

Modules: :mod:`~arena.tournament.run` (:func:`run_tournament`), :mod:`~arena.tournament.rules`
(what is played, where), :mod:`~arena.tournament.session` (the results file and the rounds), :mod:`~arena.tournament.stopping` (fixed, SPRT, until separated),
:mod:`~arena.tournament.result` (:class:`TournamentResult`),
:mod:`~arena.tournament.evaluation_inputs` (stored games as inputs of :mod:`arena.evaluation`),
:mod:`~arena.tournament.schedule` (lineups, seatings, seeds, filling seats),
:mod:`~arena.tournament.stats` (W/D/L, Wilson intervals), :mod:`~arena.tournament.ratings`
(openskill), :mod:`~arena.tournament.report` (the picture), :mod:`~arena.tournament.demo`.
Each game is played and stored by :mod:`arena.runtime` (one game under guard, the results file).
"""

from arena.runtime.game import GameConfig, GameResult, GameRunner, GameTask
from arena.runtime.store import ResultStore
from arena.specs.agents import AgentSpec, parse_agents
from arena.specs.envs import EnvSpec
from arena.tournament.exports import export_result, summary
from arena.tournament.ratings import Rating, rate_games
from arena.tournament.rules import Execution, TournamentRules
from arena.tournament.run import TournamentResult, run_tournament
from arena.tournament.schedule import Lineup, make_schedule, seatings_for
from arena.tournament.stats import PairingStats, pairing_stats, wilson_interval
from arena.tournament.stopping import Stopping

__all__ = [
    "AgentSpec",
    "EnvSpec",
    "Execution",
    "GameConfig",
    "GameResult",
    "GameRunner",
    "GameTask",
    "Lineup",
    "PairingStats",
    "Rating",
    "ResultStore",
    "Stopping",
    "TournamentResult",
    "TournamentRules",
    "make_schedule",
    "pairing_stats",
    "parse_agents",
    "rate_games",
    "run_tournament",
    "export_result",
    "summary",
    "seatings_for",
    "wilson_interval",
]
