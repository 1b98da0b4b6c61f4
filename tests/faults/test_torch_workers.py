"""The path users take right after training: a process that has run torch (its OpenMP threads
are alive) starts a tournament with two workers. Forked workers of such a process can hang;
workers start from a fork server by default, and the run must finish (subprocess under a timeout).
The hang does not reproduce on every machine, so a probe entrant also forfeits when its worker
was forked: switching the default back to fork fails this test everywhere."""

from __future__ import annotations

import json
import os
import signal
import subprocess
import sys

import pytest

from tests.faults.helpers import ROOT

pytest.importorskip("sb3_contrib")
pytest.importorskip("torch")

SCRIPT = """
import json, sys
import torch
from arena.cli import main
from arena.tournament import run_tournament

out = sys.argv[1]
torch.set_num_threads(2)
torch.ones(256, 256) @ torch.ones(256, 256)  # the parent's OpenMP pool is up
assert main(["train", "tic_tac_toe", "--algo", "maskable-ppo", "--timesteps", "128", "--n-envs", "1",
             "--eval-every", "128", "--eval-games", "2", "--progress", "none", "--out", out]) == 0
# the trained folder, and a probe that forfeits if its worker was forked from this threaded process
result = run_tournament("tic_tac_toe", [out, "probe=tests.faults.entrants:NotForkedAgent"], games=4, seed=0, workers=2)
print(json.dumps({"games": len(result.games), "forfeits": len(result.forfeits), "errors": len(result.errors)}))
"""


def test_a_tournament_with_a_trained_torch_entrant_and_two_workers_finishes(tmp_path):
    process = subprocess.Popen(
        [sys.executable, "-c", SCRIPT, str(tmp_path / "run")],
        cwd=ROOT,
        text=True,
        stdout=subprocess.PIPE,
        stderr=subprocess.PIPE,
        start_new_session=True,
    )
    try:
        out, err = process.communicate(timeout=240)
    except subprocess.TimeoutExpired:
        os.killpg(process.pid, signal.SIGKILL)  # the run and its workers
        out, err = process.communicate()
        raise AssertionError(f"the tournament hung after training (killed after 240 s): {err}") from None
    assert process.returncode == 0, err
    assert json.loads(out.strip().splitlines()[-1]) == {"games": 4, "forfeits": 0, "errors": 0}
