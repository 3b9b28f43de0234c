"""Who reaches a drawer, and the desk a cashier works at, for the screens of the desk.

A close-out is seen by the cashiers and the managers of its desk's hall: anyone else gets 404,
as if it did not exist (``halls/access.py``'s rule). The desk a cashier last worked at is kept
in their session, so the sale screen, the prize payments, the wallets' movements and the drawer
open on it.
"""

from __future__ import annotations

from django.http import Http404, HttpRequest

from bingo.drawers.selectors import drawer_shift_list_for
from bingo.models import DrawerShift

#: The session key remembering the cashier's desk between pages.
DESK_SESSION_KEY = "sales:cash_desk"


def desk_remembered_id(request: HttpRequest) -> int | None:
    """The id of the desk the person last worked at (None if none is remembered)."""
    value = request.session.get(DESK_SESSION_KEY)
    return value if isinstance(value, int) else None


def drawer_shift_for(request: HttpRequest, pk: int) -> DrawerShift:
    """Drawer ``pk`` when its desk is in a hall where the user is a cashier or a manager; 404
    for any other."""
    try:
        return drawer_shift_list_for(request.user).get(pk=pk)
    except DrawerShift.DoesNotExist:
        raise Http404 from None
