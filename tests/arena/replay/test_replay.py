"""Stored actions, ``arena replay`` (listing, stepping, --verify, --video) and ``arena play --record``."""

from __future__ import annotations

import dataclasses
import io
import re
import sqlite3

import numpy as np
import pytest

import envs
from arena.cli import main
from arena.errors import GameNotFoundError, ReplayError
from arena.registry import make_env
from arena.replay import load_game, load_games, replay, verify_game
from arena.replay.terminal import step_through
from arena.replay.video import write_video
from arena.runtime.actions import decode_actions, encode_actions
from arena.tournament import Execution, TournamentRules, run_tournament
from envs.tic_tac_toe import TicTacToe

try:  # short episodes of the physics games for registry-wide tests, where the suite has them
    from tests.quick import QUICK_OPTIONS, probe
except ImportError:
    QUICK_OPTIONS, probe = {}, envs.make

# played in this process: a worker process would import the env's and agents' modules again
INLINE = Execution.make("inline")

# Short games keep the suite fast; every stored step is replayed and checked.
MAX_STEPS = {"pong_2p": 120, "snake": 80}
LIMIT = 40


def _tournament(tmp_path_factory, env: str, games: int = 2, entrants=None):
    db = tmp_path_factory.mktemp(env) / f"{env}.db"
    options = QUICK_OPTIONS.get(env, {})
    probe = make_env(env, **options)
    seats = len(probe.possible_agents)
    probe.close()
    entrants = entrants or [f"r{i}=random" for i in range(seats)]
    run_tournament(
        rules=TournamentRules.make(
            env, entrants, games=games, max_steps=MAX_STEPS.get(env, LIMIT), seatings="rotations", env_kwargs=options
        ),
        db=db,
        execution=INLINE,
    )
    return db


@pytest.fixture(scope="module")
def ttt_db(tmp_path_factory):
    return _tournament(tmp_path_factory, "tic_tac_toe", games=4, entrants=["random", 'mcts{"simulations": 10}'])


# Replaying stored actions reproduces a game only where the env says its episodes follow from
# seed and actions (networked ViZDoom engines declare metadata["reproducible"] = False).
REPRODUCIBLE = [name for name in envs.registry.names() if probe(name).metadata.get("reproducible", True) is not False]


@pytest.mark.parametrize("env", REPRODUCIBLE)
def test_verify_reports_no_mismatch_for_every_bundled_env(env, tmp_path_factory, capsys):
    db = _tournament(tmp_path_factory, env)
    assert main(["replay", str(db), "--verify"]) == 0
    out = capsys.readouterr().out
    stored = len(load_games(db))
    assert f"verified {stored} games of {db}: 0 mismatches" in out
    assert all(game.steps is not None and len(game.steps) == game.result.length for game in load_games(db))


def test_verify_finds_a_game_whose_stored_actions_were_changed(ttt_db, tmp_path, capsys):
    copy = tmp_path / "changed.db"
    with sqlite3.connect(ttt_db) as source, sqlite3.connect(copy) as target:
        source.backup(target)
    with sqlite3.connect(copy) as db:
        lineup, index, blob = db.execute("SELECT lineup, game_index, actions FROM replays ORDER BY rowid").fetchone()
        steps = decode_actions(blob)
        agents = ["player_0", "player_1"]
        first = next(iter(steps[0]))
        steps[0] = {first: (steps[0][first] + 1) % 9}  # another first move: another game
        db.execute(
            "UPDATE replays SET actions = ? WHERE lineup = ? AND game_index = ?",
            (encode_actions(agents, steps), lineup, index),
        )
    assert main(["replay", str(copy), "--verify"]) == 1
    out = capsys.readouterr().out
    assert "MISMATCH game 1 of changed.db" in out and "1 mismatches" in out


