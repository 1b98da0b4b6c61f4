"""MaskablePPO with self-play on connect four: timesteps and wall time to reach strength targets.

A benchmark, not a test. The learner plays both seats (drawn at random every game)
through :class:`arena.training.SingleAgentEnv`, behind ``interfaces.board.EgoBoard``
(own discs +1, the opponent's -1; two 0/1 planes with ``--policy cnn``) when the
interfaces package is present. Its opponents come from an
:class:`arena.training.OpponentPool`, sampled uniformly at every game, whose fixed members
are ``--train-against`` (default: RandomAgent once and the connect-four heuristic agent
twice, so the heuristic is drawn twice as often) and which grows with frozen snapshots of
the learner (the newest ``--snapshots`` are kept), promoted by
:class:`arena.training.promotion.PromotionCallback` whenever the learner scores at least
``--promote-at`` against the pool. Pure self-play from a random start never met the
heuristic's blocks and stayed near 0% against it; training against the yardstick
agents beside the snapshots is the usual curriculum (league-style opponent mix).

Every ``--eval-every`` timesteps the deterministic learner plays ``--eval-games`` seeded
games (both seats equally) against RandomAgent and against the connect-four heuristic
agent (win if you can, block if you must, else random). The run stops when both targets
are met (default: win rate >= 90% vs random and >= 60% vs the heuristic) at an
evaluation point and a check of ``--check-games`` more games against each, on seeds the
curve never used, confirms both; or after ``--minutes`` of wall time. It prints when each
target was first reached on the curve and when the check confirmed them.
It writes the evaluation CSV, the learning-curve PNG and ``summary.json``.

``--path both`` (the default) trains twice in one run, side by side on the same machine
and recipe: first the single-env path (``--n-envs`` :class:`SingleAgentEnv` copies in a
``DummyVecEnv``, as before), then the batched path
(:class:`arena.training.batched.BatchVecEnv`: ``--batch-envs`` games of
``ConnectFourBatch``, every opponent's moves for all waiting games in one call, one
forward per snapshot). It prints the wall time each path needed to confirm both targets
and their ratio, and where each path's time went: env (rules and scripted opponents),
opponent inference (frozen snapshots), learner inference (the rollout's forward passes
and the rest of SB3's collection loop), learner update (``train()``), evaluation.

The batched path's defaults (``--batch-*``) are ``arena train``'s own on its batched path
(``arena.training.recipe.BATCHED_RECIPE``: 64 games x 32 steps, minibatch 1,024, 4 epochs, two
layers of 128), and it plays its evaluation games in one batch
(:func:`arena.training.matches.match_batch`); the single path keeps today's recipe and
plays them one by one.

Run (the side-by-side run recorded in docs/performance.md)::

    python bench/train_connect_four.py --path both --minutes 20 --threads 1 --out bench-out/final
"""

from __future__ import annotations

import argparse
import json
import time
from pathlib import Path
from typing import Any

import gymnasium as gym
import torch
from sb3_contrib import MaskablePPO
from stable_baselines3.common.callbacks import BaseCallback, CallbackList
from stable_baselines3.common.env_util import make_vec_env
from stable_baselines3.common.torch_layers import BaseFeaturesExtractor
from stable_baselines3.common.vec_env import SubprocVecEnv, VecEnvWrapper, VecMonitor

import envs
from arena import RandomAgent
from arena.training import OpponentPool, SB3Agent, SingleAgentEnv
from arena.training.batched import BatchVecEnv
from arena.training.callbacks import (
    EvaluationCallback,
    EvaluationLogCallback,
    OnEvaluationCallback,
    StopTrainingOnRecord,
)
from arena.training.evaluation_games import EvaluationGames
from arena.training.matches import match, match_batch
from arena.training.promotion import PromotionCallback
from arena.training.recipe import BATCHED_RECIPE
from arena.training.report import plot_learning_curve
from envs.connect_four_agents import ConnectFourHeuristicAgent


def learner_interface(planes: bool = False):
    try:
        from interfaces.board import EgoBoard
    except ImportError:  # the interfaces package is optional for this script
        if planes:
            raise SystemExit(
                "--policy cnn needs the interfaces package (interfaces.board.EgoBoard(planes=True))"
            ) from None
        return None
    return EgoBoard(planes=planes)


