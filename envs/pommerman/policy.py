"""The network of Pommerman's team recipe: a small CNN over ``PommermanBatch``'s uint8 planes (or its codes).

It lives in the package (not in a script) because a trained folder names the features
extractor's class by its import path (``{"$class": "envs.pommerman.policy:PlanesCNN"}`` in
``agent.json``): the folder loads wherever ``envs.pommerman.policy`` imports, and a loader
imports it without ``--trust`` because ``envs`` is a package that declares arena entry points. The recipe names it in its ``policy_kwargs`` as
``"envs.pommerman.policy:PlanesCNN"`` (a recipe is JSON); ``arena train`` imports the name.

:class:`CodesCNN` is the same network reading ``layout="codes"`` views: it unpacks them to the planes
inside the network (on the model's device), so a trainer pays no numpy unpacking.

This module imports torch and Stable-Baselines3 when it is imported (the ``train`` extra).
"""

from __future__ import annotations

import numpy as np
from gymnasium import spaces

from arena.errors import InvalidValueError
from arena.training.policy_agent import require_sb3

require_sb3()
import torch  # noqa: E402
from stable_baselines3.common.torch_layers import BaseFeaturesExtractor  # noqa: E402

__all__ = ["PlanesCNN", "CodesCNN"]


class PlanesCNN(BaseFeaturesExtractor):
    """Two 3x3 convolutions of 32 over the planes (each scaled by its space's high), then a linear layer.

    Args:
        observation_space: ``Box(0, high, (planes, H, W), uint8)``, the batch's planes
            (:func:`envs.pommerman.batch.plane_space`).
        features_dim: the features handed to the policy and value heads.

    Example:
        >>> from envs.pommerman.batch import plane_space
        >>> cnn = PlanesCNN(plane_space("team"), features_dim=64)
        >>> cnn(torch.zeros(2, 22, 11, 11)).shape
        torch.Size([2, 64])
    """

    scale: torch.Tensor  # a buffer: saved with the weights, moved with the module

    def __init__(self, observation_space: spaces.Box, features_dim: int = 256) -> None:
        super().__init__(observation_space, features_dim)
        planes, height, width = observation_space.shape
        high = np.maximum(np.asarray(observation_space.high, dtype=np.float32).reshape(planes, -1).max(axis=1), 1)
        # Counts, lives and times reach 255: scaled to [0, 1] like the one-hot planes.
        self.register_buffer("scale", torch.as_tensor(1.0 / high).view(1, planes, 1, 1))
        self.net = torch.nn.Sequential(
            torch.nn.Conv2d(planes, 32, 3, padding=1),
            torch.nn.ReLU(),
            torch.nn.Conv2d(32, 32, 3, padding=1),
            torch.nn.ReLU(),
            torch.nn.Flatten(),
            torch.nn.Linear(32 * height * width, features_dim),
            torch.nn.ReLU(),
        )

    def forward(self, observations: torch.Tensor) -> torch.Tensor:
        return self.net(observations * self.scale)


class CodesCNN(PlanesCNN):
    """:class:`PlanesCNN` over ``PommermanBatch(layout="codes")`` views: the planes are made in the network.

    The cell bytes' low nibbles become the 12 one-hot planes (a one-hot of the codes, code 0
    none), the nibbles of the cell and bomb bytes the four value planes, and the constants are
    spread over the cells: the very planes :func:`envs.pommerman.codes.codes_to_planes` makes, so
    the same weights give the same features as :class:`PlanesCNN` on the planes layout.

    Args:
        observation_space: ``Box(0, high, (248,), uint8)`` (radio 250), :func:`envs.pommerman.codes.code_space`.
        features_dim: the features handed to the policy and value heads.

    Example:
        >>> from envs.pommerman.codes import code_space
        >>> cnn = CodesCNN(code_space("team"), features_dim=64)
        >>> cnn(torch.zeros(2, 248)).shape
        torch.Size([2, 64])
    """

    def __init__(self, observation_space: spaces.Box, features_dim: int = 256) -> None:
        from envs.pommerman.batch import plane_space
        from envs.pommerman.codes import BOMBS_AT, CODE_NAMES, FLAMES_CODE, SCALARS_AT, code_length

        mode = "radio" if observation_space.shape == (code_length("radio"),) else "ffa"
        if observation_space.shape != (code_length(mode),):
            raise InvalidValueError(
                f"CodesCNN: expected the codes views' space, shape ({code_length('ffa')},) or "
                f"({code_length('radio')},), got {observation_space}"
            )
        super().__init__(plane_space(mode), features_dim)
        self._observation_space = observation_space
        self._categories, self._flames_code = len(CODE_NAMES), FLAMES_CODE
        self._bombs_at, self._scalars_at = BOMBS_AT, SCALARS_AT

    def forward(self, observations: torch.Tensor) -> torch.Tensor:
        n, side = observations.shape[0], 11
        cell = observations[:, : self._bombs_at].long()
        bomb = observations[:, self._bombs_at : self._scalars_at].long()
        code, small = cell & 15, cell >> 4
        on_flames = code == self._flames_code
        one_hot = torch.nn.functional.one_hot(code, self._categories + 1)[..., 1:]  # code 0: no plane set
        values = torch.stack(  # bomb life, blast strength, moving direction, flame life
            [bomb & 15, bomb >> 4, torch.where(on_flames, 0, small), torch.where(on_flames, small, 0)], dim=1
        )
        planes = torch.cat(
            [
                one_hot.transpose(1, 2).to(observations.dtype),
                values.to(observations.dtype),
                observations[:, self._scalars_at :, None].expand(-1, -1, side * side),
            ],
            dim=1,
        )
        return super().forward(planes.reshape(n, -1, side, side))