def test_actions_are_stored_with_the_game_in_one_row_per_game(ttt_db):
    with sqlite3.connect(ttt_db) as db:
        games = db.execute("SELECT COUNT(*) FROM games").fetchone()[0]
        stored = db.execute("SELECT COUNT(*) FROM replays JOIN games USING (lineup, game_index)").fetchone()[0]
    assert games == stored == 4
    game = load_game(ttt_db, 1)
    assert game.env.factory == "tic_tac_toe" and set(game.entrants) == set(game.result.seats.values())
    assert len(game.result.actions) < 200  # compact: a tic-tac-toe game in about 120 bytes


def test_replay_frames_follow_the_stored_game(ttt_db):
    game = load_game(ttt_db, 2)
    frames = list(replay(game, render="ansi"))
    assert len(frames) == game.result.length + 1
    assert frames[0].rewards == {} and frames[-1].actions == {}
    assert all(isinstance(f.view, str) for f in frames)
    assert frames[0].masks[frames[0].acting[0]].sum() == 9
    final = {game.result.seats[seat]: value for seat, value in frames[-1].returns.items()}
    assert final == game.result.returns


def test_game_ids_and_errors(ttt_db, tmp_path):
    game = load_games(ttt_db)[2]
    assert load_game(ttt_db, f"{game.result.lineup}#{game.result.index}").id == game.id == 3
    with pytest.raises(GameNotFoundError, match=r"has no game 99; `arena replay .*` lists the games"):
        load_game(ttt_db, 99)
    with pytest.raises(ReplayError, match="a game is given by its number .* or as LINEUP#INDEX, got 'first'"):
        load_game(ttt_db, "first")
    with pytest.raises(ReplayError, match="no results file at"):
        load_games(tmp_path / "missing.db")
    other = tmp_path / "other.db"
    sqlite3.connect(other).execute("CREATE TABLE t (x)").connection.close()
    with pytest.raises(ReplayError, match="is not an arena results file \\(it has no games table\\)"):
        load_games(other)
    text = tmp_path / "text.db"
    text.write_text("not a database at all, just some words " * 20)
    with pytest.raises(ReplayError, match="is not an arena results file"):
        load_games(text)


def test_cli_listing_and_bad_input(ttt_db, capsys):
    assert main(["replay", str(ttt_db)]) == 0
    out = capsys.readouterr().out
    assert "4 stored games" in out and "player_0=" in out
    assert main(["replay", str(ttt_db), "--html", "x.html"]) == 2
    assert "--html and --video need the game: --game ID" in capsys.readouterr().err
    assert main(["replay", str(ttt_db), "--verify", "--game", "1"]) == 2
    assert "--verify checks every game" in capsys.readouterr().err


def test_terminal_stepping_keys(ttt_db):
    game = load_game(ttt_db, 1)
    out = io.StringIO()
    last = step_through(game, io.StringIO("n\nn\np\nzz\nl\nf\n3\n"), out)
    text = out.getvalue()
    assert last == 3
    shown = [line.removeprefix("> ") for line in text.splitlines() if "--- step" in line]
    end = game.result.length
    assert [s.split()[2] for s in shown] == ["0", "1", "2", "1", "1", str(end), "0", "3"]
    assert "unknown key 'zz'" in text and "plays" in text


def test_video_mp4_and_gif(tmp_path_factory, tmp_path):
    db = _tournament(tmp_path_factory, "snake", games=1)
    game = load_game(db, 1)
    mp4 = write_video(game, tmp_path / "g.mp4")
    gif = write_video(game, tmp_path / "g.gif", fps=5)
    import imageio.v2 as imageio

    frames = imageio.mimread(gif)
    assert len(frames) == game.result.length + 1
    assert mp4.stat().st_size > 1000 and mp4.read_bytes()[4:8] == b"ftyp"


def test_video_errors(ttt_db, tmp_path):
    game = load_game(ttt_db, 1)
    with pytest.raises(ReplayError, match="tic_tac_toe draws no pictures \\(render modes: ansi\\); --html"):
        write_video(game, tmp_path / "x.mp4")
    with pytest.raises(ReplayError, match="a video is written as .mp4 or .gif, got"):
        write_video(game, tmp_path / "x.avi")


