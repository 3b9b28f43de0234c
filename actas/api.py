"""The acta over the JSON API: a session's acta as a self-contained file (issue 22, docs/acta.md).

A thin adapter (STYLE rule 3): ``acta_file_data`` reads; access is per hall (halls/access.py): a
session of a hall the requester does not work in answers 404, and only its inspectors and managers
read it (403 for any other role).
"""

from __future__ import annotations

from typing import Any

from drf_spectacular.utils import extend_schema
from rest_framework import serializers
from rest_framework.permissions import IsAuthenticated
from rest_framework.request import Request
from rest_framework.response import Response
from rest_framework.views import APIView

from actas.selectors import acta_file_data
from bingo.common.api import ErrorSerializer
from bingo.common.roles import Role
from bingo.engine.acta import FILE_FORMAT
from bingo.games.access import session_for
from halls.access import require_hall_role

_HASH = r"^[0-9a-f]{64}$"


class ActaFileLinkSerializer(serializers.Serializer[Any]):
    """One record of a chain: its content exactly as hashed, its hash and the previous one."""

    position = serializers.IntegerField(min_value=1)
    content = serializers.CharField(help_text="Canonical JSON: the bytes the hash covers.")
    hash = serializers.RegexField(_HASH)
    previous_hash = serializers.RegexField(_HASH)


class ActaFileSerializer(serializers.Serializer[Any]):
    """A session's acta as a self-contained file (``bingo-acta/1``): checked with no database by
    ``python -m bingo.engine.acta_check`` or ``manage.py acta_verify --file``."""

    format = serializers.ChoiceField(choices=[FILE_FORMAT])
    session = serializers.IntegerField()
    about = serializers.DictField(
        help_text="The hall and the session, to read; the records are what is checked."
    )
    exported_at = serializers.CharField()
    entries = ActaFileLinkSerializer(
        many=True, help_text="The games, one record each, in the order recorded."
    )
    notes = ActaFileLinkSerializer(many=True, help_text="The notes, in the order recorded.")
    seal = serializers.RegexField(_HASH)
    receipts = serializers.ListField(
        child=serializers.DictField(), help_text="The signed receipts (bingo-acta-receipt/1), oldest first."
    )


class SessionActaFileView(APIView):
    """A session's acta as a self-contained file, for its hall's inspectors and managers."""

    permission_classes = (IsAuthenticated,)

    @extend_schema(
        operation_id="sessions_acta_file",
        responses={200: ActaFileSerializer, 403: ErrorSerializer, 404: ErrorSerializer},
        tags=["acta"],
    )
    def get(self, request: Request, session_id: int) -> Response:
        session = session_for(request, session_id)
        require_hall_role(request, session.room.hall_id, Role.INSPECTOR, Role.MANAGER)
        response = Response(acta_file_data(session=session))
        response["Content-Disposition"] = f'attachment; filename="acta-sessao-{session.pk}.json"'
        return response
