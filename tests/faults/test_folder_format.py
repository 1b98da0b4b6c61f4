"""Trained-agent folders are tensors and JSON: opening one runs no code from it, and a save that is
killed at any moment leaves a folder that loads.

The promises (docs/reliability.md): a folder holding a pickle that would run code is refused without
trust, or loaded without ever opening the pickle, and the pickle's payload never runs; every class
a manifest names is imported only from installed libraries and arena's plugins; a save killed
between any two of its writes (simulated, and a real SIGKILL of a process saving in a loop) leaves
the previous agent or the new one; a model file cut short says the save was interrupted; a model
that lacks its spaces is one line naming it.
"""

from __future__ import annotations

import base64
import json
import os
import pickle
import signal
import subprocess
import sys
import zipfile
from pathlib import Path

import pytest

pytest.importorskip("sb3_contrib")

from arena.errors import AgentFolderError, ArenaError, UntrustedCodeError  # noqa: E402
from arena.registry import reading_data  # noqa: E402
from arena.training.trained import (  # noqa: E402
    check_digest,
    load_trained_agent,
    model_digest,
    read_manifest,
    save_trained_agent,
)
from tests.faults.helpers import ROOT  # noqa: E402

ENV = "tic_tac_toe"


def _model(seed: int):
    from sb3_contrib import MaskablePPO

    from arena.training import SingleAgentEnv

    return MaskablePPO("MlpPolicy", SingleAgentEnv(ENV, "random"), n_steps=16, seed=seed)


def _save(folder: Path, model, **options) -> Path:
    return save_trained_agent(folder, model, algo="maskable-ppo", env=ENV, env_options={}, interface=None, **options)


class _WritesMarker:
    """Unpickling this writes a file: what a hostile pickle in a model would do."""

    def __init__(self, marker: Path) -> None:
        self.marker = marker

    def __reduce__(self):
        return (Path.write_text, (self.marker, "the pickle ran\n"))


def _zip_with(path: Path, edit) -> None:
    """Rewrite the ``data`` JSON of an SB3 zip through ``edit(data)``."""
    with zipfile.ZipFile(path) as source:
        entries = {name: source.read(name) for name in source.namelist()}
    data = json.loads(entries["data"])
    edit(data)
    entries["data"] = json.dumps(data).encode()
    with zipfile.ZipFile(path, "w") as target:
        for name, content in entries.items():
            target.writestr(name, content)


def _payload(marker: Path):
    def edit(data: dict) -> None:
        data["payload"] = {
            ":type:": "<class 'object'>",
            ":serialized:": base64.b64encode(pickle.dumps(_WritesMarker(marker))).decode(),
        }

    return edit


def _format_one(folder: Path, model, edit=None) -> Path:
    """A format-1 folder as arena wrote them before: SB3's zip and a manifest naming it."""
    folder.mkdir(parents=True)
    model.save(str(folder / "model.zip"))
    if edit is not None:
        _zip_with(folder / "model.zip", edit)
    manifest = {
        "format": "arena-agent",
        "format_version": 1,
        "algo": "maskable-ppo",
        "model": "model.zip",
        "interface": None,
        "env": ENV,
        "env_options": {},
        "model_sha256": model_digest(folder / "model.zip"),
    }
    (folder / "agent.json").write_text(json.dumps(manifest))
    return folder


def _actions(agent) -> list[int]:
    """The agent's moves on a few fixed tic-tac-toe positions."""
    import envs

    env = envs.make(ENV)
    observations, infos = env.reset(seed=0)
    moves = []
    for _ in range(4):
        seat = next(iter(observations))
        agent.reset()
        action = int(agent.act(observations[seat], infos[seat]["action_mask"]))
        moves.append(action)
        observations, _, _, _, infos = env.step({seat: action})
    return moves


