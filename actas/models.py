"""Models of the actas app (filled in by later issues)."""

from actas.audit.models import AuditEvent  # noqa: F401  (the audit trail's table, actas/audit/)
