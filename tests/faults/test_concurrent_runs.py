"""Two tournaments started at once on one new results file (the real CLI, in subprocesses)."""

from __future__ import annotations

import sqlite3

from tests.faults.helpers import finish, start_cli

COMMON = ["tic_tac_toe", "--agents", "random,b=random", "--games", "6", "--progress", "none"]


def test_of_two_different_tournaments_on_a_new_file_exactly_one_is_accepted(tmp_path):
    db = tmp_path / "shared.sqlite"
    runs = [start_cli("tournament", *COMMON, "--seed", str(seed), "--db", str(db)) for seed in (1, 2)]
    done = [finish(run) for run in runs]
    codes = sorted(run.returncode for run in done)
    assert codes == [0, 2], [(run.returncode, run.stderr) for run in done]
    loser = next(run for run in done if run.returncode == 2)
    assert loser.stderr.count("\n") == 1 and "Traceback" not in loser.stderr, loser.stderr
    assert f"{db} holds a tournament with other rules (seed: stored" in loser.stderr
    assert "locked" not in loser.stderr
    with sqlite3.connect(db) as connection:
        assert connection.execute("SELECT COUNT(*) FROM games").fetchone() == (6,)


def test_two_identical_tournaments_at_once_share_the_file(tmp_path):
    db = tmp_path / "shared.sqlite"
    runs = [start_cli("tournament", *COMMON, "--seed", "3", "--db", str(db)) for _ in range(2)]
    done = [finish(run) for run in runs]
    assert [run.returncode for run in done] == [0, 0], [run.stderr for run in done]
    assert all("6 of 6 games stored" in run.stdout for run in done)
    with sqlite3.connect(db) as connection:
        assert connection.execute("SELECT COUNT(*) FROM games").fetchone() == (6,)


def _bind(path, seed, barrier, results):
    from arena.errors import TournamentMismatchError
    from arena.tournament import AgentSpec, ResultStore

    store = ResultStore(path)
    barrier.wait()  # both processes register their rules at the same moment
    try:
        store.bind({"env": "tic_tac_toe", "seed": seed}, [AgentSpec("random", "random", {})])
        results.put((seed, "accepted"))
    except TournamentMismatchError as err:
        results.put((seed, str(err)))
    finally:
        store.close()


def test_registering_rules_is_one_exclusive_step_even_at_the_same_instant(tmp_path):
    import multiprocessing

    context = multiprocessing.get_context("spawn")
    for round_ in range(2):
        path = tmp_path / f"race{round_}.sqlite"
        from arena.tournament import ResultStore

        ResultStore(path).close()  # the tables exist: only the rules race
        barrier, results = context.Barrier(2), context.Queue()
        racers = [context.Process(target=_bind, args=(str(path), seed, barrier, results)) for seed in (1, 2)]
        for racer in racers:
            racer.start()
        outcomes = dict(results.get(timeout=120) for _ in racers)
        for racer in racers:
            racer.join(timeout=60)
        assert sorted(outcome == "accepted" for outcome in outcomes.values()) == [False, True], outcomes
        assert "holds a tournament with other rules (seed: stored" in next(
            o for o in outcomes.values() if o != "accepted"
        )
