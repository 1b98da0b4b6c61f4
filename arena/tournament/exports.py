"""A finished tournament written out: :func:`summary` as plain data, :func:`export_result` to CSV or JSON.

Both read :func:`arena.tournament.analysis.analyse`, so an export holds the same standings,
with the same 95% intervals, as ``arena tournament``'s tables and ``arena report``.
"""

from __future__ import annotations

from pathlib import Path
from typing import Any

from arena.errors import InvalidValueError
from arena.runtime.store import write_csv, write_json
from arena.tournament.analysis import DEFAULT_BOOTSTRAP, analyse
from arena.tournament.result import TournamentResult

__all__ = ["summary", "export_result"]


def summary(result: TournamentResult, bootstrap: int = DEFAULT_BOOTSTRAP, seed: int = 0) -> dict[str, Any]:
    """Standings, pairings and exclusions as plain data (the JSON export's summary): the same
    rows and keys as ``arena report --json``.

    Example:
        >>> from arena.tournament import run_tournament
        >>> result = run_tournament("tic_tac_toe", ["random", 'rnd2=random{"seed": 5}'], games=4, seed=1)
        >>> sorted(summary(result))[:3]
        ['anchor', 'env', 'excluded']
    """
    report = analyse(result, bootstrap=bootstrap, seed=seed)
    order = {name: i for i, name in enumerate(result.entrants)}
    return {
        "env": report["env"],
        "excluded": result.excluded,
        "result_kind": report["result_kind"],
        "ranked_by": report["ranked_by"],
        "interval": report["interval"],
        "anchor": report["anchor"],
        "standings": report["standings"],
        "pairings": [row for row in report["pairwise"] if order[row["first"]] < order[row["second"]]],
        **(
            {"teams": {team: list(ids) for team, ids in result.teams.items()}, "members": report["members"]}
            if result.teams
            else {}
        ),
    }


def export_result(result: TournamentResult, path: str | Path, bootstrap: int = DEFAULT_BOOTSTRAP) -> None:
    """Write ``result``'s games to ``path``: ``.csv`` one row per game, ``.json`` the rules,
    entrants and games plus :func:`summary` (``bootstrap`` resamples for its Elo intervals).

    Raises:
        ValueError: another suffix.
    """
    suffix = Path(path).suffix.lower()
    if suffix not in (".csv", ".json"):
        raise InvalidValueError(f"tournament export: the file must end in .csv or .json, got {str(path)!r}")
    if suffix == ".csv":
        write_csv(path, result.games)
        return
    entrants = [
        {
            "name": name,
            "factory": spec.factory,
            "kwargs": spec.kwargs,
            "excluded": result.excluded.get(name),
            **({"members": [m.describe() for m in spec.members]} if spec.members else {}),
        }
        for name, spec in result.specs.items()
    ]
    document = {
        "rules": result.rules,
        "entrants": entrants,
        **summary(result, bootstrap=bootstrap),
        "games": result.games,
    }
    write_json(path, document)