class BoardCNN(BaseFeaturesExtractor):
    """Two 3x3 convolutions over the (own, opponent) planes of the 6x7 board, then a linear layer.

    Padding keeps the 6x7 grid, so every cell sees its neighbours in all four line
    directions; SB3's NatureCNN (8x8 stride 4) is made for 84x84 Atari frames and does not fit.
    """

    def __init__(self, observation_space: gym.spaces.Box, features_dim: int = 256, channels: int = 64) -> None:
        super().__init__(observation_space, features_dim)
        planes, rows, columns = observation_space.shape
        self.net = torch.nn.Sequential(
            torch.nn.Conv2d(planes, channels, 3, padding=1),
            torch.nn.ReLU(),
            torch.nn.Conv2d(channels, channels, 3, padding=1),
            torch.nn.ReLU(),
            torch.nn.Flatten(),
            torch.nn.Linear(channels * rows * columns, features_dim),
            torch.nn.ReLU(),
        )

    def forward(self, observations: torch.Tensor) -> torch.Tensor:
        return self.net(observations)


def fixed_opponent(name: str, seed: int):
    """A starting member of the training pool, by name."""
    if name == "random":
        return RandomAgent(seed=seed)
    if name == "heuristic":
        return ConnectFourHeuristicAgent(seed=seed)
    raise SystemExit(f"--train-against: expected 'random' or 'heuristic', got {name!r}")


class Clock:
    """Seconds spent in named parts of a run, each part without the parts nested in it.

    Inside ``evaluation`` nothing is split further (the learner's and the references'
    moves there are evaluation time).
    """

    def __init__(self) -> None:
        self.seconds: dict[str, float] = {}
        self._stack: list[list[Any]] = []

    def wrap(self, part: str, function):
        def timed(*args, **kwargs):
            if self._stack and self._stack[-1][0] == "evaluation":
                return function(*args, **kwargs)
            frame: list[Any] = [part, time.perf_counter(), 0.0]
            self._stack.append(frame)
            try:
                return function(*args, **kwargs)
            finally:
                self._stack.pop()
                elapsed = time.perf_counter() - frame[1]
                self.seconds[part] = self.seconds.get(part, 0.0) + elapsed - frame[2]
                if self._stack:
                    self._stack[-1][2] += elapsed

        return timed


class TimedVecEnv(VecEnvWrapper):
    """Counts the time spent stepping the envs (rules, scripted and frozen opponents)."""

    def __init__(self, venv, clock: Clock) -> None:
        super().__init__(venv)
        self.step_wait = clock.wrap("env_and_opponents", self.venv.step_wait)  # type: ignore[method-assign]
        self.reset = clock.wrap("env_and_opponents", self.venv.reset)  # type: ignore[method-assign]

    def reset(self):  # replaced per instance in __init__
        return self.venv.reset()

    def step_wait(self):  # replaced per instance in __init__
        return self.venv.step_wait()


