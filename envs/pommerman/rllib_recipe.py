"""Pommerman's team recipe on RLlib: :func:`team_rllib_config`, for users who outgrow one machine.

The same recipe ``arena train pommerman --env-options '{"mode": "team"}'`` runs
(:mod:`envs.pommerman.recipe`), on RLlib's new API stack:

* the env is arena's own, through arena's adapter: :func:`team_env` is
  ``to_rllib("pommerman", mode="team", interfaces=<team stack>, opponents=..., mask_in_observation=True)``;
* every seat RLlib plays sees the world through the recipe's stack, :func:`~envs.pommerman.recipe.team_interface`
  (the ego planes over the shaping bonuses over the action filter), so the model gets the same 22
  planes and the same masks as on the batched trainer;
* one policy per side (:func:`arena.adapters.rllib.multi_agent_config` with ``"teams"``): both
  members of a side share it (parameter sharing, the ego view makes it seat-blind). Side
  ``team_1`` is ``pommerman_simple`` played inside the env (``opponent="pommerman_simple"``, the
  recipe's reference opponent; RLlib never sees those seats), or a second learned policy
  (``opponent="self_play"``: the sides train against each other);
* the masks travel in the observation (``{"action_mask", "observations"}``, the layout of RLlib's
  action-masking example) and :class:`MaskedPlanesModule` applies them to the logits: the
  recipe's CNN (:class:`~envs.pommerman.policy.PlanesCNN`) shared by a policy head and a value
  head of 128, so a forbidden move is never sampled;
* PPO with the recipe's settings (:data:`~envs.pommerman.recipe.TEAM_ALGO_OPTIONS`: 4,096
  samples an update, minibatches of 1,024, 4 epochs, lr 3e-4, entropy 0.01, gamma 0.995; the
  Stable-Baselines3 defaults the recipe keeps: GAE lambda 0.95, clip 0.2, value coefficient 0.5,
  gradient norm 0.5, no KL penalty).

:class:`ModuleAgent` plays a trained module as an arena agent (behind the same stack), so the
learned side meets ``pommerman_simple`` on arena's single env (``bench/pommerman_rllib_team.py``).

This module imports Ray RLlib, torch and Stable-Baselines3 (the ``rllib`` and ``train`` extras).

Example:
    >>> config = team_rllib_config(num_env_runners=0, max_steps=100)
    >>> sorted(config.policies), config.env_config["opponent"]
    (['team_0'], 'pommerman_simple')
    >>> sorted(team_rllib_config(opponent="self_play").policies)
    ['team_0', 'team_1']

A run (see ``docs/performance.md`` for a Ray cluster)::

    import ray
    ray.init(num_cpus=2)
    algo = team_rllib_config(num_env_runners=1).build_algo()
    for _ in range(10):
        print(algo.train()["env_runners"]["agent_episode_returns_mean"])
"""

from __future__ import annotations

from collections.abc import Mapping
from typing import Any

import numpy as np

from arena.adapters.rllib import ArenaToRLlib, OpponentsInside, multi_agent_config, to_rllib  # first: names the extra
from arena.agents.base import Agent
from arena.env import AgentID, MultiAgentEnv, MultiAgentWrapper
from arena.registry import make_env
from arena.specs.interfaces import build_interface
from arena.wrappers import MultiAgentEnvItfWrapper
from envs.pommerman.policy import PlanesCNN
from envs.pommerman.recipe import TEAM_ALGO_OPTIONS, team_interface
from interfaces.pommerman_safety import safe_moves_planes

import torch  # isort: skip
from ray.rllib.algorithms.ppo import PPOConfig
from ray.rllib.core.columns import Columns
from ray.rllib.core.rl_module.apis import ValueFunctionAPI
from ray.rllib.core.rl_module.multi_rl_module import MultiRLModuleSpec
from ray.rllib.core.rl_module.rl_module import RLModuleSpec
from ray.rllib.core.rl_module.torch import TorchRLModule
from ray.rllib.utils.torch_utils import FLOAT_MIN
from ray.tune.registry import register_env

from arena.errors import InvalidValueError

__all__ = [
    "ENV_NAME",
    "OPPONENTS",
    "MaskedPlanesModule",
    "ModuleAgent",
    "SafeMovesMasks",
    "team_env",
    "team_rllib_config",
]