def test_a_pickle_that_would_run_code_is_refused_without_trust_and_never_runs(tmp_path):
    marker = tmp_path / "marker"
    folder = _format_one(tmp_path / "old", _model(0), edit=_payload(marker))
    with pytest.raises(AgentFolderError) as caught:
        load_trained_agent(folder)
    text = str(caught.value)
    assert "format-1 folder" in text and "runs the pickled code" in text and "arena.training.convert" in text
    assert "\n" not in text and not marker.exists()
    from arena.training.convert import main as convert

    assert convert([str(folder)]) == 2  # converting loads the zip: only with --trust
    assert not marker.exists()
    with reading_data("results file 'x.db'", trust=["tests.faults.marker:make_env"]), pytest.raises(AgentFolderError):
        load_trained_agent(folder)  # a file trusted for some names only: not for a folder's pickle
    assert not marker.exists()
    with reading_data("results file 'x.db'", trust=True):  # replay --trust: the user trusts the file whole
        load_trained_agent(folder)
    assert marker.read_text() == "the pickle ran\n"  # trust is the one door, and the payload does run behind it
    marker.unlink()
    load_trained_agent(folder, trust=True)
    assert marker.exists()


def test_a_folder_loads_without_opening_the_sb3_zip_it_carries(tmp_path):
    marker = tmp_path / "marker"
    folder = tmp_path / "c4"
    _save(folder, _model(0), sb3_zip=True)
    _zip_with(folder / "model.zip", _payload(marker))  # a hostile zip beside the weights
    agent = load_trained_agent(folder)
    assert len(_actions(agent)) == 4 and not marker.exists()


def test_a_converted_folder_acts_as_its_zip_did_and_loads_untrusted(tmp_path):
    model = _model(3)
    folder = _format_one(tmp_path / "old", model)
    before = _actions(load_trained_agent(folder, trust=True))
    from arena.training.convert import main as convert

    assert convert([str(folder), "--trust"]) == 0
    manifest = read_manifest(folder)
    assert manifest["format_version"] == 2 and not (folder / "model.zip").exists()
    assert _actions(load_trained_agent(folder)) == before


@pytest.mark.parametrize(
    "name,expected",
    [
        ("tests.faults.marker:make_env", UntrustedCodeError),  # not an installed library or plugin
        ("os:system", UntrustedCodeError),
        ("torch:load", AgentFolderError),  # an installed library, but not a module or optimizer class
    ],
)
def test_a_class_the_manifest_names_is_imported_only_from_installed_code(tmp_path, monkeypatch, name, expected):
    monkeypatch.setenv("ARENA_TEST_MARKER", str(tmp_path / "marker"))
    folder = tmp_path / "c4"
    _save(folder, _model(0))
    manifest = json.loads((folder / "agent.json").read_text())
    manifest["policy"]["kwargs"]["activation_fn"] = {"$class": name}
    (folder / "agent.json").write_text(json.dumps(manifest))
    with pytest.raises(expected) as caught:
        load_trained_agent(folder)
    assert name in str(caught.value) and "\n" not in str(caught.value)
    assert not (tmp_path / "marker").exists()  # tests.faults.marker was never imported


@pytest.mark.parametrize(
    "kwargs",
    [{"net_arch": [-5]}, {"net_arch": "wide"}, {"no_such_argument": 1}],  # RuntimeError, TypeErrors
)
def test_policy_arguments_the_class_cannot_take_are_one_line(tmp_path, kwargs):
    folder = tmp_path / "c4"
    _save(folder, _model(0))
    manifest = json.loads((folder / "agent.json").read_text())
    manifest["policy"]["kwargs"].update(kwargs)
    (folder / "agent.json").write_text(json.dumps(manifest))
    with pytest.raises(AgentFolderError) as caught:
        load_trained_agent(folder)
    assert "does not take its stored arguments" in str(caught.value) and "\n" not in str(caught.value)


def _manifest_sha(folder: Path) -> str:
    return json.loads((folder / "agent.json").read_text())["model_sha256"]


