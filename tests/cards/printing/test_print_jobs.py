"""Printing a series: the cards_print command, direct downloads and print jobs."""

import io

import pytest
from django.core.exceptions import ValidationError
from django.core.management import CommandError, call_command
from django.utils.translation import gettext as _
from pypdf import PdfReader

from cards.models import PrintJob
from cards.printing import pdf, tasks
from cards.printing import services as print_services
from cards.selectors import card_check_code
from tests.cards.factories import series_make

pytestmark = pytest.mark.django_db


@pytest.fixture(autouse=True)
def media(settings, tmp_path):
    settings.MEDIA_ROOT = tmp_path / "media"
    return settings.MEDIA_ROOT


@pytest.fixture
def series():
    return series_make(variant="90", size=20)


def pdf_pages(data):
    return PdfReader(io.BytesIO(data)).pages


# --- cards_print -------------------------------------------------------------------------------


def test_cards_print_writes_the_whole_series_by_default(series, tmp_path, capsys):
    out = tmp_path / "k.pdf"
    call_command("cards_print", "--series", str(series.pk), "--output", str(out))
    pages = pdf_pages(out.read_bytes())
    assert len(pages) == 4  # 20 cards, 6 a sheet
    assert card_check_code(series=series, number=20) in pages[3].extract_text()
    assert "cards 1-20 (20) on 4 pages" in capsys.readouterr().out
    assert sorted(p.name for p in tmp_path.iterdir()) == ["k.pdf"]  # no temporary file left


def test_cards_print_prints_a_range_and_replaces_the_file(series, tmp_path):
    out = tmp_path / "k.pdf"
    out.write_bytes(b"old")
    call_command("cards_print", "--series", str(series.pk), "--output", str(out), "--from", "7", "--to", "8")
    pages = pdf_pages(out.read_bytes())
    assert len(pages) == 1
    text = pages[0].extract_text()
    assert card_check_code(series=series, number=7) in text
    assert card_check_code(series=series, number=9) not in text


def holds(series):
    return _("Series %(series)s holds cards 1 to %(size)d.") % {"series": series.label, "size": series.size}


@pytest.mark.parametrize(
    ("args", "message"),
    [
        (["--series", "999999"], lambda s: "there is no series with id 999999"),
        (["--from", "0"], holds),
        (["--to", "21"], holds),
        (
            ["--from", "9", "--to", "3"],
            lambda s: (
                _("The first card (%(first)d) comes after the last (%(last)d).") % {"first": 9, "last": 3}
            ),
        ),
    ],
)
def test_cards_print_refuses_bad_input_and_writes_nothing(series, tmp_path, args, message):
    out = tmp_path / "k.pdf"
    if args[0] != "--series":
        args = ["--series", str(series.pk), *args]
    with pytest.raises(CommandError) as refused:
        call_command("cards_print", *args, "--output", str(out))
    assert str(refused.value) == message(series)
    assert list(tmp_path.iterdir()) == []


@pytest.mark.parametrize("target", ["missing/k.pdf", "."])
def test_cards_print_refuses_an_unwritable_path(series, tmp_path, target):
    with pytest.raises(CommandError, match=r"cannot write|is a folder"):
        call_command("cards_print", "--series", str(series.pk), "--output", str(tmp_path / target))
    assert list(tmp_path.iterdir()) == []


def test_cards_print_leaves_the_old_file_when_rendering_fails(series, tmp_path, monkeypatch):
    out = tmp_path / "k.pdf"
    out.write_bytes(b"old")

    def broken(*args, **kwargs):
        raise OSError(28, "No space left on device")

    monkeypatch.setattr("cards.management.commands.cards_print.render_series_pdf", broken)
    with pytest.raises(CommandError, match="No space left"):
        call_command("cards_print", "--series", str(series.pk), "--output", str(out))
    assert out.read_bytes() == b"old"
    assert sorted(p.name for p in tmp_path.iterdir()) == ["k.pdf"]


# --- direct download ---------------------------------------------------------------------------


