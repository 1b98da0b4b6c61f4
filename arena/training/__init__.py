"""Training with single-agent libraries: one seat as a Gymnasium env, policies as agents, self-play.

* :class:`SingleAgentEnv` — the learner's seat of a multi-agent env as a
  ``gymnasium.Env``, frozen opponents inside, action masks, seat shuffling, and no
  other player's observation ever reaching the learner (needs only gymnasium);
* :class:`OpponentPool` — frozen opponents and self-play snapshots to sample from;
* :class:`SB3Agent`, :func:`load_sb3_agent` — a trained Stable-Baselines3 policy as an
  arena agent (masks respected, behind its training interface);
* :func:`load_trained_agent` — the folder ``arena train`` writes, as one agent (model,
  interface stack and its statistics, env);
* :func:`match`, :func:`match_batch`, :class:`Score` — quick seeded evaluation games (one by one,
  or all at once in a game's numpy batch);
* :class:`TrainingRecipe`, :func:`recipe_for` — how an env trains by default, declared beside
  the env (entry points ``arena.recipes``); :class:`TrainingConfig` — one run's settings;
* :func:`arena.training.run.train` — one run from a config to a trained-agent folder (what
  ``arena train`` does);
* :mod:`arena.training.callbacks` — ``EvaluationCallback`` and the callbacks that run after each
  evaluation (log, stop); :mod:`arena.training.promotion` — ``PromotionCallback`` (self-play);
  :mod:`arena.training.progress` — ``RichProgressCallback`` and ``ProgressLinesCallback``; these
  modules, :mod:`arena.training.evaluation_games` and :mod:`arena.training.run` import
  Stable-Baselines3 (the ``train`` extra).

Example:
    >>> from arena.training import SingleAgentEnv
    >>> env = SingleAgentEnv("tic_tac_toe", "random", shuffle_seats=True)
    >>> obs, info = env.reset(seed=1)
    >>> obs.shape, info["seat"] in ("player_0", "player_1")
    ((3, 3), True)
"""

from arena.training.config import TrainingConfig
from arena.training.matches import Score, match, match_batch
from arena.training.policy_agent import ALGORITHMS, SB3Agent, algorithm_class, freeze, load_sb3_agent
from arena.training.pool import STRATEGIES, OpponentPool
from arena.training.recipe import TrainingRecipe, recipe_for
from arena.training.single_agent import SingleAgentEnv
from arena.training.team_control import side_agent, team_stack
from arena.training.trained import load_trained_agent

__all__ = [
    "ALGORITHMS",
    "OpponentPool",
    "SB3Agent",
    "STRATEGIES",
    "Score",
    "SingleAgentEnv",
    "TrainingConfig",
    "TrainingRecipe",
    "algorithm_class",
    "freeze",
    "load_sb3_agent",
    "load_trained_agent",
    "match",
    "match_batch",
    "recipe_for",
    "side_agent",
    "team_stack",
]
