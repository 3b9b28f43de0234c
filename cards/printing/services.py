"""Printing a series' cards to PDF: direct downloads and print jobs (SPEC §1, R18).

Rendering (cards/printing/pdf.py) never runs under a database lock: rows are locked only for the
short status updates around it (STYLE rule 5).
"""

from __future__ import annotations

import io
import logging
import tempfile

from django.contrib.auth.models import User
from django.core.exceptions import ValidationError
from django.core.files import File
from django.db import transaction
from django.utils import timezone
from django.utils.translation import gettext as _

from bingo.common.tasks import task_enqueue_on_commit
from cards.models import CardSet, PrintJob, Series
from cards.printing.pdf import render_series_pdf

logger = logging.getLogger(__name__)

#: Runs of up to this many cards are printed at once, in the request (a K series, 1,680 cards,
#: takes about half a second); longer runs by a Celery worker.
INLINE_LIMIT = 2_000

#: At most this many cards are downloaded at once from the series page, with no record kept. A
#: larger range (a whole series, typically) becomes a PrintJob: kept with its PDF and listed on
#: the series page, and printed by a worker, with its progress shown, when it is very large
#: (INLINE_LIMIT). The API's PDF download has no such limit.
DIRECT_PRINT_LIMIT = 100

#: The job's progress is written at most this often (in percentage points).
PROGRESS_STEP = 5

#: The name cards/printing/tasks.py registers the print task under. Tasks waiting in a broker
#: across a deploy carry it: keep it.
PRINT_JOB_RUN_TASK = "cards.print_job_run"


def print_range_check(*, series: Series, first: int, last: int) -> None:
    """ValidationError unless cards ``first``..``last`` of ``series`` can be printed."""
    if series.card_set.status != CardSet.Status.READY:
        raise ValidationError(_("The cards of this series are not ready yet."))
    if not 1 <= first <= series.size or not 1 <= last <= series.size:
        raise ValidationError(
            _("Series %(series)s holds cards 1 to %(size)d.") % {"series": series.label, "size": series.size}
        )
    if first > last:
        raise ValidationError(
            _("The first card (%(first)d) comes after the last (%(last)d).")
            % {
                "first": first,
                "last": last,
            }
        )


def series_pdf_bytes(series: Series, first: int, last: int) -> bytes:
    """Cards ``first``..``last`` of ``series`` as a PDF, in memory (for a direct download)."""
    print_range_check(series=series, first=first, last=last)
    out = io.BytesIO()
    render_series_pdf(series, first, last, out)
    return out.getvalue()


def print_job_request(*, series: Series, first: int, last: int, user: User | None) -> PrintJob:
    """Record a print job; print it now when it is small, or schedule it for a worker."""
    print_range_check(series=series, first=first, last=last)
    job = PrintJob.objects.create(series=series, first=first, last=last, created_by=user)
    if last - first + 1 <= INLINE_LIMIT:
        return print_job_run(print_job_id=job.pk)
    # By name: cards/printing/tasks.py imports this module, never the reverse
    # (bingo/common/tasks.py).
    task_enqueue_on_commit(PRINT_JOB_RUN_TASK, job.pk)
    return job


def print_job_run(*, print_job_id: int) -> PrintJob:
    """Print a job's cards into its PDF; does nothing if it is done (safe to run twice).

    The job is marked "running" and committed first so the manager sees it; the PDF is then
    rendered with no lock held, its progress written every few percent; the file and the
    "done" status are saved last. Any error marks the job "failed" with the error's text.
    """
    with transaction.atomic():
        job = (
            PrintJob.objects.select_for_update(of=("self",))  # the series, hall, card set: read
            .select_related("series__hall", "series__card_set")
            .get(pk=print_job_id)
        )
        if job.status == PrintJob.Status.DONE:
            return job
        job.status, job.progress, job.error = PrintJob.Status.RUNNING, 0, ""
        job.save(update_fields=["status", "progress", "error"])

    reported = 0

    def progress(percent: int) -> None:
        nonlocal reported
        if percent - reported >= PROGRESS_STEP and percent < 100:
            PrintJob.objects.filter(pk=print_job_id).update(progress=percent)
            reported = percent

    try:
        with tempfile.TemporaryFile() as pdf:
            render_series_pdf(job.series, job.first, job.last, pdf, progress=progress)
            pdf.seek(0)
            name = f"series-{job.series_id}-{job.first}-{job.last}-job{job.pk}.pdf"
            job.pdf.save(name, File(pdf), save=False)
        with transaction.atomic():
            PrintJob.objects.filter(pk=print_job_id).update(
                pdf=job.pdf.name, status=PrintJob.Status.DONE, progress=100, finished_at=timezone.now()
            )
    except Exception as exc:
        logger.exception("print job %s failed", print_job_id)
        PrintJob.objects.filter(pk=print_job_id).update(
            status=PrintJob.Status.FAILED,
            error=f"{type(exc).__name__}: {exc}"[:2000],
            finished_at=timezone.now(),
        )
    job.refresh_from_db()
    return job
