"""The one page every role shares: its dashboard. The staff's are bingo/accounts's; the player's
(bingo/players/views.py ``PlayerDashboardView``) adds the wallet's balance."""

from __future__ import annotations

from typing import Any

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