def test_play_record_then_verify(tmp_path, capsys):
    db = tmp_path / "played.db"
    for seed in (1, 2):
        assert (
            main(
                [
                    "play",
                    "connect_four",
                    "--agents",
                    "random,connect_four_heuristic",
                    "--seed",
                    str(seed),
                    "--record",
                    str(db),
                ]
            )
            == 0
        )
    out = capsys.readouterr().out
    assert f"recorded as game 2 of {db}" in out
    games = load_games(db)
    assert [g.result.seed for g in games] == [1, 2]
    assert set(games[0].result.seats.values()) == {"random@player_0", "connect_four_heuristic@player_1"}
    assert all(verify_game(g) is None for g in games)
    assert main(["play", "tic_tac_toe", "--seed", "1", "--record", str(db)]) == 2
    assert "holds other games" in capsys.readouterr().err


def test_a_forfeited_game_is_replayed_up_to_the_forfeit(tmp_path, capsys, monkeypatch):
    db = tmp_path / "forfeit.db"
    monkeypatch.setattr("sys.stdin", io.StringIO("q\n"))
    code = main(["play", "tic_tac_toe", "--agents", "random,human", "--seed", "4", "--record", str(db)])
    assert code == 3  # the person typed q: a forfeit
    game = load_games(db)[0]
    assert game.result.forfeit == "human@player_1" and game.result.outcome == "human@player_1 forfeits"
    assert verify_game(game) is None and len(game.steps) == 1
    assert main(["replay", str(db), "--verify"]) == 0
    assert "1 forfeited, replayed up to the forfeit" in capsys.readouterr().out


def test_eye_view_of_an_entrant_behind_interfaces(tmp_path_factory):
    eye = 'ego=behind_interface{"agent": "random", "interface": "ego_board", "interface_kwargs": {"planes": true}}'
    db = _tournament(tmp_path_factory, "tic_tac_toe", games=2, entrants=["random", eye])
    game = load_game(db, 1)
    seat = next(s for s, name in game.result.seats.items() if name == "ego")
    views = [f.eye[seat] for f in replay(game, eye=True) if seat in f.eye]
    assert len(views) == sum(1 for step in game.steps if seat in step)
    assert all(v.matches for v in views)
    first = views[0]
    assert first.space.contains(first.observation) and np.asarray(first.observation).ndim == 3
    assert first.raw_action == first.action  # ego_board keeps the actions


