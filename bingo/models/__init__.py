"""The games app's tables, one module per feature family (issue 21). The app label stays
`bingo`, and so do the tables and migrations; import models from here (`from bingo.models
import Game`), as every importer did when this was one file. docs/architecture.md says which
feature each module serves."""

from __future__ import annotations

from bingo.models.complaints import COMPLAINT_MAX_LENGTH, PlayerComplaint
from bingo.models.demo import DemoCreditEntry, DemoGame
from bingo.models.draw import Ball, Claim, Prize, PrizeKind, PrizePayment, PrizeWinner, Refund
from bingo.models.drawers import DrawerShift
from bingo.models.faults import BallFailure, FaultSource, GameFault
from bingo.models.games import ENDED_STATES, UNDER_WAY_STATES, DrawMode, Game, GameSeries, GameState, Session
from bingo.models.online import (
    ORDER_KEY_MAX,
    ORDER_SKIPS_MAX,
    FillSkip,
    OnlineOrder,
    OnlineOrderFill,
    OnlineRoom,
    OrderEnd,
    PlayerVisit,
    RoomMode,
)
from bingo.models.players import Marking, Player, WalletEntry
from bingo.models.playtime import PlayLimit, PlaySession
from bingo.models.protection import LimitKind, LimitPeriod, PlayerExclusion, PlayerExclusionLift, PlayerLimit
from bingo.models.sales import Sale

__all__ = [
    "COMPLAINT_MAX_LENGTH",
    "ENDED_STATES",
    "ORDER_KEY_MAX",
    "ORDER_SKIPS_MAX",
    "UNDER_WAY_STATES",
    "Ball",
    "BallFailure",
    "Claim",
    "DemoCreditEntry",
    "DemoGame",
    "DrawMode",
    "DrawerShift",
    "FaultSource",
    "FillSkip",
    "Game",
    "GameFault",
    "GameSeries",
    "GameState",
    "LimitKind",
    "LimitPeriod",
    "Marking",
    "OnlineOrder",
    "OnlineOrderFill",
    "OnlineRoom",
    "OrderEnd",
    "PlayLimit",
    "PlaySession",
    "Player",
    "PlayerComplaint",
    "PlayerExclusion",
    "PlayerExclusionLift",
    "PlayerLimit",
    "PlayerVisit",
    "Prize",
    "PrizeKind",
    "PrizePayment",
    "PrizeWinner",
    "Refund",
    "RoomMode",
    "Sale",
    "Session",
    "WalletEntry",
]
