"""The acta's notes over the JSON API (R61 j), l), m)): a session's notes, listed and recorded.

A thin adapter (STYLE rule 3): a serializer parses, ``acta_note_record`` decides and its refusals
come back as 400 with their message; ``acta_note_list`` reads. Access is per hall (halls/access.py):
a session of a hall the requester does not work in answers 404; its inspectors and managers read
the notes, its callers and managers record them, and any other role gets 403, a role that may
record in no hall before its body is read (docs/api.md).
"""

from __future__ import annotations

from typing import Any, ClassVar

from drf_spectacular.utils import extend_schema, extend_schema_field
from rest_framework import serializers, status
from rest_framework.generics import GenericAPIView
from rest_framework.request import Request
from rest_framework.response import Response

from actas import selectors, services
from actas.models import ActaNote
from actas.notes.forms import NOTE_MAX_LENGTH
from bingo.common.api import ErrorSerializer, Pagination, error_responses
from bingo.common.roles import Role
from bingo.games.access import session_for
from bingo.models import Game, Session
from halls.access import HALL_WRITES, request_user, require_hall_role

#: What a note recorded here may be; the others (the cards destroyed, R51-R52) are written by the system.
RECORDABLE = [kind.value for kind in selectors.HAND_KINDS]


def _pattern(values: list[str]) -> dict[str, str]:
    # A pattern, not an enum: other components already have a field named "kind".
    return {"type": "string", "pattern": f"^({'|'.join(values)})$"}


@extend_schema_field(_pattern(RECORDABLE))
class RecordableKindField(serializers.ChoiceField):
    """What is recorded: complaint, decision (on a complaint), equipment_failure or occurrence."""

    def __init__(self, **kwargs: Any) -> None:
        kwargs.setdefault(
            "help_text",
            "complaint (R61 j), with any decision taken on the spot), decision (a later decision on "
            "a complaint: refers_to), equipment_failure (R61 l)) or occurrence (R61 m)).",
        )
        super().__init__(choices=RECORDABLE, **kwargs)


@extend_schema_field(_pattern(ActaNote.Kind.values))
class NoteKindField(serializers.CharField):
    pass


class ActaNoteSerializer(serializers.ModelSerializer[ActaNote]):
    """A note of the session's acta, with who recorded it and when; ``pending`` for a complaint no
    decision answers yet."""

    kind = NoteKindField(read_only=True)
    game_number = serializers.IntegerField(
        source="game.number", read_only=True, allow_null=True, default=None
    )
    refers_to_position = serializers.IntegerField(
        source="refers_to.position", read_only=True, allow_null=True, default=None
    )
    recorded_by = serializers.SlugRelatedField[Any](slug_field="username", read_only=True)
    pending = serializers.SerializerMethodField(help_text="A complaint with no decision yet (R61 j)).")

    class Meta:
        model = ActaNote
        fields = [
            "id",
            "position",
            "kind",
            "text",
            "decision",
            "game",
            "game_number",
            "refers_to",
            "refers_to_position",
            "recorded_at",
            "recorded_by",
            "pending",
        ]
        read_only_fields = fields

    def get_pending(self, note: ActaNote) -> bool:
        return bool(getattr(note, "pending", False))


class ActaNoteCreateSerializer(serializers.Serializer[Any]):
    """What is recorded: its kind, what happened, what was decided or done, the game (none: the
    session), and for a later decision the complaint it decides."""

    kind = RecordableKindField()
    text = serializers.CharField(max_length=NOTE_MAX_LENGTH, allow_blank=True, required=False, default="")
    decision = serializers.CharField(
        max_length=NOTE_MAX_LENGTH,
        allow_blank=True,
        required=False,
        default="",
        help_text="What was decided or done. A complaint without it stays pending.",
    )
    game = serializers.PrimaryKeyRelatedField(
        queryset=Game.objects.none(), allow_null=True, required=False, default=None
    )
    refers_to = serializers.PrimaryKeyRelatedField(
        queryset=ActaNote.objects.none(),
        allow_null=True,
        required=False,
        default=None,
        help_text="For a decision: the id of the complaint of this session it decides.",
    )

    def __init__(self, *args: Any, **kwargs: Any) -> None:
        super().__init__(*args, **kwargs)
        session: Session | None = self.context.get("session")
        if session is not None:
            # A game or complaint of another session is as unknown as one that is not there.
            self.fields["game"].queryset = Game.objects.filter(session=session)  # type: ignore[attr-defined]
            self.fields["refers_to"].queryset = ActaNote.objects.filter(  # type: ignore[attr-defined]
                acta__session=session, kind=ActaNote.Kind.COMPLAINT
            )


class SessionActaNoteListView(GenericAPIView[ActaNote]):
    """A session's acta notes: read by its hall's inspectors and managers, recorded by its callers
    and managers (R61 j), l), m))."""

    permission_classes = HALL_WRITES
    read_roles: ClassVar[tuple[Role, ...]] = (Role.INSPECTOR, Role.MANAGER)
    write_roles: ClassVar[tuple[Role, ...]] = (Role.CALLER, Role.MANAGER)
    pagination_class = Pagination
    serializer_class = ActaNoteSerializer

    @extend_schema(
        operation_id="sessions_acta_notes_list",
        responses={200: ActaNoteSerializer(many=True), 403: ErrorSerializer, 404: ErrorSerializer},
        tags=["acta"],
    )
    def get(self, request: Request, session_id: int) -> Response:
        session = session_for(request, session_id)
        require_hall_role(request, session.room.hall_id, *self.read_roles)
        page = self.paginate_queryset(selectors.acta_note_list(session=session))
        return self.get_paginated_response(ActaNoteSerializer(page, many=True).data)

    @extend_schema(
        operation_id="sessions_acta_notes_create",
        request=ActaNoteCreateSerializer,
        responses={
            201: ActaNoteSerializer,
            **error_responses(
                "Refused (nothing said happened, a decision naming no complaint of the "
                "session, a game of another session...); nothing recorded."
            ),
        },
        tags=["acta"],
    )
    def post(self, request: Request, session_id: int) -> Response:
        session = session_for(request, session_id)
        require_hall_role(request, session.room.hall_id, *self.write_roles)
        form = ActaNoteCreateSerializer(data=request.data, context={"session": session})
        form.is_valid(raise_exception=True)
        data = form.validated_data
        note = services.acta_note_record(
            session=session,
            kind=data["kind"],
            user=request_user(request),
            text=data["text"],
            decision=data["decision"],
            game=data["game"],
            refers_to=data["refers_to"],
        )
        noted = selectors.acta_note_list(session=session).get(pk=note.pk)
        return Response(ActaNoteSerializer(noted).data, status=status.HTTP_201_CREATED)
