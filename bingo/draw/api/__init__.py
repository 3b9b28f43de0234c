"""The draw over the JSON API: the caller's console, balls, claims, prizes, suspension, payment.

Thin adapters (STYLE rule 3) over bingo/draw/services.py, the same services the caller's console
(bingo/draw/views.py) and the cash desk's screens (bingo/sales/views.py) call: a serializer
parses, one service acts, a serializer renders; the services' refusals (R42-R57) come back as
400 with their message. Reads go through bingo/draw/selectors.py.

Access is per hall, as in bingo/games/api.py (bingo/games/access.py, halls/access.py): a game
of a hall the caller does not work in answers 404; a role of the hall that does not allow the
action answers 403. The callers of the game's hall draw, check claims and award prizes; its
callers and managers also read the console and suspend, resume and annul (R55, R57); the
cashiers of a desk's hall pay prizes there (R50).

One module per part of the draw, each view with its serializers beside it; the URL conf
(bingo/api_urls.py) takes the views from here:

* ``console`` — the console's state, and the rows it shows that the others answer with too;
* ``balls`` — starting the draw and drawing its balls (R22-R25, R42, R55);
* ``claims`` — checking a claim and awarding a prize (R6, R9, R43-R49);
* ``faults`` — manual extraction, suspension, resumption, annulment (R55, R57), system fault (R98);
* ``payments`` — paying a card's prizes at a cash desk (R45, R50);
* ``fields`` — the choice fields and refusal answers they share.

The modules import ``fields``, then ``console``; none imports another.
"""

from bingo.draw.api.balls import BallCreateView, DrawStartView
from bingo.draw.api.claims import ClaimCreateView, PrizeCreateView
from bingo.draw.api.console import DrawStateView
from bingo.draw.api.faults import AnnulView, FaultView, ManualView, ResumeView, SuspendView
from bingo.draw.api.payments import PrizePaymentCreateView

__all__ = [
    "AnnulView",
    "BallCreateView",
    "ClaimCreateView",
    "DrawStartView",
    "DrawStateView",
    "FaultView",
    "ManualView",
    "PrizeCreateView",
    "PrizePaymentCreateView",
    "ResumeView",
    "SuspendView",
]
