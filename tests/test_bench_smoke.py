"""The benchmarks that docs/performance.md quotes still run (tiny sizes: this checks that they work, not speed)."""

from __future__ import annotations

import importlib
import json
import os
import pathlib
import re
import shutil
import subprocess
import sys

import numpy as np
import pytest

import arena

ROOT = pathlib.Path(__file__).resolve().parent.parent


def _bench_module(name: str):
    """Import ``bench/<name>.py`` (the benchmarks are scripts, not a package)."""
    sys.path.insert(0, str(ROOT / "bench"))
    try:
        return importlib.import_module(name)
    finally:
        if str(ROOT / "bench") in sys.path:  # a bench that reads ViZDoom takes bench/ off itself
            sys.path.remove(str(ROOT / "bench"))


def _bench(*args: str) -> str:
    # A script's own folder heads sys.path, not the checkout: name the checkout, so the bench runs
    # this tree's code (and numba's cache beside it), not an installed copy's.
    path = os.pathsep.join(filter(None, [str(ROOT), os.environ.get("PYTHONPATH")]))
    done = subprocess.run(
        [sys.executable, *args],
        capture_output=True,
        text=True,
        cwd=ROOT,
        timeout=300,
        env={**os.environ, "PYTHONPATH": path},
    )
    assert done.returncode == 0, done.stderr
    return done.stdout


def _bench_here(monkeypatch, capsys, script: str, *args: str) -> str:
    """Run ``script`` as ``__main__`` in this process, as Python runs a script; returns what it printed.

    For the benches that train with torch: a new interpreter imports torch and, with the first
    optimizer, ``torch._dynamo`` again, about 4 s of CPU a bench (docs/performance.md, "CI"). Besides
    ``sys.argv`` and ``sys.path``, they set torch's thread count, which is put back; multiprocessing
    benches stay in :func:`_bench` (their workers could not import what ``__main__`` defines here).
    """
    import runpy

    torch = pytest.importorskip("torch")
    threads = torch.get_num_threads()
    monkeypatch.setattr(sys, "argv", [script, *args])
    monkeypatch.syspath_prepend(str(ROOT / "bench"))  # a script's own folder heads sys.path
    try:
        runpy.run_path(str(ROOT / script), run_name="__main__")
    except SystemExit as ended:
        assert ended.code in (0, None), capsys.readouterr().err
    finally:
        torch.set_num_threads(threads)
    return capsys.readouterr().out


def test_interface_overhead_bench_compares_obs_and_action_levels_with_gymnasium():
    out = _bench("bench/interface_overhead.py", "--steps", "2000", "--rounds", "2", "--no-supersuit", "--no-realistic")
    assert "arena EnvItfWrapper, 3 trivial obs+action levels x 2 agents" in out
    assert "gymnasium, 3 wrappers with the same hooks, 1 agent" in out
    assert "trivial obs+action levels: arena overhead / gymnasium overhead: " in out
    assert out.startswith("machine: ") and " CPUs, L2 " in out.splitlines()[0]  # the figures carry their machine


def test_games_bench_times_random_games_beside_the_peers_and_names_its_machine():
    out = _bench("bench/games.py", "--games", "tic_tac_toe", "--seconds", "0.02", "--repeat", "2")
    lines = out.splitlines()
    assert lines[0].startswith("machine: ") and " CPUs, L2 " in lines[0]
    assert re.fullmatch(r"tic_tac_toe +arena +[\d,]+ +1\.00", lines[2]), out
    assert re.search(r"^tic_tac_toe +pettingzoo +([\d,]+ +\d+\.\d\d|not installed)$", out, re.MULTILINE), out


def test_the_interface_overhead_headline_levels_are_a_users_with_the_gymnasium_wrappers_hooks():
    levels = _bench_module("interface_overhead_levels")
    from arena import EnvItfWrapper, Interface

    assert "annotations" not in vars(levels)  # no `from __future__ import annotations`, as in a user's module
    arena_level, gym_level = levels.TrivialLevel, levels.GymTrivialLevel
    for hook in ("observation", "action"):
        assert getattr(arena_level, hook) is not getattr(Interface, hook)
        assert getattr(arena_level, hook).__code__.co_code == getattr(gym_level, hook).__code__.co_code  # same bodies
        assert getattr(arena_level, hook).__code__.co_code != Interface.observation.__code__.co_code  # not `return x`
    bench = _bench_module("interface_overhead")
    raw, wrapped = bench.ArenaPair(), EnvItfWrapper(bench.ArenaPair(), levels.arena_levels())
    assert len(wrapped.interfaces["a"].levels()) == 3 and len(wrapped.interfaces["a"].compiled().observation) == 3
    first, second = raw.reset(seed=0), wrapped.reset(seed=0)
    for _ in range(5):
        actions = dict.fromkeys(first[0], 1)
        assert str(first) == str(second)  # the levels change no value
        first, second = raw.step(actions), wrapped.step(actions)