def test_series_pdf_bytes_is_a_pdf_of_the_range(series):
    data = print_services.series_pdf_bytes(series, 1, 7)
    assert data.startswith(b"%PDF-")
    assert len(pdf_pages(data)) == 2


def test_series_pdf_bytes_refuses_a_bad_range(series):
    with pytest.raises(ValidationError):
        print_services.series_pdf_bytes(series, 5, 21)


# --- print jobs --------------------------------------------------------------------------------


def test_a_small_print_job_is_done_at_once(series, make_user, media):
    user = make_user()
    job = print_services.print_job_request(series=series, first=1, last=20, user=user)
    assert job.status == PrintJob.Status.DONE
    assert job.progress == 100
    assert job.finished_at is not None
    assert job.created_by == user
    assert job.pdf.name.startswith("prints/")
    assert (media / job.pdf.name).is_file()
    with job.pdf.open("rb") as f:
        pages = pdf_pages(f.read())
    assert len(pages) == 4
    assert card_check_code(series=series, number=13) in pages[2].extract_text()


@pytest.mark.parametrize(("first", "last"), [(0, 5), (5, 21), (6, 5)])
def test_a_print_job_with_a_bad_range_is_refused(series, first, last):
    with pytest.raises(ValidationError):
        print_services.print_job_request(series=series, first=first, last=last, user=None)
    assert not PrintJob.objects.exists()


def test_a_large_print_job_is_scheduled_after_commit_and_run_by_the_worker(
    series, monkeypatch, django_capture_on_commit_callbacks
):
    monkeypatch.setattr(print_services, "INLINE_LIMIT", 5)
    queued = []
    monkeypatch.setattr(tasks.print_job_run_task, "delay", queued.append)
    with django_capture_on_commit_callbacks(execute=False) as callbacks:
        job = print_services.print_job_request(series=series, first=1, last=20, user=None)
        assert queued == []  # nothing is sent while the transaction may still roll back
    assert job.status == PrintJob.Status.PENDING
    assert len(callbacks) == 1
    callbacks[0]()
    assert queued == [job.pk]

    # The worker: the progress the manager would see after each page, read from the database.
    seen = []
    original = print_services.render_series_pdf

    def watched(*args, progress, **kwargs):
        def report(percent):
            progress(percent)
            seen.append(PrintJob.objects.get(pk=job.pk).progress)

        return original(*args, progress=report, **kwargs)

    monkeypatch.setattr(print_services, "render_series_pdf", watched)
    tasks.print_job_run_task(job.pk)
    job.refresh_from_db()
    assert job.status == PrintJob.Status.DONE
    assert job.progress == 100
    assert seen == sorted(seen)
    assert 0 < seen[0] < 100
    with job.pdf.open("rb") as f:
        assert len(pdf_pages(f.read())) == pdf.page_count("90", 20)


def test_running_a_done_job_again_changes_nothing(series, monkeypatch):
    job = print_services.print_job_request(series=series, first=1, last=6, user=None)
    name = job.pdf.name

    def must_not_render(*args, **kwargs):
        raise AssertionError("rendered twice")

    monkeypatch.setattr(print_services, "render_series_pdf", must_not_render)
    again = print_services.print_job_run(print_job_id=job.pk)
    assert again.status == PrintJob.Status.DONE
    assert again.pdf.name == name


def test_a_failing_render_marks_the_job_failed_with_its_error(series, monkeypatch):
    def broken(*args, **kwargs):
        raise RuntimeError("the printer is on fire")

    monkeypatch.setattr(print_services, "render_series_pdf", broken)
    job = print_services.print_job_request(series=series, first=1, last=6, user=None)
    assert job.status == PrintJob.Status.FAILED
    assert "the printer is on fire" in job.error
    assert not job.pdf

    # Once fixed, running it again prints it.
    monkeypatch.undo()
    job = print_services.print_job_run(print_job_id=job.pk)
    assert job.status == PrintJob.Status.DONE
    assert job.error == ""