#: The name :func:`team_rllib_config` registers :func:`team_env` under (``ray.tune.registry.register_env``).
ENV_NAME = "arena_pommerman_team"
#: What plays side ``team_1``: the scripted agent inside the env, or a second learned policy.
OPPONENTS = ("pommerman_simple", "self_play")
_OPPONENT_SIDE = "team_1"


class SafeMovesMasks(MultiAgentWrapper):
    """The action filter's masks for an env seen through the recipe's planes: ``infos[agent]["action_mask"]``.

    On the single env ``pommerman_safe_moves`` filters moves (it replaces a deadly move by a safe
    one) and its mask stays under the planes; the batched trainer hands MaskablePPO the same
    filter computed from the planes (:func:`~interfaces.pommerman_safety.safe_moves_planes`, in
    the ego frame the model's moves are read in). This does that for RLlib: each step, one call
    for every agent that must act, the result ANDed with the mask the stack passes on. A view
    that would forbid every move (never seen: the filter keeps one) allows them all.

    Example:
        >>> import envs
        >>> from arena import EnvItfWrapper
        >>> env = SafeMovesMasks(EnvItfWrapper(envs.make("pommerman", mode="team"), build_interface(team_interface())))
        >>> observations, infos = env.reset(seed=0)
        >>> infos["agent_0"]["action_mask"].tolist()
        [1, 1, 1, 1, 1, 1]
    """

    def __init__(self, env: MultiAgentEnv) -> None:
        super().__init__(env)
        self.possible_agents = list(env.possible_agents)
        self.observation_spaces = {a: env.observation_space(a) for a in self.possible_agents}
        self.action_spaces = {a: env.action_space(a) for a in self.possible_agents}
        self.teams, self.team_outcome = env.teams, env.team_outcome

    @property
    def agents(self) -> list[AgentID]:  # type: ignore[override]  # read-only: the env's
        return self.env.agents

    def reset(self, *, seed: int | None = None, options: dict[str, Any] | None = None):
        """Reset the env; the first movers' infos carry the filter's masks."""
        observations, infos = self.env.reset(seed=seed, options=options)
        return observations, self._masked(observations, infos)

    def step(self, actions: Mapping[AgentID, Any]):
        """Step the env; the next movers' infos carry the filter's masks."""
        observations, rewards, terminations, truncations, infos = self.env.step(actions)
        return observations, rewards, terminations, truncations, self._masked(observations, infos)

    def _masked(self, observations: Mapping[AgentID, Any], infos: Mapping[AgentID, Any]) -> dict[AgentID, Any]:
        out = dict(infos)
        if not observations:
            return out
        movers = list(observations)
        masks = safe_moves_planes(np.stack([observations[a] for a in movers]))
        for agent, mask in zip(movers, masks):
            info = dict(infos.get(agent) or {})
            if info.get("action_mask") is not None:
                mask = mask & (np.asarray(info["action_mask"]) != 0)
            info["action_mask"] = mask.astype(np.int8) if mask.any() else np.ones_like(mask, np.int8)
            out[agent] = info
        return out


def team_env(config: Mapping[str, Any] | None = None) -> ArenaToRLlib:
    """RLlib's env creator for the team recipe (registered as :data:`ENV_NAME`).

    The chain, bottom up: ``envs.make("pommerman", mode="team", ...)``; side ``team_1``'s seats
    played inside by ``pommerman_simple`` (:class:`~arena.adapters.opponents_inside.OpponentsInside`,
    on the raw observations) unless ``opponent="self_play"``; the recipe's stack on every seat
    RLlib plays, each its own copy; :class:`SafeMovesMasks`; ``to_rllib(mask_in_observation=True)``.

    Args:
        config: RLlib's ``env_config``: ``opponent`` (one of :data:`OPPONENTS`, default
            ``"pommerman_simple"``), ``max_steps`` (default 800) and any other option of
            ``envs.make("pommerman", ...)``.

    Raises:
        ValueError: an unknown ``opponent``.

    Example:
        >>> env = team_env({"max_steps": 50})
        >>> env.possible_agents, sorted(env.get_observation_space("agent_0").spaces)
        (['agent_0', 'agent_2'], ['action_mask', 'observations'])
    """
    options = dict(config or {})
    opponent = options.pop("opponent", "pommerman_simple")
    if opponent not in OPPONENTS:
        raise InvalidValueError(f"team_env: opponent must be one of {list(OPPONENTS)}, got {opponent!r}")
    max_steps = int(options.pop("max_steps", 800))
    options.pop("mode", None)  # always the team game
    env: MultiAgentEnv = make_env("pommerman", mode="team", max_steps=max_steps, **options)
    if opponent != "self_play":
        env = OpponentsInside(env, dict.fromkeys(env.teams[_OPPONENT_SIDE], opponent))  # type: ignore[index]
    env = SafeMovesMasks(MultiAgentEnvItfWrapper(env, build_interface(team_interface(max_steps))))
    return to_rllib(env, mask_in_observation=True)