def test_a_save_killed_between_any_two_writes_leaves_the_old_agent_or_the_new(tmp_path, monkeypatch):
    """Each rename is a point where a kill may land: crash at every one in turn, then load."""
    import arena.atomic
    import arena.training.trained as trained

    old_model, new_model = _model(0), _model(1)
    reference = tmp_path / "reference"
    _save(reference, old_model)
    old = (_manifest_sha(reference), _actions(load_trained_agent(reference)))
    _save(reference, new_model)
    new = (_manifest_sha(reference), _actions(load_trained_agent(reference)))
    assert old != new
    real_replace = os.replace
    outcomes = set()
    for crash_at in range(1, 5):  # three renames (weights, optimizer, manifest), then none
        folder = tmp_path / f"crash{crash_at}"
        _save(folder, old_model)
        calls = []

        def replace(source, target, calls=calls, crash_at=crash_at):
            calls.append(target)
            if len(calls) == crash_at:
                raise KeyboardInterrupt("killed")  # what a kill leaves: nothing after this runs
            real_replace(source, target)

        monkeypatch.setattr(trained.os, "replace", replace)
        monkeypatch.setattr(arena.atomic.os, "replace", replace)
        try:
            _save(folder, new_model)
        except KeyboardInterrupt:
            pass
        monkeypatch.undo()
        loaded = (_manifest_sha(folder), _actions(load_trained_agent(folder)))
        assert loaded in (old, new), crash_at
        outcomes.add(loaded == new)
    assert outcomes == {False, True}  # early crashes keep the old agent, late ones have the new


SAVING_LOOP = """
import sys
from sb3_contrib import MaskablePPO
from arena.training import SingleAgentEnv
from arena.training.trained import save_trained_agent
model = MaskablePPO("MlpPolicy", SingleAgentEnv("tic_tac_toe", "random"), n_steps=16, seed=0)
for step in range(10_000):
    for parameter in model.policy.parameters():
        parameter.data.add_(0.01)
    save_trained_agent(sys.argv[1], model, algo="maskable-ppo", env="tic_tac_toe", env_options={}, interface=None)
    print("saved", step, flush=True)
"""


def test_a_process_killed_while_it_saves_leaves_a_folder_that_loads(tmp_path):
    folder = tmp_path / "c4"
    process = subprocess.Popen(
        [sys.executable, "-c", SAVING_LOOP, str(folder)],
        cwd=ROOT,
        stdout=subprocess.PIPE,
        text=True,
        env={**os.environ, "PYTHONPATH": str(ROOT), "OMP_NUM_THREADS": "1"},
        start_new_session=True,
    )
    try:
        for _ in range(3):  # a few saves done: the next one is under way when the kill lands
            assert process.stdout is not None and process.stdout.readline().startswith("saved")
    finally:
        os.killpg(process.pid, signal.SIGKILL)
        process.wait()
    assert len(_actions(load_trained_agent(folder))) == 4
    manifest = read_manifest(folder)
    weights = {path.name for path in folder.glob("model-*.safetensors")}
    assert manifest["model"] in weights and len(weights) <= 2  # at most the one a kill cut off is left over
    (folder / "model-0123456789ab.safetensors").write_bytes(b"cut off")  # as a kill after a rename leaves it
    (folder / ".model.safetensors.1.partial").write_bytes(b"cut off")  # as a kill mid-write leaves it
    _save(folder, _model(0))  # the next save tidies what a kill left
    assert {path.name for path in folder.iterdir()} == {
        "agent.json",
        read_manifest(folder)["model"],
        read_manifest(folder)["training"]["optimizer"],
    }