def test_a_trained_agent_folder_is_replayed_with_its_eye_view(tmp_path):
    pytest.importorskip("sb3_contrib")
    from sb3_contrib import MaskablePPO

    from arena.errors import AgentFolderError
    from arena.replay.html import game_data
    from arena.specs.interfaces import build_interface
    from arena.training import SingleAgentEnv
    from arena.training.trained import load_trained_agent, save_trained_agent

    spec = "flatten(ego_board(planes=true))"
    env = SingleAgentEnv("tic_tac_toe", "random", interface=build_interface(spec))
    model = MaskablePPO("MlpPolicy", env, n_steps=32, seed=0)  # untrained: the folder is what matters here
    folder = tmp_path / "ttt_agent"
    save_trained_agent(
        folder,
        model,
        algo="maskable-ppo",
        env="tic_tac_toe",
        env_options={},
        interface=spec,
        trained_stack=env.interface,
    )
    db = tmp_path / "trained.db"
    run_tournament("tic_tac_toe", ["random", str(folder)], games=2, db=db, execution=INLINE)
    assert main(["replay", str(db), "--verify"]) == 0  # verifying needs no entrant code
    untrusted = load_game(db, 1)
    seat = next(s for s, name in untrusted.result.seats.items() if name == "ttt_agent")
    assert untrusted.entrants["ttt_agent"].kwargs["interface"] == spec  # the file records the folder's stack
    shown = game_data(untrusted)  # the folder's pickle is code: not loaded from a file's word, its stack is
    assert seat in shown["eye_seats"] and "replay --trust loads it" in untrusted.notes[0]
    eyes = [f["eye"][seat] for f in shown["frames"] if seat in f["eye"]]
    assert eyes and all(e["action"] is None and e["matches"] is None for e in eyes)
    assert [(p["kind"], len(p["v"])) for p in eyes[0]["parts"]] == [("bars", 18)]  # the flattened ego planes
    tampered = dataclasses.replace(
        untrusted.entrants["ttt_agent"], kwargs={**untrusted.entrants["ttt_agent"].kwargs, "interface": "os:system"}
    )
    untrusted = dataclasses.replace(untrusted, entrants={"ttt_agent": tampered}, notes=[])
    assert seat not in game_data(untrusted)["eye_seats"]  # a module:callable in the recorded stack is not imported
    assert "its recorded interfaces cannot be built" in untrusted.notes[0] and "'os:system'" in untrusted.notes[0]
    with pytest.raises(AgentFolderError, match="recorded behind 'flatten\\(ego_board\\)', but its agent.json now"):
        load_trained_agent(folder, interface="flatten(ego_board)")
    # A file written before entrants recorded the stack resumes with the folder as the same entrant.
    with sqlite3.connect(db) as connection:
        connection.execute("UPDATE entrants SET kwargs = ? WHERE name = 'ttt_agent'", (f'{{"path": "{folder}"}}',))
    run_tournament("tic_tac_toe", ["random", str(folder)], games=2, db=db, execution=INLINE)
    game = load_game(db, 1, trust=True)
    views = [f.eye[seat] for f in replay(game, eye=True) if seat in f.eye]
    assert views and all(v.matches for v in views)  # the policy is deterministic: same moves again
    assert views[0].observation.shape == (18,)  # what the network saw: the flattened ego planes
    data = game_data(game)
    assert seat in data["eye_seats"] and any(f["eye"].get(seat, {}).get("parts") for f in data["frames"])


def test_a_game_of_a_shipped_agent_is_replayed_with_its_eye_view_without_trust(tmp_path, capsys):
    """A shipped agent is a registered name: its folder is arena's own, its algorithm class arena's choice."""
    pytest.importorskip("sb3_contrib")
    db = tmp_path / "pm.db"
    entrants = ["ppo=pommerman_team_ppo+pommerman_team_ppo", "simple=pommerman_simple"]
    run_tournament(
        rules=TournamentRules.make("pommerman", entrants, games=1, env_kwargs={"mode": "team", "max_steps": 12}),
        db=db,
        execution=INLINE,
    )
    page = tmp_path / "pm.html"
    assert main(["replay", str(db), "--game", "1", "--html", str(page)]) == 0
    assert "note:" not in capsys.readouterr().out  # no "no agent's-eye view of 'ppo' ... pass --trust"
    game = load_game(db, 1)
    seats = {seat for seat, name in game.result.seats.items() if name == "ppo"}
    views = [f.eye for f in replay(game, eye=True)]
    assert seats == {seat for eye in views for seat in eye} and not game.notes
    assert all(view.matches for eye in views for view in eye.values())  # deterministic: the stored moves again


def test_report_html_links_each_game_to_its_replay_page(ttt_db, tmp_path, capsys):
    html = tmp_path / "report.html"
    assert main(["report", str(ttt_db), "--html", str(html), "--replay-pages", "--bootstrap", "0"]) == 0
    text = html.read_text()
    links = re.findall(r"href='(report_replays/[^']+\.html)'", text)
    assert len(links) == 4 and all((tmp_path / link).is_file() for link in links)
    assert "const GAME = " in (tmp_path / links[0]).read_text()
    assert main(["report", str(ttt_db), "--replay-pages"]) == 2
    assert "--replay-pages links the games of the --html page: give --html FILE too" in capsys.readouterr().err


class UnreproducibleTicTacToe(TicTacToe):
    """Tic-tac-toe that declares, as networked game engines do, that seed and actions do not fix its episodes."""

    metadata = {**TicTacToe.metadata, "reproducible": False}