def test_worker_batch_bench_times_the_worker_batch_beside_single_envs():
    out = _bench("bench/worker_batch.py", "--games", "2", "--seconds", "0.1", "--rounds", "1", "--envs", "snake")
    assert "snake (2 games" in out and "2 workers" in out and "of single envs" in out


def test_worker_seat_training_bench_times_soccers_seat_run_on_each_path():
    pytest.importorskip("dm_control")
    pytest.importorskip("stable_baselines3")
    # about 6 CPU s: a fresh interpreter imports torch and dm_control, builds three soccer games and a worker
    out = _bench("bench/worker_seat_training.py", "--steps", "8", "--rounds", "1", "--games", "1")
    assert "soccer seat home_0 vs random" in out and "workers 1" in out and "of the single path" in out


def test_worker_seat_training_bench_times_the_vizdoom_duel_against_copies_of_vizdoom_aim():
    pytest.importorskip("vizdoom")
    pytest.importorskip("stable_baselines3")
    out = _bench(
        "bench/worker_seat_training.py", "--run", "vizdoom_duel", "--steps", "8", "--rounds", "1", "--games", "1"
    )
    assert "vizdoom_deathmatch seat player_0 vs vizdoom_aim" in out and "workers 1" in out, out


def test_pommerman_ffa_baselines_bench_counts_the_survivors_first_places():
    out = _bench("bench/pommerman_ffa_baselines.py", "--games", "4", "--bomb", "0", "1", "--evader", "--shadow")
    assert "hider bomb 0     first" in out and "hider bomb 1     first" in out and "of 4" in out, out
    assert "pommerman_evader first" in out and "pommerman_shadow first" in out, out


@pytest.mark.parametrize(
    ("flags", "message"),
    [
        (["--games", "0"], "--games must be at least 1, got 0"),
        (["--bomb", "0", "1.5"], "--bomb takes probabilities in [0, 1], got 1.5"),
        (["--bomb"], "nothing to play: give --bomb probabilities, --evader, --shadow, or more than one"),
    ],
)
def test_pommerman_ffa_baselines_bench_refuses_bad_flags_before_any_game(flags, message):
    done = subprocess.run(
        [sys.executable, "bench/pommerman_ffa_baselines.py", *flags],
        capture_output=True,
        text=True,
        cwd=ROOT,
        timeout=120,
        env={**os.environ, "PYTHONPATH": os.pathsep.join(filter(None, [str(ROOT), os.environ.get("PYTHONPATH")]))},
    )
    assert done.returncode == 2 and message in done.stderr, done.stderr
    assert "first" not in done.stdout  # no game was played


def test_soccer_bench_times_dm_control_beside_arena():
    pytest.importorskip("dm_control")
    out = _bench("bench/soccer.py", "--steps", "5", "--rounds", "1", "--time-limit", "1")
    assert "arena env.step / dm_control = " in out


@pytest.mark.parametrize(
    "control", [["--control", "team"], ["--control", "seat", "--teammate", "random"]], ids=["team", "seat"]
)
def test_soccer_match_bench_plays_a_trained_side_and_reports_what_each_side_does(
    tmp_path, control, monkeypatch, capsys
):
    pytest.importorskip("dm_control")
    from arena.cli import main

    folder = tmp_path / "side"
    argv = ["train", "soccer", "--timesteps", "32", "--n-envs", "1", "--eval-games", "1", "--out", str(folder)]
    argv += [
        *control,
        "--env-options",
        '{"time_limit": 0.5}',
        "--algo-options",
        '{"n_steps": 32, "batch_size": 32, "n_epochs": 1}',
    ]
    assert main(argv) == 0
    out = _bench_here(
        monkeypatch,
        capsys,
        "bench/soccer_match.py",
        "--first",
        str(folder),
        "--second",
        "random",
        "--games",
        "2",
        "--time-limit",
        "1",
    )
    assert "W/D/L" in out and f"{folder}: mean speed towards the ball" in out and "random: mean speed" in out


