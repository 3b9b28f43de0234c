"""Entry pages: the home router and one dashboard per role."""

from __future__ import annotations

from typing import Any

from django.contrib.auth.decorators import login_required
from django.http import HttpRequest, HttpResponse
from django.shortcuts import redirect, render
from django.views.generic import TemplateView

from bingo.roles import ROLE_DUTIES, Role, RoleRequiredMixin, roles_in_order, user_roles


@login_required
def home(request: HttpRequest) -> HttpResponse:
    """Send a user to their dashboard; with several roles let them choose; with none, say so."""
    roles = roles_in_order(user_roles(request.user))
    if len(roles) == 1:
        return redirect(roles[0].dashboard_url_name)
    if not roles:
        return render(request, "bingo/home_no_role.html")
    return render(request, "bingo/home_choose.html", {"roles": roles})


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
