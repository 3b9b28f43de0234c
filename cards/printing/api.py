"""Printing over the JSON API: cards ``from``..``to`` of a series as PDF sheets (docs/api.md).

A thin adapter (STYLE rule 3): the card-range serializer parses, the printing service renders.
Only a manager prints, and only the series of the halls they manage: the series is looked up as
every series endpoint looks it up (cards/api.py ``series_for``).
"""

from __future__ import annotations

from django.http import HttpResponse
from drf_spectacular.types import OpenApiTypes
from drf_spectacular.utils import OpenApiResponse, extend_schema
from rest_framework.permissions import IsAuthenticated
from rest_framework.renderers import JSONRenderer
from rest_framework.request import Request
from rest_framework.views import APIView

from bingo.common.api import ErrorSerializer, IsManager, PDFRenderer
from cards.api import CardRangeSerializer, series_for
from cards.printing.services import series_pdf_bytes


class SeriesPDFView(APIView):
    """Cards ``from``..``to`` of a series as a printable PDF (manager)."""

    permission_classes = [IsAuthenticated, IsManager]
    renderer_classes = [JSONRenderer, PDFRenderer]

    @extend_schema(
        operation_id="series_pdf",
        parameters=[CardRangeSerializer],
        responses={
            (200, "application/pdf"): OpenApiResponse(OpenApiTypes.BINARY, description="The PDF sheets."),
            (400, "application/json"): OpenApiResponse(description="A bad range."),
            (403, "application/json"): ErrorSerializer,
            (404, "application/json"): ErrorSerializer,
        },
        tags=["series"],
    )
    def get(self, request: Request, series_id: int) -> HttpResponse:
        series = series_for(request, series_id, manage=True)
        span = CardRangeSerializer(data=request.query_params, context={"size": series.size})
        span.is_valid(raise_exception=True)
        first, last = span.validated_data["first"], span.validated_data["last"]
        pdf = series_pdf_bytes(series, first, last)
        response = HttpResponse(pdf, content_type="application/pdf")
        response["Content-Disposition"] = f'attachment; filename="series-{series.label}-{first}-{last}.pdf"'
        return response