def test_connect_four_training_bench_runs_both_paths_and_prints_the_ratio(tmp_path, monkeypatch, capsys):
    pytest.importorskip("sb3_contrib")
    pytest.importorskip("matplotlib")
    # Targets of 0 are met at the first evaluation: both paths stop at once and the ratio is printed.
    out = _bench_here(
        monkeypatch,
        capsys,
        "bench/train_connect_four.py",
        "--path",
        "both",
        "--max-timesteps",
        "4096",
        "--eval-every",
        "2048",
        "--eval-games",
        "4",
        "--check-games",
        "4",
        "--target-random",
        "0",
        "--target-heuristic",
        "0",
        "--out",
        str(tmp_path),
    )
    assert "batched / single wall time to both targets: " in out
    assert '"net_arch": [\n    128,\n    128\n  ]' in out  # the batched path runs arena train's recipe


def test_pommerman_batch_bench_times_the_batch_the_single_env_and_the_simple_agents():
    """bench/pommerman_batch.py without pomcpp2 and the reference (their builds live outside the repo)."""
    out = _bench(
        "bench/pommerman_batch.py",
        *("--games", "4", "--steps", "40", "--single-steps", "40", "--rounds", "1"),
        *("--parts", "batch", "single", "simple", "--thread-divisor", "1", "--breakdown"),
    )
    figures = json.loads(out.strip().splitlines()[-1])
    for name in (
        "batch 4 copy=False (cpu)",
        "batch 4 copy=True (cpu)",
        "batch 4 one seat (cpu)",
        "batch 4 codes copy=False (cpu)",
        "batch 4 codes copy=True (cpu)",
        "batch 4 codes trainer (cpu)",
        "batch 4 codes+unpack copy=False (cpu)",
        "batch 4 codes+unpack trainer (cpu)",
        "batch 4 threads=2 (wall)",
        "single env, seeded resets",
        "simple4 batch decisions (cpu)",
        "us per game-step: numpy draw per call of 4",
    ):
        assert figures[name] > 0, name
    assert figures["us per game-step: views"] > 0 and figures["us per game-step: one board draw"] > 0
    assert out.startswith("machine: "), out[:200]
    views = "views a call at 4 games: planes 0.04 MiB"
    assert re.search(rf"^{views}( \(fits\))?, codes 0.00 MiB( \(fits\))?; L2 ", out, re.MULTILINE), out


def test_the_batch_benchs_views_a_call_are_set_beside_the_l2():
    bench = _bench_module("pommerman_batch")
    assert bench.views_bytes(256, "ffa", "codes") == 256 * 4 * 248
    assert bench.views_bytes(256, "radio", "planes") == 256 * 4 * 24 * 121
    lines = bench.views_lines([64, 1024], "ffa", 2 * 2**20)
    assert lines == [
        "views a call at 64 games: planes 0.65 MiB (fits), codes 0.06 MiB (fits); L2 2.00 MiB",
        "views a call at 1024 games: planes 10.40 MiB (over), codes 0.97 MiB (fits); L2 2.00 MiB",
    ]
    assert bench.views_lines([256], "ffa", None) == [
        "views a call at 256 games: planes 2.60 MiB, codes 0.24 MiB; L2 size unknown"
    ]


def _fake_caches(root: pathlib.Path, caches: list[tuple[str, str, str]]) -> pathlib.Path:
    for index, (level, kind, size) in enumerate(caches):
        folder = root / f"index{index}"
        folder.mkdir(parents=True)
        for name, text in (("level", level), ("type", kind), ("size", size)):
            (folder / name).write_text(text + "\n")
    return root


def test_the_machine_line_reads_the_l2_and_the_cpu_model_as_data(tmp_path):
    machine = _bench_module("machine")
    caches = _fake_caches(
        tmp_path / "caches",
        [("1", "Data", "48K"), ("1", "Instruction", "64K"), ("2", "Unified", "2048K"), ("3", "Unified", "32M")],
    )
    assert machine.cache_bytes(2, str(caches)) == 2 * 2**20
    assert machine.cache_bytes(3, str(caches)) == 32 * 2**20
    assert machine.cache_bytes(1, str(caches)) == 48 * 1024  # the data cache, not the instruction cache
    assert machine.cache_bytes(4, str(caches)) is None
    assert machine.cache_bytes(2, str(tmp_path / "absent")) is None
    broken = _fake_caches(tmp_path / "broken", [("2", "Unified", "a lot")])
    assert machine.cache_bytes(2, str(broken)) is None
    cpuinfo = tmp_path / "cpuinfo"
    cpuinfo.write_text(
        "processor\t: 0\ncpu family\t: 25\nmodel\t\t: 1\nmodel name\t: AMD EPYC 7B13\n\n"
        "processor\t: 1\nmodel name\t: another CPU\n"
    )
    assert machine.cpu_model(str(cpuinfo)) == "AMD EPYC 7B13 (family 25 model 1)"
    assert machine.describe(str(cpuinfo), str(caches)).startswith("machine: AMD EPYC 7B13 (family 25 model 1), ")
    assert machine.describe(str(cpuinfo), str(caches)).endswith(", L2 2,048 KiB (CPU 0's)")
    cpuinfo.write_bytes(b"model name\t: \xff\xfe odd\n")  # not UTF-8: read as text all the same
    assert machine.cpu_model(str(cpuinfo)).endswith("odd")
    assert machine.cpu_model(str(tmp_path / "absent")) is None


