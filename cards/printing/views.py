"""Printing screens: print a range of a series' cards, follow a print job, download its PDF.

Thin adapters (STYLE rule 3): parse with the print form, call one printing service, answer with
the PDF or redirect to the series page (cards/views.py), which holds the form and lists the print
jobs, and which a refused range renders again. A manager prints only the series, and sees only
the print jobs, of the halls they manage (halls/selectors.py): another hall's answer 404.
"""

from __future__ import annotations

from django.contrib import messages
from django.core.exceptions import ValidationError
from django.http import Http404, HttpRequest, HttpResponse, JsonResponse
from django.shortcuts import redirect, render
from django.urls import reverse
from django.utils.translation import gettext as _
from django.views.decorators.http import require_GET, require_POST

from bingo.common.roles import Role, role_required
from cards.models import PrintJob, Series
from cards.printing import services
from cards.printing.forms import PrintForm
from cards.views import series_detail_context, series_or_404
from halls.selectors import hall_list_for


def _print_job_or_404(request: HttpRequest, pk: int, **filters: object) -> PrintJob:
    try:
        return PrintJob.objects.select_related("series").get(
            pk=pk, series__hall__in=hall_list_for(request.user, Role.MANAGER), **filters
        )
    except PrintJob.DoesNotExist:
        raise Http404 from None


@require_POST
@role_required(Role.MANAGER)
def series_print(request: HttpRequest, pk: int) -> HttpResponse:
    """Print cards first..last: a PDF download for a small range, a background job for a large one."""
    series = series_or_404(request, pk)
    form = PrintForm(request.POST, series=series)
    if not form.is_valid():
        return render(request, "cards/series_detail.html", series_detail_context(series, form), status=400)
    first, last = form.cleaned_data["first"], form.cleaned_data["last"]
    try:
        if last - first + 1 <= services.DIRECT_PRINT_LIMIT:
            pdf = services.series_pdf_bytes(series, first, last)
            response = HttpResponse(pdf, content_type="application/pdf")
            response["Content-Disposition"] = f'attachment; filename="{_pdf_name(series, first, last)}"'
            return response
        job = services.print_job_request(
            series=series,
            first=first,
            last=last,
            user=request.user,  # type: ignore[arg-type]
        )
    except ValidationError as exc:
        for message in exc.messages:
            form.add_error(None, message)
        return render(request, "cards/series_detail.html", series_detail_context(series, form), status=400)
    if job.status == PrintJob.Status.DONE:
        messages.success(
            request, _("Cards %(first)s to %(last)s are printed.") % {"first": first, "last": last}
        )
    else:
        messages.success(
            request,
            _("Printing cards %(first)s to %(last)s: the PDF will be ready below.")
            % {"first": first, "last": last},
        )
    return redirect(reverse("cards:series_detail", kwargs={"pk": series.pk}) + f"#job-{job.pk}")


def _pdf_name(series: Series, first: int, last: int) -> str:
    return f"serie-{series.label}-{first}-{last}.pdf"


@require_GET
@role_required(Role.MANAGER)
def print_job_status(request: HttpRequest, pk: int) -> JsonResponse:
    """A print job's progress, for the series page's poller."""
    job = _print_job_or_404(request, pk)
    return JsonResponse(
        {
            "status": job.status,
            "status_display": job.get_status_display(),
            "progress": job.progress,
            "finished": job.status in (PrintJob.Status.DONE, PrintJob.Status.FAILED),
        }
    )


@require_GET
@role_required(Role.MANAGER)
def print_job_download(request: HttpRequest, pk: int) -> HttpResponse:
    """The PDF of a finished print job."""
    job = _print_job_or_404(request, pk, status=PrintJob.Status.DONE)
    with job.pdf.open("rb") as pdf:
        response = HttpResponse(pdf.read(), content_type="application/pdf")
    response["Content-Disposition"] = f'attachment; filename="{_pdf_name(job.series, job.first, job.last)}"'
    return response
