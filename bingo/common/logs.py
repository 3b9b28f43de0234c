"""Logging plumbing: a refused request is one line in the log, not a traceback (issue 24).

Django logs a PermissionDenied (403) and the other 4xx it turns from exceptions with the
exception's traceback: in one walk through the screens 42 of them buried the real errors. A
refusal is expected work, not a fault: ``RefusalsOneLine`` keeps its line, adds who was refused
and why, and drops the traceback. Server errors (5xx) keep theirs.
"""

from __future__ import annotations

import logging


class RefusalsOneLine(logging.Filter):
    """On ``django.request``: a 4xx record becomes one line naming the user and the reason."""

    def filter(self, record: logging.LogRecord) -> bool:
        if getattr(record, "status_code", 500) >= 500 or not record.exc_info:
            return True
        exc = record.exc_info[1]
        request = getattr(record, "request", None)
        user = getattr(request, "user", None)
        who = user.get_username() if user is not None and user.is_authenticated else "anonymous"
        reason = str(exc) if exc is not None else ""
        record.msg = f"{record.getMessage()} (user {who}{': ' + reason if reason else ''})"
        record.args = ()
        record.exc_info = None
        record.exc_text = None
        return True
