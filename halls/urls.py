"""Web pages of the halls app: the managers' screens of halls, rooms, cash desks and staff.
Paths are Portuguese (R54); names are English. bingo/urls.py mounts them at salas/ in the
"halls" namespace, together with the hall's ball sets (bingo/ballsets) and jackpot (bingo/jackpot)."""

from django.urls import URLPattern, path

from halls import views

urlpatterns: list[URLPattern] = [
    path("", views.hall_list, name="hall_list"),
    path("nova/", views.hall_create, name="hall_create"),
    path("<int:pk>/", views.hall_detail, name="hall_detail"),
    path("<int:pk>/editar/", views.hall_edit, name="hall_edit"),
    path("<int:pk>/saloes/", views.room_create, name="room_create"),
    path("<int:pk>/caixas/", views.cash_desk_create, name="cash_desk_create"),
    path("<int:pk>/pessoal/", views.staff_assign, name="staff_assign"),
    path("<int:pk>/pessoal/<int:membership_pk>/remover/", views.staff_remove, name="staff_remove"),
]