class CountedTicTacToe(TicTacToe):
    """Tic-tac-toe that counts how many times it is built."""

    built = 0

    def __init__(self, **kwargs):
        super().__init__(**kwargs)
        type(self).built += 1


def test_verify_replays_a_files_games_on_one_env_and_a_fresh_one_after_a_mismatch(tmp_path, capsys):
    db = tmp_path / "counted.db"
    run_tournament(f"{__name__}:CountedTicTacToe", ["random", "b=random"], games=6, db=db, execution=INLINE)
    CountedTicTacToe.built = 0
    assert main(["replay", str(db), "--verify", "--trust"]) == 0
    assert "verified 6 games" in capsys.readouterr().out and CountedTicTacToe.built == 1
    with sqlite3.connect(db) as file:  # game 1's first move changed: another game, a mismatch
        lineup, index, blob = file.execute("SELECT lineup, game_index, actions FROM replays ORDER BY rowid").fetchone()
        steps = decode_actions(blob)
        first = next(iter(steps[0]))
        steps[0] = {first: (steps[0][first] + 1) % 9}
        file.execute(
            "UPDATE replays SET actions = ? WHERE lineup = ? AND game_index = ?",
            (encode_actions(["player_0", "player_1"], steps), lineup, index),
        )
    CountedTicTacToe.built = 0
    assert main(["replay", str(db), "--verify", "--trust"]) == 1
    out = capsys.readouterr().out
    assert "1 mismatches" in out and CountedTicTacToe.built == 2  # the env of the mismatch is not played on again


def test_verify_refuses_a_file_it_cannot_verify(ttt_db, tmp_path_factory, tmp_path, capsys):
    copy = tmp_path / "no_actions.db"
    with sqlite3.connect(ttt_db) as source, sqlite3.connect(copy) as target:
        source.backup(target)
    with sqlite3.connect(copy) as db:
        db.execute("DELETE FROM replays")
    assert main(["replay", str(copy), "--verify"]) == 2
    err = capsys.readouterr().err
    assert f"replay --verify: none of the 4 games of {copy} has stored actions" in err and "nothing to verify" in err
    db = tmp_path_factory.mktemp("unreproducible") / "u.db"
    run_tournament(f"{__name__}:UnreproducibleTicTacToe", ["random", "b=random"], games=2, db=db, execution=INLINE)
    assert main(["replay", str(db), "--verify", "--trust"]) == 2
    err = capsys.readouterr().err
    assert (
        "declares that its episodes do not follow from seed and actions" in err
        and "can be watched, not verified" in err
    )


def test_env_options_replay_a_file_stored_before_a_default_changed(tmp_path, capsys):
    """pong_2p's ball_spin was 3 by default until 27 Nov 2026: a file from then stored no ball_spin."""
    db = tmp_path / "old_pong.db"
    run_tournament(
        rules=TournamentRules.make(
            "pong_2p", ["pong_ai", "random"], games=4, env_kwargs={"rounds": 3, "ball_spin": 3.0}
        ),
        db=db,
        execution=INLINE,
    )
    with sqlite3.connect(db) as file:  # what the file of a game played at the old default held
        file.execute("UPDATE meta SET value = ? WHERE key = 'env_kwargs'", ('{"rounds": 3}',))
    assert main(["replay", str(db), "--verify"]) == 1  # replayed at today's default: another game
    assert "MISMATCH" in capsys.readouterr().out
    assert main(["replay", str(db), "--verify", "--env-options", '{"ball_spin": 3}']) == 0
    out = capsys.readouterr().out
    assert "verified 4 games of" in out and ": 0 mismatches" in out
    html = tmp_path / "g1.html"
    assert main(["replay", str(db), "--game", "1", "--html", str(html), "--env-options", '{"ball_spin": 3}']) == 0
    assert html.stat().st_size > 0
    assert main(["replay", str(db), "--verify", "--env-options", "[3]"]) == 2
    assert "--env-options" in capsys.readouterr().err
