"""MaskablePPO with self-play on connect four: timesteps and wall time to reach strength targets.

A benchmark, not a test. The learner plays both seats (drawn at random every game)
through :class:`arena.training.SingleAgentEnv`, behind ``interfaces.board.EgoBoard``
(own discs +1, the opponent's -1) when the interfaces package is present. Its opponents
come from an :class:`arena.training.OpponentPool` that starts with
:class:`arena.RandomAgent` and grows with frozen snapshots of the learner, promoted by
:class:`arena.training.callbacks.SelfPlayCallback` whenever the learner scores at least
``--promote-at`` against the pool (sampled uniformly over history, as the Arena toolkit
does). The heuristic agent is never a training opponent: it is only measured against.

Every ``--eval-every`` timesteps the deterministic learner plays ``--eval-games`` seeded
games (both seats equally) against RandomAgent and against the connect-four heuristic
agent (win if you can, block if you must, else random). The run stops when both targets
are met (default: win rate >= 90% vs random and >= 60% vs the heuristic) or after
``--minutes`` of wall time, and prints when each target was first reached. It writes the
evaluation CSV and the learning-curve PNG.

Run (as recorded in docs/performance.md)::

    python bench/train_connect_four.py --minutes 18 --out bench-out/c4
"""

from __future__ import annotations

import argparse
import json
import time
from pathlib import Path

import torch
from sb3_contrib import MaskablePPO
from stable_baselines3.common.env_util import make_vec_env
from stable_baselines3.common.vec_env import SubprocVecEnv

import envs
from arena import RandomAgent
from arena.agents.connect_four import ConnectFourHeuristicAgent
from arena.training import OpponentPool, SingleAgentEnv
from arena.training.callbacks import SelfPlayCallback
from arena.training.report import plot_learning_curve


def learner_interface():
    try:
        from interfaces.board import EgoBoard
    except ImportError:  # the interfaces package is optional for this script
        return None
    return EgoBoard()


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--minutes", type=float, default=18.0, help="wall-time cap")
    parser.add_argument("--max-timesteps", type=int, default=20_000_000)
    parser.add_argument("--eval-every", type=int, default=25_000)
    parser.add_argument("--eval-games", type=int, default=100)
    parser.add_argument("--promote-at", type=float, default=0.6)
    parser.add_argument("--strategy", default="uniform", choices=("latest", "uniform"))
    parser.add_argument("--target-random", type=float, default=0.9)
    parser.add_argument("--target-heuristic", type=float, default=0.6)
    parser.add_argument("--n-envs", type=int, default=8)
    parser.add_argument("--subproc", action="store_true", help="step the envs in worker processes")
    parser.add_argument("--threads", type=int, default=1, help="torch threads in the learner process")
    parser.add_argument("--seed", type=int, default=0)
    parser.add_argument("--out", default="bench-out/train_connect_four")
    args = parser.parse_args()

    torch.set_num_threads(args.threads)
    out = Path(args.out)
    out.mkdir(parents=True, exist_ok=True)
    pool = OpponentPool([RandomAgent()], strategy=args.strategy, max_size=12)

    def make_single() -> SingleAgentEnv:
        return SingleAgentEnv(envs.make("connect_four"), pool, shuffle_seats=True, interface=learner_interface())

    vec_env = make_vec_env(make_single, n_envs=args.n_envs, seed=args.seed,
                           vec_env_cls=SubprocVecEnv if args.subproc else None)
    model = MaskablePPO("MlpPolicy", vec_env, seed=args.seed, device="cpu", learning_rate=3e-4,
                        n_steps=256, batch_size=512, n_epochs=4, gamma=0.99, ent_coef=0.01,
                        policy_kwargs={"net_arch": [256, 256]})
    reached: dict[str, dict] = {}
    started = time.perf_counter()
    cpu_started = time.process_time()

    def note(record: dict) -> None:
        for name, target in (("random", args.target_random), ("heuristic", args.target_heuristic)):
            if name not in reached and record[f"{name}_win_rate"] >= target:
                reached[name] = {key: record[key] for key in ("timesteps", "wall_s", "cpu_s")}
        print(f"{record['timesteps']:>9} steps {record['wall_s']:>6.0f} s wall {record['cpu_s']:>6.0f} s cpu  vs random {record['random_win_rate']:.2f}"
              f"  vs heuristic {record['heuristic_win_rate']:.2f} (draws {record['heuristic_draw_rate']:.2f})"
              f"  pool {record['pool_size']}{'  promoted' if record['promoted'] else ''}", flush=True)

    def done(record: dict) -> bool:
        over_time = time.perf_counter() - started > args.minutes * 60
        return len(reached) == 2 or over_time

    callback = SelfPlayCallback(
        envs.make("connect_four"), pool,
        {"random": RandomAgent(seed=1), "heuristic": ConnectFourHeuristicAgent(seed=2)},
        eval_every=args.eval_every, eval_games=args.eval_games, promote_at=args.promote_at,
        interface=learner_interface(), seed=args.seed, csv_path=out / "evaluations.csv",
        on_evaluation=note, stop_when=done)
    model.learn(args.max_timesteps, callback=callback)
    wall = time.perf_counter() - started
    cpu = time.process_time() - cpu_started
    model.save(str(out / "model.zip"))
    plot_learning_curve(callback.records, out / "learning_curve.png", references=["random", "heuristic"],
                        title="MaskablePPO self-play on connect four",
                        targets={"random": args.target_random, "heuristic": args.target_heuristic})
    best = {name: max(r[f"{name}_win_rate"] for r in callback.records) for name in ("random", "heuristic")}
    summary = {"timesteps": int(model.num_timesteps), "wall_s": round(wall, 1), "cpu_s": round(cpu, 1), "reached": reached,
               "best_win_rate": best, "promotions": callback.promotions, "pool_size": len(pool),
               "interface": str(learner_interface()), "n_envs": args.n_envs, "subproc": args.subproc,
               "threads": args.threads, "steps_per_s": round(model.num_timesteps / wall, 1)}
    (out / "summary.json").write_text(json.dumps(summary, indent=2) + "\n")
    print(json.dumps(summary, indent=2))


if __name__ == "__main__":
    main()
