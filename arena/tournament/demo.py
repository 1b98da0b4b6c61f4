"""The demo tournament (``arena demo``): bundled connect four, bundled agents of graded strength.

Four entrants meet in a round-robin:

* ``random`` — :class:`arena.RandomAgent`;
* ``heuristic`` — the connect four heuristic (win, else block, else random);
* ``mcts`` — :class:`arena.agents.mcts.MCTSAgent` with a small search budget;
* ``mirrored`` — the heuristic behind an interface: it sees the board mirrored left-right
  (the registered interface ``rotate_board``) and its columns are mapped back by
  :class:`arena.AgtItfWrapper`. It should play exactly as well as ``heuristic``, which the
  tournament lets you check.
"""

from __future__ import annotations

from collections.abc import Callable
from pathlib import Path

from arena.specs.agents import AgentSpec
from arena.tournament.rules import TournamentRules
from arena.tournament.run import TournamentResult, run_tournament

__all__ = ["DEMO_ENV", "DEMO_AGENTS", "run_demo"]

DEMO_ENV = "connect_four"

DEMO_AGENTS = (
    AgentSpec("random", "random"),
    AgentSpec("heuristic", "connect_four_heuristic"),
    AgentSpec("mcts", "mcts", {"simulations": 100}),
    AgentSpec(
        "mirrored",
        "behind_interface",
        {
            "agent": "connect_four_heuristic",
            "interface": "rotate_board",
            "interface_kwargs": {"quarter_turns": 0, "mirror": True},
        },
    ),
)


def run_demo(
    out: str | Path = "arena-demo",
    *,
    games: int = 24,
    workers: int = 2,
    seed: int = 0,
    progress: Callable[[int, int], None] | None = None,
) -> TournamentResult:
    """Run the demo round-robin, storing games in ``out/results.sqlite`` and the picture in ``out/report.png``.

    Running it again resumes (nothing to play when it finished).

    Args:
        out: the output folder.
        games: games per pairing.
        workers: local worker processes.
        seed: the tournament seed.
        progress: see :func:`run_tournament`.
    """
    from arena.tournament.report import save_report

    out = Path(out)
    out.mkdir(parents=True, exist_ok=True)
    result = run_tournament(
        rules=TournamentRules.make(DEMO_ENV, list(DEMO_AGENTS), games=games, seed=seed, move_time_limit=5.0),
        workers=workers,
        db=out / "results.sqlite",
        progress=progress,
    )
    save_report(result, out / "report.png", title=f"arena demo: connect four, {len(result.games)} games")
    return result