@pytest.mark.parametrize(("games", "calls"), [(4, 600), (64, 33), (1024, 3), (2000, 2)])
def test_the_batch_benchs_moves_are_a_call_each_drawn_in_blocks_of_the_same_stream(games, calls):
    bench = _bench_module("pommerman_batch")
    moves = list(bench.random_moves(np.random.default_rng(7), games, calls))
    assert len(moves) == calls
    for row in moves:  # what the batch's short path for actions takes
        assert type(row) is np.ndarray and row.dtype == np.int64 and row.shape == (games, 4) and row.flags.c_contiguous
    block = max(1, bench.DRAW_BLOCK // games)
    stream = np.random.default_rng(7)
    expected = np.concatenate(
        [stream.integers(0, 6, (min(block, calls - first), games, 4)) for first in range(0, calls, block)]
    )
    np.testing.assert_array_equal(np.stack(moves), expected)
    assert set(np.unique(expected)) <= set(range(6))


def test_pommerman_team_training_bench_prints_each_stacks_rate_beside_the_shipped_one(monkeypatch, capsys):
    pytest.importorskip("sb3_contrib")
    out = _bench_here(
        monkeypatch, capsys, "bench/pommerman_team_training.py", "--timesteps", "128", "--games", "2", "--n-steps", "16"
    )
    for row in ("shipped", "+ per-game level", "+ array-form level", "radio mode"):
        assert re.search(rf"{re.escape(row)} +\d+ learner steps/s  \(\d\.\d\dx the shipped stack\)", out), out


def test_training_split_bench_prints_each_recipes_four_parts(monkeypatch, capsys):
    pytest.importorskip("sb3_contrib")
    out = _bench_here(
        monkeypatch, capsys, "bench/training_split.py", "--timesteps", "128", "--n-envs", "2", "--top", "3"
    )
    for recipe in ("pommerman: pommerman {}, 2 games x 1 learner seat", 'pommerman {"mode": "team"}, 2 games x 2'):
        assert recipe in out, out
    tables = re.findall(r"part +seconds +share\n((?:  .+\n){4})", out)
    assert len(tables) == 2, out
    for table in tables:  # the four parts, in order, sharing the whole profile
        rows = re.findall(r"  (\S.*?) +(\d+\.\d\d) +(\d+\.\d)%", table)
        assert [row[0] for row in rows] == ["env + opponents", "interfaces", "network", "rest"], table
        assert abs(sum(float(row[2]) for row in rows) - 100) < 0.3, table


def test_training_split_charges_each_module_to_its_part():
    pytest.importorskip("sb3_contrib")
    import inspect
    import json

    import torch

    from arena.training.batch_slots import BatchedPlayer, LearnerSlots
    from arena.training.batched import BatchVecEnv
    from envs.pommerman.agents import PommermanSimpleBatch
    from envs.pommerman.batch import PommermanBatch
    from envs.pommerman.policy import PlanesCNN
    from interfaces.pommerman_safety import PommermanSafeMoves

    bench = _bench_module("training_split")
    spans = bench._class_lines()

    def part(thing):
        return bench.part_of(inspect.getfile(thing), inspect.getsourcelines(thing)[1] + 1, spans)

    assert part(PommermanBatch) == part(PommermanSimpleBatch) == part(BatchedPlayer) == "env + opponents"
    assert part(PommermanSafeMoves) == part(LearnerSlots) == "interfaces"  # LearnerSlots: by its class
    assert part(PlanesCNN) == part(torch.nn.Conv2d) == "network"  # a recipe's extractor is the network's
    assert part(BatchVecEnv) == "rest"
    assert part(json.dumps) is None and bench.part_of("~", 0, spans) is None  # charged to their callers


def test_magent_army_curve_bench_scores_each_folder_and_draws_the_curve(tmp_path, monkeypatch, capsys):
    pytest.importorskip("magent2")
    pytest.importorskip("matplotlib")
    from envs.shipped import shipped_folder

    folder = str(shipped_folder("magent_army_ppo"))
    out = _bench_here(
        monkeypatch,
        capsys,
        "bench/magent_army_curve.py",
        folder,
        "--battles",
        "2",
        "--env-options",
        '{"map_size": 16, "max_steps": 30}',
        "--out",
        str(tmp_path / "curve.png"),
        "--csv",
        str(tmp_path / "curve.csv"),
    )
    assert f"{folder}: " in out and "score " in out
    assert (tmp_path / "curve.png").stat().st_size > 0
    assert len((tmp_path / "curve.csv").read_text().splitlines()) == 2


def test_vizdoom_frag_curve_bench_sets_each_entrants_frags_beside_the_bots(tmp_path, monkeypatch, capsys):
    pytest.importorskip("vizdoom")
    pytest.importorskip("matplotlib")
    pytest.importorskip("stable_baselines3")
    from arena.cli import main

    options = {"players": 1, "bots": 2, "screen_format": "grey", "enemies": True, "time_limit": 1.5}
    folder = str(tmp_path / "doom")
    argv = ["train", "vizdoom_deathmatch", "--algo", "ppo", "--interface", "doom_target(doom_actions())"]
    argv += ["--env-options", json.dumps(options), "--timesteps", "64", "--n-envs", "1", "--eval-games", "1"]
    argv += ["--algo-options", '{"n_steps": 64, "batch_size": 64, "n_epochs": 1}', "--progress", "none"]
    assert main([*argv, "--out", folder]) == 0
    capsys.readouterr()
    out = _bench_here(
        monkeypatch,
        capsys,
        "bench/vizdoom_frag_curve.py",
        folder,
        "vizdoom_aim",
        "--matches",
        "2",
        "--out",
        str(tmp_path / "frags.png"),
        "--csv",
        str(tmp_path / "frags.csv"),
    )
    assert f"{folder}: 64 steps, 0 DAgger samples, frags " in out and "bots' mean " in out, out
    assert "vizdoom_aim: 0 steps, 0 DAgger samples, frags " in out
    assert (tmp_path / "frags.png").stat().st_size > 0
    rows = (tmp_path / "frags.csv").read_text().splitlines()
    assert rows[0] == "entrant,timesteps,samples,matches,frags,bots_mean,difference,low,high" and len(rows) == 3
    frag_curve = _bench_module("vizdoom_frag_curve")  # a folder tools/imitate.py taught counts its samples
    assert frag_curve.imitated({"imitation": {"samples": 21000}}) == 21000 and frag_curve.imitated({}) == 0


def test_vizdoom_frag_curve_bench_refuses_too_few_matches_before_any_engine_starts():
    done = subprocess.run(
        [sys.executable, "bench/vizdoom_frag_curve.py", "vizdoom_aim", "--matches", "1"],
        capture_output=True,
        text=True,
        cwd=ROOT,
        timeout=120,
        env={**os.environ, "PYTHONPATH": os.pathsep.join(filter(None, [str(ROOT), os.environ.get("PYTHONPATH")]))},
    )
    assert done.returncode == 2
    assert "--matches must be at least 2 (an interval needs two matches), got 1" in done.stderr


def test_tournament_curve_bench_plays_each_folder_in_a_tournament_and_draws_the_curve(tmp_path):
    pytest.importorskip("magent2")
    pytest.importorskip("matplotlib")
    from envs.shipped import shipped_folder

    folder = str(shipped_folder("magent_army_ppo"))
    out = _bench(
        "bench/tournament_curve.py",
        "magent_battle",
        folder,
        "--env-options",
        '{"map_size": 16, "max_steps": 30}',
        "--opponent",
        "magent_attack_nearest",
        "--games",
        "2",
        "--bar",
        "0.7",
        "--out",
        str(tmp_path / "curve.png"),
        "--csv",
        str(tmp_path / "curve.csv"),
    )
    assert f"{folder}: 8,004,096 steps, score " in out and "arena tournament magent_battle" in out
    assert (tmp_path / "curve.png").stat().st_size > 0
    rows = (tmp_path / "curve.csv").read_text().splitlines()
    assert len(rows) == 2 and rows[0].startswith("folder,timesteps,score,score_low,score_high,wins,draws,losses")
    # Rows of earlier calls are drawn again without playing.
    out = _bench(
        "bench/tournament_curve.py",
        "magent_battle",
        "--opponent",
        "magent_attack_nearest",
        "--from-csv",
        str(tmp_path / "curve.csv"),
        "--out",
        str(tmp_path / "again.png"),
        "--csv",
        str(tmp_path / "again.csv"),
    )
    assert "steps, score" not in out and (tmp_path / "again.png").stat().st_size > 0
    assert (tmp_path / "again.csv").read_text() == (tmp_path / "curve.csv").read_text()


def test_pong_headroom_bench_plays_the_mirror_match_the_interceptor_and_the_planner():
    out = _bench("bench/pong_headroom.py", "--rounds", "2", "--shots", "2", "--offsets", "0,0.95")
    assert out.startswith("pong_2p, ball_spin=6; 2 rounds a match")  # 6: the default, where a 0.5 return wins (below)
    assert "pong_ai (mirror match)" in out and "interceptor, offset +-0.95" in out
    assert "returns with an offset that makes pong_ai miss" in out


def test_pong_headroom_interceptor_meets_the_ball_where_the_env_sends_it():
    bench = _bench_module("pong_headroom")
    from envs.pong import Pong2p

    env = Pong2p(rounds=8)
    env.reset(seed=3)
    predicted, met = [], []
    while env.agents and len(met) < 5:
        coming = env.state.ball_vx < 0
        if coming and len(predicted) == len(met):
            predicted.append(bench.meeting_y(env, 0))
        env.step({"player_0": bench.interceptor_move(env, 0.0), "player_1": 0})
        if coming and env.state.ball_vx > 0:  # returned: the bounce keeps the y the ball met the face at
            met.append(env.state.ball_y)
    assert len(met) == 5 and met == pytest.approx(predicted)


def test_pong_ai_ladder_each_rung_misses_returns_the_next_one_makes(monkeypatch, capsys):
    """pong_ai_easy and pong_ai_medium (the recipe's ladder) miss returns that pong_ai sends back."""
    bench = _bench_module("pong_headroom")
    assert arena.make_agent("pong_ai_easy").gain == 5.0 and arena.make_agent("pong_ai_medium").gain == 10.0
    against = {gain: bench.play_rounds(12, 0, 0.6, gain=gain, ball_spin=3.0) for gain in (5.0, 10.0, 20.0)}
    assert against[5.0]["won"] >= 10 and against[5.0]["lost"] == 0
    assert against[10.0]["won"] == against[20.0]["won"] == 0  # a 0.6 return: medium and pong_ai meet it
    steeper = {gain: bench.play_rounds(12, 0, 0.9, gain=gain, ball_spin=3.0) for gain in (10.0, 20.0)}
    assert steeper[10.0]["won"] >= 10 and steeper[10.0]["lost"] == 0
    assert steeper[20.0]["won"] < steeper[10.0]["won"]
    monkeypatch.setattr(sys, "argv", ["pong_headroom.py", "--help"])
    with pytest.raises(SystemExit) as exit_:
        bench.main()
    assert exit_.value.code == 0 and "--gain" in capsys.readouterr().out


def test_pong_ai_misses_half_offset_returns_once_the_ball_climbs_faster_than_its_paddle():
    """With ball_spin 6 (Arena's ratio: the steepest ball 1.5x the built-in player's speed) a 0.5 return wins."""
    bench = _bench_module("pong_headroom")
    default, steep = (bench.play_rounds(12, 0, 0.5, ball_spin=spin) for spin in (3.0, 6.0))
    assert default["won"] == 0 and steep["won"] >= 8 and steep["lost"] == 0


def test_pong_training_bench_times_the_batch_beside_the_single_env():
    # 2 games, not the recipe's 32: a PPO rollout of 32 games is 4,096 steps whatever --timesteps says
    out = _bench("bench/pong_train.py", "--timesteps", "256", "--env-steps", "64", "--rounds", "1", "--games", "2")
    assert "arena train pong_2p (on the batch, 2 games)" in out and "the batch / the single env: trainer env" in out


def test_pong_probe_bench_plays_folders_and_names_against_pong_ai_and_counts_only_returns(monkeypatch, capsys):
    from envs.shipped import shipped_folder

    folder = str(shipped_folder("pong_ppo"))
    args = ("--games", "2", "--rounds", "1", "--max-round-steps", "200", "--ball-spin", "3")
    out = _bench_here(monkeypatch, capsys, "bench/pong_probe.py", folder, "pong_ai", *args)
    assert f"{folder}: rounds W-L-T" in out
    assert "pong_ai: rounds W-L-T 0-0-2, games W-D-L 0-2-0" in out  # at spin 3 the mirror match ties every round
    found = _bench_module("pong_probe").probe("pong_ai", games=2, rounds=1, max_round_steps=200, ball_spin=3.0)
    assert found["returns"] > 0 and found["edge_share"] == 0.0  # pong_ai meets the ball near its centre
    steep = _bench_module("pong_probe").probe("pong_ai", games=2, rounds=6, max_round_steps=300)
    assert steep["rounds"][:2] != [0, 0]  # at ball_spin 6 the mirror match decides rounds: the ball outruns a paddle
    assert 0.0 <= steep["outer_half_share"] <= 1.0


def test_pommerman_batch_bench_times_the_team_recipes_batch_beside_a_baseline(tmp_path):
    """``--batch-mode team --ego`` with ``--baseline``: the batch as the team recipe trains on it, this checkout's and another's."""
    baseline = tmp_path / "baseline"  # this checkout's copy, numba's cache included (its files keep their times)
    shutil.copytree(ROOT / "envs", baseline / "envs")
    shutil.copytree(ROOT / "arena", baseline / "arena")
    out = _bench(
        "bench/pommerman_batch.py",
        *("--games", "4", "--steps", "40", "--rounds", "1", "--parts", "batch", "--thread-divisor", "1"),
        *("--batch-mode", "team", "--ego", "--baseline", str(baseline), "--baseline-shapes", "copy=False"),
        "codes copy=True",
    )
    figures = json.loads(out.strip().splitlines()[-1])
    assert figures["batch 4 copy=False (cpu)"] > 0 and figures["baseline batch 4 (cpu)"] > 0
    assert figures["baseline batch 4 codes copy=True (cpu)"] > 0
    assert figures["ratio batch 4 codes copy=True / baseline"] > 0


def test_batch_training_bench_sets_a_users_levels_beside_the_shipped_stack(monkeypatch, capsys):
    """The user's per-game levels and their array form train through the one batched trainer, beside the shipped stack."""
    out = _bench_here(
        monkeypatch,
        capsys,
        "bench/batch_training.py",
        *("--games", "4", "--steps", "5", "--train-steps", "64", "--rounds", "1", "--games-list", "connect_four,snake"),
    )
    rows = [line.split() for line in out.splitlines() if line.startswith(("connect_four", "snake"))]
    assert [(row[0], " ".join(row[1:-4])) for row in rows] == [
        (game, stack) for game in ("connect_four", "snake") for stack in ("shipped", "per game", "array form")
    ]


_CACHEGRIND_SUMMARY = """==2398== I   refs:      409,722,201
==2398== I1  misses:          2,563
==2398== D   refs:      125,127,460  (98,126,355 rd   + 27,001,105 wr)
==2398== D1  misses:         16,093  (    13,598 rd   +      2,495 wr)
==2398== LLd misses:          9,022  (     7,428 rd   +      1,594 wr)
==2398== Branches:       58,601,673  (58,433,465 cond +    168,208 ind)
==2398== Mispredicts:     6,669,566  ( 6,668,215 cond +      1,351 ind)
==2398== Mispred rate:         11.4% (      11.4%     +        0.8%   )
"""


def test_pommerman_batch_counts_reads_cachegrinds_totals_and_counts_per_game_step():
    counts = _bench_module("pommerman_batch_counts")
    totals = counts.parse_summary(_CACHEGRIND_SUMMARY)
    assert totals == {"instructions": 409_722_201, "D1 misses": 16_093, "LL misses": 9_022, "mispredicts": 6_669_566}
    low = {"instructions": 1_000, "mispredicts": 10}
    assert counts.per_unit(low, {"instructions": 5_000, "mispredicts": 30}, 8) == {
        "instructions": 500,
        "mispredicts": 2.5,
    }


def test_pommerman_batch_counts_counts_each_part_as_two_runs_difference(tmp_path, monkeypatch):
    """The bench's whole flow, its counted runs made by a stand-in for valgrind (CI has none): the stand-in
    runs the command and prints a summary whose instructions grow with the part, so the table shows the
    differences; the batch's own script runs for real."""
    fake = tmp_path / "valgrind"
    fake.write_text(
        "#!/bin/sh\n"
        'while [ "${1#--}" != "$1" ]; do shift; done\n'  # valgrind's own options
        '"$@" || exit 1\n'
        'case "$4" in step) n=9000;; views) n=5000;; *) n=1000;; esac\n'  # python -c SCRIPT PART ...
        'echo "==1== I   refs:      $n" >&2\necho "==1== Mispredicts:      $((n / 100))  (1 cond + 0 ind)" >&2\n'
        'echo "==1== D1  misses:      7" >&2\necho "==1== LLd misses:      3" >&2\n'
    )
    fake.chmod(0o755)
    monkeypatch.setenv("PATH", f"{tmp_path}{os.pathsep}{os.environ['PATH']}")
    monkeypatch.setenv("PYTHONPATH", os.pathsep.join(filter(None, [str(ROOT), os.environ.get("PYTHONPATH")])))
    counts = _bench_module("pommerman_batch_counts")
    results = counts.main(
        ["--pomcpp2", str(tmp_path / "none"), "--games", "4", "--calls", "2", "--layouts", "codes"]
        + ["--seats", "every", "one", "trainer"]
    )
    assert results["batch 4 codes step"] == {
        "instructions": 1000.0,
        "mispredicts": 10.0,
        "D1 misses": 0,
        "LL misses": 0,
    }
    assert results["batch 4 codes views"]["instructions"] == 500.0
    for seats in ("one", "trainer"):  # each shape's batch ran (the stand-in runs the script), its step counted
        assert results[f"batch 4 codes {seats} seat(s) step"]["instructions"] == 1000.0
    assert sorted(results) == sorted(
        [
            "batch 4 codes step",
            "batch 4 codes views",
            "batch 4 codes one seat(s) step",
            "batch 4 codes trainer seat(s) step",
        ]
    )


def test_pommerman_batch_counts_compiles_for_the_named_cpu_or_this_one():
    """``--cpu haswell``: numba compiles for that CPU with its own features (valgrind stops at AVX-512)."""
    import llvmlite.binding as llvm  # type: ignore[import-untyped]

    counts = _bench_module("pommerman_batch_counts")
    named = counts.fixed_cpu_env("haswell")
    assert (named["NUMBA_CPU_NAME"], named["NUMBA_CPU_FEATURES"]) == ("haswell", "")
    host = counts.fixed_cpu_env()
    assert host["NUMBA_CPU_NAME"] == llvm.get_host_cpu_name()
    assert host["NUMBA_CPU_FEATURES"] == llvm.get_host_cpu_features().flatten()


def test_pommerman_batch_counts_refuses_without_valgrind(monkeypatch, capsys):
    counts = _bench_module("pommerman_batch_counts")
    monkeypatch.setattr(counts.shutil, "which", lambda name: None)
    with pytest.raises(SystemExit):
        counts.main([])
    assert "valgrind is not installed" in capsys.readouterr().err


def test_pommerman_batch_counts_says_which_counted_run_failed_and_how(tmp_path, monkeypatch):
    """A counted run that fails (here a stand-in valgrind that exits 3 with its own message) is an error naming
    the command, its exit status and the end of what it printed, not a table of missing counts."""
    fake = tmp_path / "valgrind"
    fake.write_text('#!/bin/sh\necho "==1== valgrind: the stand-in could not start" >&2\nexit 3\n')
    fake.chmod(0o755)
    counts = _bench_module("pommerman_batch_counts")
    with pytest.raises(RuntimeError, match=r"cachegrind run \['true'\] failed \(3\):\n==1== valgrind: the stand-in"):
        counts.counted(["true"], {**os.environ, "PATH": f"{tmp_path}{os.pathsep}{os.environ['PATH']}"})


def test_the_batch_benchs_paired_ratios_divide_within_each_round():
    bench = _bench_module("pommerman_batch")
    runs = {
        "pomcpp2 State::Step": [1.0, 2.0, 4.0, 1.0],
        "batch 4 codes copy=False (cpu)": [1.0, 2.2, 4.8, 0.9],  # rounds 1.0, 1.1, 1.2, 0.9 of the anchor's
        "batch 4 threads=2 (wall)": [9.0, 9.0, 9.0, 9.0],  # wall-clock: not paired with a CPU rate
        "us per game-step: views": [0.5, 0.5, 0.5, 0.5],
    }
    spreads = bench.paired_ratios(runs, "pomcpp2 State::Step")
    assert list(spreads) == ["batch 4 codes copy=False (cpu) / pomcpp2 State::Step"]
    median, low, high = spreads["batch 4 codes copy=False (cpu) / pomcpp2 State::Step"]
    # the ratio of the medians would be 3.1 / 1.5 = 2.07x: the rounds' drift, not the batch's speed
    assert median == pytest.approx(1.05) and low == pytest.approx(0.975) and high == pytest.approx(1.125)
    assert bench.paired_ratios(runs, "pomcpp2 Environment") == {}  # no anchor timed: nothing paired
    one_round = bench.paired_ratios({"a": [2.0], "batch 1 x (cpu)": [3.0]}, "a")
    assert one_round == {"batch 1 x (cpu) / a": (1.5, 1.5, 1.5)}