def train(path: str, args: argparse.Namespace, out: Path) -> dict:
    """One training run on ``path`` ("single" or "batched"); returns its summary."""
    out.mkdir(parents=True, exist_ok=True)
    planes = args.policy == "cnn"
    batched = path == "batched"
    against = args.batch_train_against if batched and args.batch_train_against else args.train_against
    names = [name.strip() for name in against.split(",")]
    if batched:  # a name given twice is one agent drawn twice as often: one act_batch call for its games
        built = {name: fixed_opponent(name, seed=100 + i) for i, name in reversed(list(enumerate(names)))}
        fixed = [built[name] for name in names]
    else:
        fixed = [fixed_opponent(name, seed=100 + i) for i, name in enumerate(names)]
    snapshots = args.batch_snapshots if batched and args.batch_snapshots is not None else args.snapshots
    pool = OpponentPool(fixed, strategy=args.strategy, max_size=len(fixed) + snapshots)
    clock = Clock()
    # Snapshot inference happens inside the env step: count it apart (and subtract it below).
    original = {name: getattr(SB3Agent, name) for name in ("act", "act_batch")}
    for name, function in original.items():
        setattr(SB3Agent, name, clock.wrap("opponent_inference", function))

    if path == "single":

        def make_single() -> SingleAgentEnv:
            return SingleAgentEnv(
                envs.make("connect_four"), pool, shuffle_seats=True, interface=learner_interface(planes)
            )

        vec_env = make_vec_env(
            make_single, n_envs=args.n_envs, seed=args.seed, vec_env_cls=SubprocVecEnv if args.subproc else None
        )
        n_steps, batch_size, n_epochs = args.n_steps, args.batch_size, args.n_epochs
    else:
        vec_env = VecMonitor(
            BatchVecEnv("connect_four", args.batch_envs, pool, shuffle_seats=True, interface=learner_interface(planes))
        )
        n_steps, batch_size, n_epochs = args.batch_n_steps, args.batch_batch_size, args.batch_n_epochs
    vec_env = TimedVecEnv(vec_env, clock)
    if planes:
        policy_kwargs = {"features_extractor_class": BoardCNN, "net_arch": [128]}
    else:
        net = args.batch_net if batched and args.batch_net else args.net
        policy_kwargs = {"net_arch": [int(width) for width in net.split(",")]}
    learning_rate = args.batch_learning_rate if batched and args.batch_learning_rate else args.learning_rate
    ent_coef = args.batch_ent_coef if batched and args.batch_ent_coef is not None else args.ent_coef
    model = MaskablePPO(
        "MlpPolicy",
        vec_env,
        seed=args.seed,
        device="cpu",
        learning_rate=learning_rate,
        n_steps=n_steps,
        batch_size=batch_size,
        n_epochs=n_epochs,
        gamma=args.gamma,
        ent_coef=ent_coef,
        policy_kwargs=policy_kwargs,
    )
    model.train = clock.wrap("learner_update", model.train)  # type: ignore[method-assign]
    reached: dict[str, dict] = {}
    started = time.perf_counter()
    cpu_started = time.process_time()

    def note(record: dict) -> None:
        for name, target in (("random", args.target_random), ("heuristic", args.target_heuristic)):
            if name not in reached and record[f"{name}_win_rate"] >= target:
                reached[name] = {key: record[key] for key in ("timesteps", "wall_s", "cpu_s")}
        print(
            f"[{path}] {record['timesteps']:>9} steps {record['wall_s']:>6.0f} s wall {record['cpu_s']:>6.0f} s cpu"
            f"  vs random {record['random_win_rate']:.2f}"
            f"  vs heuristic {record['heuristic_win_rate']:.2f} (draws {record['heuristic_draw_rate']:.2f})"
            f"  pool {record['pool_size']}{'  promoted' if record['promoted'] else ''}",
            flush=True,
        )

    targets = {"random": args.target_random, "heuristic": args.target_heuristic}
    checks: list[dict] = []

    def check() -> dict:
        """The learner against fresh references on seeds the curve never used."""
        result: dict[str, Any] = {"timesteps": int(model.num_timesteps)}
        learner = callback.learner
        if learner is None:  # checks run after an evaluation, which sets the learner
            raise SystemExit("the check ran before the first evaluation")
        for name, reference in (("random", RandomAgent(seed=11)), ("heuristic", ConnectFourHeuristicAgent(seed=12))):
            # Each path evaluates its own way: one by one as before, or in one batch (the same games).
            play_games = match_batch if batched else match
            score = play_games(envs.make("connect_four"), learner, reference, args.check_games, seed=args.seed + 10_000)
            result[name] = {"win_rate": score.win_rate, "draw_rate": score.draws / score.games}
        result["games"] = args.check_games
        result["wall_s"] = round(time.perf_counter() - started, 2)
        result["passed"] = all(result[name]["win_rate"] >= target for name, target in targets.items())
        print(
            f"  [{path}] check on {args.check_games} fresh games each: vs random {result['random']['win_rate']:.3f}"
            f"  vs heuristic {result['heuristic']['win_rate']:.3f}{'  passed' if result['passed'] else ''}",
            flush=True,
        )
        checks.append(result)
        return result

    def done(record: dict) -> bool:
        # A curve point of 100 games can clear a target by luck: stop only when a larger
        # check on fresh seeds agrees; otherwise keep training.
        meets = all(record[f"{name}_win_rate"] >= target for name, target in targets.items())
        if meets and check()["passed"]:
            return True
        return time.perf_counter() - started > args.minutes * 60

    promotion = PromotionCallback(pool, args.promote_at)
    after: list[BaseCallback] = [
        promotion,
        EvaluationLogCallback(out / "evaluations.csv"),
        OnEvaluationCallback(note),
        StopTrainingOnRecord(done),
    ]
    callback = EvaluationCallback(
        EvaluationGames(
            envs.make("connect_four"), interface=learner_interface(planes), batched=batched, seed=args.seed
        ),
        {"random": RandomAgent(seed=1), "heuristic": ConnectFourHeuristicAgent(seed=2)},
        pool,
        eval_every=args.eval_every,
        eval_games=args.eval_games,
        callback_after_eval=CallbackList(after),
    )
    callback.evaluate = clock.wrap("evaluation", callback.evaluate)  # type: ignore[method-assign]
    try:
        model.learn(args.max_timesteps, callback=callback)
    finally:
        for name, function in original.items():
            setattr(SB3Agent, name, function)
        del model.train  # the timing wrapper (an instance attribute) must not be saved with the model
    wall = time.perf_counter() - started
    cpu = time.process_time() - cpu_started
    model.save(str(out / "model.zip"))
    plot_learning_curve(
        callback.records,
        out / "learning_curve.png",
        references=["random", "heuristic"],
        title=f"MaskablePPO self-play on connect four ({path} path)",
        targets={"random": args.target_random, "heuristic": args.target_heuristic},
    )
    if not checks or not checks[-1]["passed"]:
        check()  # the strength at the end, when time ran out
    seconds = dict(clock.seconds)
    accounted = sum(seconds.values())
    seconds["learner_inference_and_rest"] = wall - accounted
    best = {name: max(r[f"{name}_win_rate"] for r in callback.records) for name in ("random", "heuristic")}
    confirmed = next((c for c in checks if c["passed"]), None)
    summary = {
        "path": path,
        "timesteps": int(model.num_timesteps),
        "wall_s": round(wall, 1),
        "cpu_s": round(cpu, 1),
        "reached": reached,
        "best_win_rate": best,
        "checks": checks,
        "confirmed": confirmed,
        "time_split_s": {key: round(value, 1) for key, value in seconds.items()},
        "promotions": promotion.promotions,
        "pool_size": len(pool),
        "interface": str(learner_interface(planes)),
        "pool": pool.names,
        "n_envs": args.n_envs if path == "single" else args.batch_envs,
        "n_steps": n_steps,
        "batch_size": batch_size,
        "n_epochs": n_epochs,
        "learning_rate": learning_rate,
        "ent_coef": ent_coef,
        "gamma": args.gamma,
        "net_arch": policy_kwargs.get("net_arch"),
        "train_against": against,
        "snapshots": snapshots,
        "threads": args.threads,
        "steps_per_s": round(model.num_timesteps / wall, 1),
    }
    (out / "summary.json").write_text(json.dumps(summary, indent=2) + "\n")
    print(json.dumps(summary, indent=2), flush=True)
    return summary


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument(
        "--path",
        default="both",
        choices=("single", "batched", "both"),
        help="which training path to run (both: single first, then batched, in one run)",
    )
    parser.add_argument("--minutes", type=float, default=35.0, help="wall-time cap per path")
    parser.add_argument("--max-timesteps", type=int, default=20_000_000)
    parser.add_argument("--eval-every", type=int, default=50_000)
    parser.add_argument("--eval-games", type=int, default=100)
    parser.add_argument(
        "--check-games",
        type=int,
        default=400,
        help="games per reference in the check on fresh seeds that must confirm both targets",
    )
    parser.add_argument("--promote-at", type=float, default=0.6)
    parser.add_argument("--strategy", default="uniform", choices=("latest", "uniform"))
    parser.add_argument(
        "--train-against",
        default="random,heuristic,heuristic",
        help="the pool's fixed members, comma separated ('random', 'heuristic'); a name "
        "given twice is drawn twice as often (the snapshots join beside them)",
    )
    parser.add_argument("--snapshots", type=int, default=4, help="the pool keeps this many newest snapshots")
    parser.add_argument(
        "--policy",
        default="mlp",
        choices=("mlp", "cnn"),
        help="mlp: signed EgoBoard and two layers of 256; cnn: EgoBoard planes and BoardCNN",
    )
    parser.add_argument("--n-steps", type=int, default=256, help="single path: steps per env per rollout")
    parser.add_argument("--batch-size", type=int, default=512, help="single path: minibatch size")
    parser.add_argument("--n-epochs", type=int, default=4, help="single path: epochs per rollout")
    # The batched path's defaults are arena train's (arena.training.recipe.BATCHED_RECIPE).
    recipe = BATCHED_RECIPE
    parser.add_argument(
        "--batch-envs",
        type=int,
        default=recipe["n_envs"],
        help="batched path: games in the batch (64 x 32 steps = the single path's 2,048 samples per update)",
    )
    parser.add_argument(
        "--batch-n-steps", type=int, default=recipe["n_steps"], help="batched path: steps per game per rollout"
    )
    parser.add_argument(
        "--batch-batch-size", type=int, default=recipe["batch_size"], help="batched path: minibatch size"
    )
    parser.add_argument(
        "--batch-n-epochs", type=int, default=recipe["n_epochs"], help="batched path: epochs per rollout"
    )
    parser.add_argument("--learning-rate", type=float, default=3e-4, help="single path: learning rate")
    parser.add_argument("--ent-coef", type=float, default=0.01, help="single path: entropy coefficient")
    parser.add_argument("--net", default="256,256", help="single path, mlp: hidden layer widths")
    parser.add_argument(
        "--batch-learning-rate", type=float, default=recipe["learning_rate"], help="batched path: learning rate"
    )
    parser.add_argument(
        "--batch-ent-coef", type=float, default=recipe["ent_coef"], help="batched path: entropy coefficient"
    )
    parser.add_argument(
        "--batch-net", default=",".join(map(str, recipe["net_arch"])), help="batched path, mlp: hidden layer widths"
    )
    parser.add_argument(
        "--batch-snapshots",
        type=int,
        default=None,
        help="batched path: the pool keeps this many newest snapshots (default: --snapshots)",
    )
    parser.add_argument(
        "--batch-train-against", default=None, help="batched path: the pool's fixed members (default: --train-against)"
    )
    parser.add_argument("--gamma", type=float, default=0.99)
    parser.add_argument("--target-random", type=float, default=0.9)
    parser.add_argument("--target-heuristic", type=float, default=0.6)
    parser.add_argument("--n-envs", type=int, default=8, help="single path: SingleAgentEnv copies")
    parser.add_argument("--subproc", action="store_true", help="single path: step the envs in worker processes")
    parser.add_argument("--threads", type=int, default=1, help="torch threads in the learner process")
    parser.add_argument("--seed", type=int, default=0)
    parser.add_argument("--out", default="bench-out/train_connect_four")
    args = parser.parse_args()

    torch.set_num_threads(args.threads)
    out = Path(args.out)
    paths = ["single", "batched"] if args.path == "both" else [args.path]
    summaries = {path: train(path, args, out / path if len(paths) > 1 else out) for path in paths}
    if len(paths) > 1:

        def to_target(summary: dict) -> str:
            confirmed = summary["confirmed"]
            return f"{confirmed['wall_s']:.0f} s" if confirmed else f"not reached in {summary['wall_s']:.0f} s"

        print("\npath      time to both targets (confirmed)  steps/s   split (s)")
        for path, summary in summaries.items():
            print(f"{path:<9} {to_target(summary):<33} {summary['steps_per_s']:>8,.0f}   {summary['time_split_s']}")
        single, batched = summaries["single"]["confirmed"], summaries["batched"]["confirmed"]
        if single and batched:
            print(f"batched / single wall time to both targets: {batched['wall_s'] / single['wall_s']:.2f}")
        (out / "comparison.json").write_text(json.dumps(summaries, indent=2) + "\n")


if __name__ == "__main__":
    main()