class MaskedPlanesModule(TorchRLModule, ValueFunctionAPI):
    """The recipe's network as an RLlib module: :class:`PlanesCNN` under a policy and a value head, masks applied.

    Observations are ``{"action_mask": Box(0, 1, (n,)), "observations": planes}`` (the adapter's
    ``mask_in_observation`` layout); a move whose mask entry is 0 gets the logit ``FLOAT_MIN``
    in every forward pass (sampling, inference and the loss), so it is never drawn.
    ``model_config``: ``features_dim`` (256) of the CNN, ``hidden`` (128) of each head.

    Example:
        >>> from gymnasium import spaces
        >>> module = MaskedPlanesModule(
        ...     observation_space=team_env({"max_steps": 50}).get_observation_space("agent_0"),
        ...     action_space=spaces.Discrete(6),
        ...     model_config={"features_dim": 16, "hidden": 8},
        ... )
        >>> planes = torch.zeros(1, 22, 11, 11, dtype=torch.uint8)
        >>> mask = torch.tensor([[1.0, 0, 0, 0, 0, 1]])
        >>> logits = module.forward_inference({"obs": {"observations": planes, "action_mask": mask}})
        >>> logits["action_dist_inputs"].argmax(-1).item() in (0, 5)
        True
    """

    def setup(self) -> None:
        config: Mapping[str, Any] = self.model_config if isinstance(self.model_config, Mapping) else {}
        planes = self.observation_space["observations"]  # a Dict space
        features, hidden = int(config.get("features_dim", 256)), int(config.get("hidden", 128))
        self.encoder = PlanesCNN(planes, features_dim=features)
        actions = int(self.action_space.n)  # Discrete(6)
        self.pi = torch.nn.Sequential(
            torch.nn.Linear(features, hidden), torch.nn.ReLU(), torch.nn.Linear(hidden, actions)
        )
        self.vf = torch.nn.Sequential(torch.nn.Linear(features, hidden), torch.nn.ReLU(), torch.nn.Linear(hidden, 1))

    def _embed(self, batch: Mapping[str, Any]) -> torch.Tensor:
        return self.encoder(batch[Columns.OBS]["observations"].float())

    def _masked(self, batch: Mapping[str, Any], embeddings: torch.Tensor) -> torch.Tensor:
        logits = self.pi(embeddings)
        return logits.masked_fill(batch[Columns.OBS]["action_mask"] < 0.5, FLOAT_MIN)

    def _forward(self, batch: dict[str, Any], **kwargs: Any) -> dict[str, Any]:
        return {Columns.ACTION_DIST_INPUTS: self._masked(batch, self._embed(batch))}

    def _forward_train(self, batch: dict[str, Any], **kwargs: Any) -> dict[str, Any]:
        embeddings = self._embed(batch)
        return {Columns.ACTION_DIST_INPUTS: self._masked(batch, embeddings), Columns.EMBEDDINGS: embeddings}

    def compute_values(self, batch: dict[str, Any], embeddings: Any = None) -> torch.Tensor:
        """The value head over the CNN's features (computed here when the forward pass did not)."""
        if embeddings is None:
            embeddings = self._embed(batch)
        return self.vf(embeddings).squeeze(-1)


