"""Trained-agent folders: every entrant shape readable from a results file; broken or tampered
folders refused with one line naming what is wrong."""

from __future__ import annotations

import json
import shutil
from pathlib import Path

import pytest

pytest.importorskip("sb3_contrib")

from arena.cli import build_parser, main  # noqa: E402
from arena.errors import AgentFolderError, UntrustedCodeError  # noqa: E402
from arena.replay.source import list_games  # noqa: E402
from arena.specs.agents import AgentSpec  # noqa: E402
from arena.training.trained import load_trained_agent, save_trained_agent  # noqa: E402

ENV = "team_rock_paper_scissors"


@pytest.fixture(scope="module")
def folder(tmp_path_factory) -> Path:
    """An (untrained) agent folder for the team game, named c4 as a user would."""
    from sb3_contrib import MaskablePPO

    from arena.training import SingleAgentEnv

    path = tmp_path_factory.mktemp("runs") / "c4"
    model = MaskablePPO("MlpPolicy", SingleAgentEnv(ENV, "random"), n_steps=16, seed=0)
    save_trained_agent(path, model, algo="maskable-ppo", env=ENV, env_options={}, interface=None)
    return path


def copy_of(folder: Path, tmp_path: Path) -> Path:
    target = tmp_path / "copy" / folder.name
    shutil.copytree(folder, target)
    return target


def edit_manifest(folder: Path, **changes) -> None:
    manifest = json.loads((folder / "agent.json").read_text())
    for key, value in changes.items():
        if value is ...:
            manifest.pop(key)
        else:
            manifest[key] = value
    (folder / "agent.json").write_text(json.dumps(manifest))


@pytest.fixture(scope="module")
def every_shape(folder, tmp_path_factory) -> Path:
    """A results file of the team game with every entrant shape: registered, module:callable{kwargs},
    a trained folder, and a team of each."""
    from arena.tournament import run_tournament

    db = tmp_path_factory.mktemp("shapes") / "t.sqlite"
    entrants = [
        "reg=random",
        'call=arena.agents.base:RandomAgent{"seed": 1}',
        str(folder),
        "team_reg=random+beat_most_common",
        'team_call=envs.rock_paper_scissors:BeatMostCommonAgent+arena.agents.base:RandomAgent{"seed": 2}',
        f"team_folder={folder}+random",
    ]
    run_tournament(ENV, entrants, games=2, db=db, workers=1, seed=5)
    return db


def test_every_reader_reads_every_entrant_shape(every_shape, tmp_path, capsys):
    assert main(["report", str(every_shape), "--bootstrap", "2", "--json", "-"]) == 0
    report = json.loads(capsys.readouterr().out)
    names = {row["name"]: row for row in report["standings"]}
    assert set(names) == {"reg", "call", "c4", "team_reg", "team_call", "team_folder"}
    assert names["team_folder"]["label"] == "c4+random"  # the folder by its name; its path in "factory"
    assert str(every_shape.parent.parent) not in names["team_folder"]["label"]
    assert "load_trained_agent" in names["team_folder"]["factory"]
    assert main(["replay", str(every_shape), "--verify"]) == 0
    assert "0 mismatches" in capsys.readouterr().out
    for game, result, has_actions in list_games(every_shape):
        if not has_actions or not {"c4", "team_folder", "team_call"} & set(result.seats.values()):
            continue
        page = tmp_path / f"g{game}.html"
        assert main(["replay", str(every_shape), "--game", str(game), "--html", str(page)]) == 0, (
            capsys.readouterr().err
        )
        assert "load_trained_agent" not in page.read_text()  # a folder is shown by its name, not as a factory


def test_a_missing_folder_says_so(capsys):
    assert main(["tournament", ENV, "--agents", "runs/no_such_c4,random", "--games", "1"]) == 2
    assert "no such agent folder: runs/no_such_c4" in capsys.readouterr().err
    with pytest.raises(ValueError, match="no such agent folder: runs/no_such_c4"):
        AgentSpec.parse("t=runs/no_such_c4+random")


def test_help_says_a_trained_folder_is_an_agent():
    commands = build_parser()._subparsers._group_actions[0].choices
    for command, option in (("tournament", "--agents"), ("play", "--agents"), ("play", "--vs"), ("serve", "--vs")):
        action = next(a for a in commands[command]._actions if option in a.option_strings)
        assert "trained folder" in action.help, (command, option)


BROKEN = {
    "a missing key": ({"model": ...}, "agent.json has no 'model'"),
    "a key of the wrong type": ({"env": 7}, "key 'env' must be text, got int"),
    "a misnamed model file": ({"model": "modle.safetensors"}, "names 'modle.safetensors', which is not in the folder"),
    "a model path that is a folder": ({"model": "."}, "names '.', which is a folder, not a file"),
    "a path outside the folder": ({"model": "../../../../etc/hostname"}, "lies outside the folder"),
    "an absolute path": ({"model": "/etc/hostname"}, "must name a file inside the folder"),
    "an env named by module:callable": ({"env": "tests.faults.marker:make_env"}, "pass --trust"),
    "an interface named by module:Class": ({"interface": "tests.faults.marker:make_env"}, "pass --trust"),
}


@pytest.mark.parametrize("damage", sorted(BROKEN))
def test_a_broken_folder_is_one_line_naming_what_is_wrong(folder, tmp_path, damage):
    changes, expected = BROKEN[damage]
    broken = copy_of(folder, tmp_path)
    edit_manifest(broken, **changes)
    with pytest.raises((AgentFolderError, UntrustedCodeError)) as caught:
        load_trained_agent(broken)
    assert expected in str(caught.value) and "\n" not in str(caught.value)


def test_a_replaced_model_file_is_refused_before_it_is_loaded(folder, tmp_path):
    tampered = copy_of(folder, tmp_path)
    weights = tampered / json.loads((tampered / "agent.json").read_text())["model"]
    weights.write_bytes(weights.read_bytes() + b"\0")
    with pytest.raises(AgentFolderError, match="does not have the SHA-256 its manifest records.*changed or replaced"):
        load_trained_agent(tampered)
    assert load_trained_agent(folder) is not None  # the untouched folder loads
