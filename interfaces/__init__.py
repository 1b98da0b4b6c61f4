"""Off-the-shelf arena interfaces, grouped by what they transform.

* :mod:`interfaces.observation` — :class:`Flatten` (any space to a vector), :class:`OneHot`, :class:`ClipObservation`, :class:`CastObservation`,
  :class:`ActionMaskInObservation`;
* :mod:`interfaces.history` — :class:`FrameStack`, :class:`EpisodeClock`, :class:`NormalizeObservation`;
* :mod:`interfaces.action` — :class:`DiscretizeBox`, :class:`MultiDiscreteToDiscrete`,
  :class:`DiscreteToMultiDiscrete`, :class:`RepeatAction`;
* :mod:`interfaces.reward` — :class:`ScaleReward`, :class:`ClipReward`, :class:`ShapeReward`,
  :class:`PotentialShaping`;
* :mod:`interfaces.team` — :class:`ConcatenateTeam` and
  :func:`team_interface`;
* :mod:`interfaces.board` — :class:`EgoBoard`, :class:`RotateBoard`;
* :mod:`interfaces.pommerman` — :class:`PommermanPlanes`, :class:`PommermanAttributes`,
  :class:`PommermanPosition`, :class:`PommermanLegalMoves`, :class:`PommermanEgoCorner`,
  :class:`PommermanFeatures`, :class:`PommermanBatchPlanes` (the planes ``PommermanBatch`` emits);
* :mod:`interfaces.pommerman_safety` — :class:`PommermanSafeMoves` (the action filter: no move into certain death);
* :mod:`interfaces.pommerman_shaping` — :class:`PommermanPickupBonus`, :class:`PommermanEnemyDownBonus`;
* :mod:`interfaces.pommerman_radio` — :class:`PommermanSilentRadio` (radio mode's actions as moves, words silent);
* :mod:`interfaces.pommerman_codes` — :class:`PommermanBatchCodes` (a ``layout="codes"`` batch's views read as planes);
* :mod:`interfaces.pommerman_room` — :class:`PommermanRoomPlanes` (room and enemy-distance planes on the batch planes);
* :mod:`interfaces.pong` — :class:`PongFrames` (the field as small grey pictures), :class:`PongMoves`,
  :class:`PongHitBonus`;
* :mod:`interfaces.pong_aim` — :class:`PongAim` (a potential that leads the paddle to a steep return);
* :mod:`interfaces.magent` — :class:`SideStack` (a side in one call), :class:`GridControl` (grid-wise control)
  and :func:`combine_by_unit` (MAgent2 armies);
* :mod:`interfaces.vizdoom` — :class:`DoomActions`, :class:`DoomScreen`, :class:`DoomTarget` (ViZDoom buttons,
  frames, and the nearest enemy from the labels);
* :mod:`interfaces.vizdoom_rules` — :class:`DoomAutoFire` (the trigger pressed by rule), :class:`DoomVariableBonus`
  (a reward per change of a game variable), :class:`DoomAimShaping` (a potential for the enemy under the crosshair);
* :mod:`interfaces.soccer` — :class:`SoccerFeatures`, :class:`RescaleAction`,
  :class:`SoccerShaping` and :func:`soccer_team` (MuJoCo soccer, one model per side).

Every class is also listed by ``arena interfaces`` through the ``arena.interfaces``
entry points.

Example:
    >>> import envs
    >>> from arena import EnvItfWrapper
    >>> from interfaces import ActionMaskInObservation, EgoBoard, Flatten
    >>> env = EnvItfWrapper(envs.make("tic_tac_toe"), ActionMaskInObservation(Flatten(EgoBoard())))
    >>> obs, infos = env.reset(seed=0)
    >>> sorted(obs["player_0"])
    ['action_mask', 'observation']
"""

from interfaces.action import DiscreteToMultiDiscrete, DiscretizeBox, MultiDiscreteToDiscrete, RepeatAction
from interfaces.board import EgoBoard, RotateBoard
from interfaces.history import EpisodeClock, FrameStack, NormalizeObservation
from interfaces.magent import GridControl, SideStack, combine_by_unit
from interfaces.observation import ActionMaskInObservation, CastObservation, ClipObservation, Flatten, OneHot
from interfaces.pommerman import (
    PommermanAttributes,
    PommermanBatchPlanes,
    PommermanEgoCorner,
    PommermanFeatures,
    PommermanLegalMoves,
    PommermanPlanes,
    PommermanPosition,
)
from interfaces.pommerman_codes import PommermanBatchCodes
from interfaces.pommerman_radio import PommermanSilentRadio
from interfaces.pommerman_room import PommermanRoomPlanes
from interfaces.pommerman_safety import PommermanSafeMoves
from interfaces.pommerman_shaping import PommermanEnemyDownBonus, PommermanPickupBonus
from interfaces.pong import PongFrames, PongHitBonus, PongMoves
from interfaces.pong_aim import PongAim
from interfaces.reward import ClipReward, PotentialShaping, ScaleReward, ShapeReward
from interfaces.soccer import RescaleAction, SoccerFeatures, SoccerShaping, soccer_team
from interfaces.team import ConcatenateTeam, team_interface
from interfaces.vizdoom import DoomActions, DoomScreen, DoomTarget
from interfaces.vizdoom_rules import DoomAimShaping, DoomAutoFire, DoomVariableBonus

__all__ = [
    "ActionMaskInObservation",
    "CastObservation",
    "ClipObservation",
    "ClipReward",
    "ConcatenateTeam",
    "DiscreteToMultiDiscrete",
    "DoomActions",
    "DoomScreen",
    "DoomTarget",
    "DoomAutoFire",
    "DoomVariableBonus",
    "DoomAimShaping",
    "DiscretizeBox",
    "EgoBoard",
    "EpisodeClock",
    "Flatten",
    "FrameStack",
    "GridControl",
    "MultiDiscreteToDiscrete",
    "NormalizeObservation",
    "OneHot",
    "PommermanAttributes",
    "PommermanEgoCorner",
    "PommermanFeatures",
    "PommermanBatchCodes",
    "PommermanBatchPlanes",
    "PommermanLegalMoves",
    "PommermanPlanes",
    "PommermanPosition",
    "PommermanRoomPlanes",
    "PommermanSafeMoves",
    "PommermanSilentRadio",
    "PommermanEnemyDownBonus",
    "PommermanPickupBonus",
    "PongAim",
    "PongFrames",
    "PongHitBonus",
    "PongMoves",
    "PotentialShaping",
    "RepeatAction",
    "RescaleAction",
    "RotateBoard",
    "ScaleReward",
    "SideStack",
    "ShapeReward",
    "SoccerFeatures",
    "SoccerShaping",
    "soccer_team",
    "team_interface",
    "combine_by_unit",
]
