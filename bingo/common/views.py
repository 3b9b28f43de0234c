"""The pages every role shares: its dashboard (the staff's are bingo/accounts's; the player's,
bingo/players/views.py ``PlayerDashboardView``, adds the wallet's balance), and the confirmation
step of an action that cannot be undone (closing sales, awarding a prize, annulling a game)."""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass
from typing import Any

from django.http import HttpRequest, HttpResponse
from django.shortcuts import render
from django.views.generic import TemplateView

from bingo.common.roles import ROLE_DUTIES, Role, RoleRequiredMixin


class DashboardView(RoleRequiredMixin, TemplateView):
    """The dashboard of one role: what that role does here, and what is available yet."""

    template_name = "bingo/dashboard.html"
    role: Role | None = None

    def get_required_roles(self) -> tuple[Role, ...]:
        assert self.role is not None, "DashboardView.as_view(role=...) is required"
        return (self.role,)

    def get_context_data(self, **kwargs: Any) -> dict[str, Any]:
        context = super().get_context_data(**kwargs)
        assert self.role is not None
        context["role"] = self.role
        context["duties"] = ROLE_DUTIES[self.role]
        return context


#: The field a confirmed POST carries. Without it, a view that asks for confirmation shows what
#: the action will do (``confirmation_page``) and changes nothing; with it, the view acts. The
#: API's endpoints ask for none.
CONFIRM_FIELD = "confirmado"

#: What a confirmation page does not post again: the CSRF token (its own form has one) and the
#: confirmation itself.
_NOT_POSTED_AGAIN = ("csrfmiddlewaretoken", CONFIRM_FIELD)


def confirmed(request: HttpRequest) -> bool:
    """Whether ``request`` (a POST) carries the confirmation of its action."""
    return request.POST.get(CONFIRM_FIELD) == "1"


@dataclass(frozen=True)
class Confirmation:
    """What a confirmation step says: its question, what will happen, the button that does it and
    where «Cancel» goes back to."""

    title: str
    facts: Sequence[str]
    button: str
    back_url: str


def confirmation_page(request: HttpRequest, confirmation: Confirmation) -> HttpResponse:
    """The confirmation step of an action posted from a page, with no JavaScript needed: what it
    will do, and a form posting the same fields again to the same address with the
    confirmation (``CONFIRM_FIELD``). Nothing has changed yet."""
    fields = [
        (name, value)
        for name, values in request.POST.lists()
        if name not in _NOT_POSTED_AGAIN
        for value in values
    ]
    return render(
        request,
        "confirm.html",
        {"confirmation": confirmation, "fields": fields, "confirm_field": CONFIRM_FIELD},
    )