def test_a_model_cut_short_says_the_save_was_interrupted(tmp_path):
    folder = tmp_path / "c4"
    _save(folder, _model(0))
    weights = folder / read_manifest(folder)["model"]
    whole = weights.read_bytes()
    weights.write_bytes(whole[: len(whole) // 2])
    with pytest.raises(AgentFolderError) as caught:
        load_trained_agent(folder)
    text = str(caught.value)
    assert "is incomplete" in text and "a save into this folder was interrupted" in text
    assert "train again, or copy the folder again" in text and "changed or replaced" not in text
    weights.write_bytes(whole[:-1] + bytes([whole[-1] ^ 1]))  # whole, one bit changed
    with pytest.raises(AgentFolderError, match="changed or replaced after it was saved"):
        load_trained_agent(folder)
    manifest = (folder / "agent.json").read_text()
    (folder / "agent.json").write_text(manifest[: len(manifest) // 2])  # as a save in place left it when killed
    with pytest.raises(AgentFolderError, match="is not valid JSON .*was interrupted: train again, or copy the folder"):
        load_trained_agent(folder)
    old = _format_one(tmp_path / "old", _model(0))
    zipped = (old / "model.zip").read_bytes()
    (old / "model.zip").write_bytes(zipped[: len(zipped) - 100])  # SB3's zip cut off before its directory
    with pytest.raises(AgentFolderError, match="model.zip is incomplete"):
        load_trained_agent(old, trust=True)


def test_a_model_without_its_spaces_is_one_line_or_takes_them_from_the_env(tmp_path):
    from arena.training import load_sb3_agent

    def drop_spaces(data: dict) -> None:
        del data["observation_space"], data["action_space"]

    folder = _format_one(tmp_path / "old", _model(0), edit=drop_spaces)
    with pytest.raises(ArenaError) as caught:
        load_sb3_agent(folder / "model.zip")
    text = str(caught.value)
    assert str(folder / "model.zip") in text and "does not record its observation and action spaces" in text
    assert "\n" not in text and "KeyError" not in text
    # A folder has an env and an interface: its spaces come from them, and it converts.
    assert len(_actions(load_trained_agent(folder, trust=True))) == 4
    from arena.training.convert import convert_folder

    convert_folder(folder)
    assert len(_actions(load_trained_agent(folder))) == 4


def test_weights_that_do_not_fit_are_one_line_naming_the_folder(tmp_path):
    folder, other = tmp_path / "c4", tmp_path / "other"
    _save(folder, _model(0))
    from sb3_contrib import MaskablePPO

    from arena.training import SingleAgentEnv

    small = MaskablePPO("MlpPolicy", SingleAgentEnv(ENV, "random"), n_steps=16, policy_kwargs={"net_arch": [8]})
    _save(other, small)
    manifest = json.loads((folder / "agent.json").read_text())
    other_manifest = read_manifest(other)
    (folder / other_manifest["model"]).write_bytes((other / other_manifest["model"]).read_bytes())
    manifest["model"], manifest["model_sha256"] = other_manifest["model"], other_manifest["model_sha256"]
    (folder / "agent.json").write_text(json.dumps(manifest))
    with pytest.raises(AgentFolderError) as caught:
        load_trained_agent(folder)
    text = str(caught.value)
    assert str(folder) in text and "does not fit the policy built for these spaces" in text and "\n" not in text
    assert check_digest(folder, manifest["model"], manifest["model_sha256"]).is_file()


def test_a_folder_without_its_optimizer_goes_on_training_with_a_fresh_one(tmp_path):
    """As the shipped agents are: weights and hyperparameters, no optimizer state; restore_model
    (arena train --load) rebuilds the model with them; a folder saved only to play says so."""
    import torch
    from stable_baselines3.common.env_util import make_vec_env

    from arena.training import SingleAgentEnv
    from arena.training.trained import restore_model

    model = _model(4)
    _save(tmp_path / "shipped", model, optimizer_state=False)
    manifest = read_manifest(tmp_path / "shipped")
    assert manifest["training"]["optimizer"] is None and manifest["training"]["algo_options"]["n_steps"] == 16
    assert not list((tmp_path / "shipped").glob("optimizer-*"))
    restored = restore_model(tmp_path / "shipped", make_vec_env(lambda: SingleAgentEnv(ENV, "random"), 1))
    assert restored.n_steps == 16 and restored.policy.optimizer.state_dict()["state"] == {}  # a fresh optimizer
    for name, tensor in model.policy.state_dict().items():
        assert torch.equal(tensor, restored.policy.state_dict()[name]), name
    manifest["training"]["algo_options"]["tensorboard_log"] = str(tmp_path / "logs")  # data choosing a folder
    (tmp_path / "shipped" / "agent.json").write_text(json.dumps(manifest))
    with pytest.raises(AgentFolderError, match="holds 'tensorboard_log', which are not MaskablePPO's hyperparameters"):
        restore_model(tmp_path / "shipped", make_vec_env(lambda: SingleAgentEnv(ENV, "random"), 1))
    _save(tmp_path / "play", model, training_state=False)
    with pytest.raises(AgentFolderError, match="was saved to play only"):
        restore_model(tmp_path / "play", make_vec_env(lambda: SingleAgentEnv(ENV, "random"), 1))