class ModuleAgent(Agent):
    """A trained :class:`MaskedPlanesModule` as an arena agent: its most likely move among those allowed.

    Put it behind the recipe's stack (``AgtItfWrapper(ModuleAgent(module), build_interface(team_interface()))``)
    so it sees the planes it was trained on; it masks its moves as in training (the action
    filter computed from the planes, with the mask it is given). It is batchable: one forward for
    a side's members.

    Args:
        module: the trained module (``algo.get_module("team_0")``).

    Example:
        >>> from gymnasium import spaces
        >>> space = team_env({"max_steps": 50}).get_observation_space("agent_0")
        >>> agent = ModuleAgent(MaskedPlanesModule(observation_space=space, action_space=spaces.Discrete(6)))
        >>> int(agent.act(np.zeros((22, 11, 11), np.uint8), np.array([0, 0, 1, 0, 0, 0], np.int8)))
        2
    """

    def __init__(self, module: MaskedPlanesModule) -> None:
        self.module = module

    def act(self, observation: Any, action_mask: Any = None, reward: float = 0.0) -> Any:
        masks = None if action_mask is None else np.asarray(action_mask)[None]
        return self.act_batch(np.asarray(observation)[None], masks)[0]

    def act_batch(self, observations: Any, action_masks: Any = None) -> np.ndarray:
        views = np.asarray(observations)
        masks = safe_moves_planes(views).astype(bool)
        if action_masks is not None:
            masks &= np.asarray(action_masks) != 0
        batch = {"observations": torch.as_tensor(views), "action_mask": torch.as_tensor(masks, dtype=torch.float32)}
        with torch.no_grad():
            out = self.module.forward_inference({Columns.OBS: batch})
        return out[Columns.ACTION_DIST_INPUTS].argmax(-1).numpy()

    @property
    def batchable(self) -> bool:
        return True


def team_rllib_config(
    num_env_runners: int = 0,
    *,
    opponent: str = "pommerman_simple",
    max_steps: int = 800,
    num_envs_per_env_runner: int = 1,
    train_batch_size: int = 4096,
    minibatch_size: int = 1024,
    num_epochs: int = 4,
    model_config: Mapping[str, Any] | None = None,
    num_learners: int = 0,
    num_gpus_per_learner: float = 0,
    seed: int | None = None,
    env_options: Mapping[str, Any] | None = None,
) -> PPOConfig:
    """RLlib's PPO config for Pommerman's team recipe, one policy per side (see the module docstring).

    Args:
        num_env_runners: remote env runners sampling games (0: the driver samples).
        opponent: ``"pommerman_simple"`` (side ``team_1`` scripted, inside the env; one learned
            policy, ``team_0``) or ``"self_play"`` (``team_0`` and ``team_1`` both learned).
        max_steps: the game's step limit (the time plane counts towards it).
        num_envs_per_env_runner: games each env runner steps in turn.
        train_batch_size: env steps an update, per learner (RLlib's ``train_batch_size_per_learner``; an
            env step holds a sample for each live seat of the side).
        minibatch_size: SGD minibatch.
        num_epochs: passes over each batch.
        model_config: :class:`MaskedPlanesModule`'s sizes (``features_dim``, ``hidden``).
        num_learners: remote learners (0: the driver learns); with ``num_gpus_per_learner`` on a cluster.
        num_gpus_per_learner: GPUs for each learner.
        seed: RLlib's seed (env runners seed their envs from it).
        env_options: further options of ``envs.make("pommerman", ...)``.

    Raises:
        ValueError: an unknown ``opponent``.
    """
    if opponent not in OPPONENTS:
        raise InvalidValueError(f"team_rllib_config: opponent must be one of {list(OPPONENTS)}, got {opponent!r}")
    env_config = {**dict(env_options or {}), "opponent": opponent, "max_steps": int(max_steps)}
    register_env(ENV_NAME, team_env)
    mapping = multi_agent_config(team_env(env_config), "teams")  # team_0 (and team_1 in self-play)
    sizes = {
        "features_dim": 256,
        "hidden": int(TEAM_ALGO_OPTIONS["policy_kwargs"]["net_arch"][0]),
        **(model_config or {}),
    }
    specs = {name: RLModuleSpec(module_class=MaskedPlanesModule, model_config=sizes) for name in mapping["policies"]}
    return (
        PPOConfig()
        .environment(ENV_NAME, env_config=env_config)
        .env_runners(num_env_runners=num_env_runners, num_envs_per_env_runner=num_envs_per_env_runner)
        .learners(num_learners=num_learners, num_gpus_per_learner=num_gpus_per_learner)
        .multi_agent(**mapping, policies_to_train=sorted(mapping["policies"]))
        .rl_module(rl_module_spec=MultiRLModuleSpec(rl_module_specs=specs))
        .training(
            train_batch_size_per_learner=train_batch_size,
            minibatch_size=minibatch_size,
            num_epochs=num_epochs,
            lr=TEAM_ALGO_OPTIONS["learning_rate"],
            entropy_coeff=TEAM_ALGO_OPTIONS["ent_coef"],
            gamma=TEAM_ALGO_OPTIONS["gamma"],
            lambda_=0.95,
            clip_param=0.2,
            vf_loss_coeff=0.5,
            grad_clip=0.5,
            use_kl_loss=False,
        )
        .debugging(seed=seed)
    )
