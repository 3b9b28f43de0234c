"""The acta of each session (R58-R61): its games, recorded one by one as they end, and the notes
of what happened in the hall (complaints and decisions, equipment failures, occurrences, the
cards destroyed).

Everything recorded here is insert-only and chained: each row keeps its content as canonical
JSON text and a SHA-256 over the previous row's hash and that text (``bingo.engine.acta``). On
PostgreSQL triggers refuse UPDATE and DELETE, and check each new row's position, link and hash
(``migrations/0002``); ``selectors.acta_verify`` recomputes the chains. After each record the
operator's key signs the acta's state (``ActaReceipt``, insert-only too, ``migrations/0009``).

Why a decision on a complaint is a note of its own (``ActaNote.Kind.DECISION``, pointing at the
complaint) rather than a field filled in later: nothing recorded is ever updated, so the acta
shows when the complaint was made and, separately, when and by whom it was decided; a decision
taken on the spot is recorded with the complaint itself.
"""

from __future__ import annotations

import json

from django.conf import settings
from django.db import models
from django.db.models import Q
from django.utils.translation import gettext_lazy as _

from actas.audit.models import AuditEvent  # noqa: F401  (the audit trail's table: Django finds models here)
from bingo.engine.acta import RECEIPT_FORMAT

#: What a stored hash looks like: SHA-256 in lower-case hex.
HASH_PATTERN = r"^[0-9a-f]{64}$"


class Acta(models.Model):
    """The acta of one session (R58), written game by game (R59)."""

    session = models.OneToOneField(
        "bingo.Session", verbose_name=_("session"), on_delete=models.PROTECT, related_name="acta"
    )
    created_at = models.DateTimeField(_("opened at"), auto_now_add=True)

    class Meta:
        verbose_name = _("acta")
        verbose_name_plural = _("actas")

    def __str__(self) -> str:
        return f"{_('Acta')} · {self.session}"


class ActaEntry(models.Model):
    """One game of the session as it was when it ended (R59-R61): its ``session_export`` form,
    recorded in the same transaction that finished or annulled it. Insert-only."""

    class Kind(models.TextChoices):
        FINISHED = "finished", _("Game finished")
        ANNULLED = "annulled", _("Game annulled")

    acta = models.ForeignKey(Acta, verbose_name=_("acta"), on_delete=models.PROTECT, related_name="entries")
    #: 1 for the first game recorded, then 2, 3, … in the order they were recorded.
    position = models.PositiveIntegerField(_("position"))
    game = models.OneToOneField(
        "bingo.Game", verbose_name=_("game"), on_delete=models.PROTECT, related_name="acta_entry"
    )
    kind = models.CharField(_("kind"), max_length=10, choices=Kind.choices)
    #: Canonical JSON: exactly the text ``content_hash`` covers (see bingo.engine.acta).
    content = models.TextField(_("content"))
    content_hash = models.CharField(_("hash"), max_length=64)
    previous_hash = models.CharField(_("previous hash"), max_length=64)
    recorded_at = models.DateTimeField(_("recorded at"))
    recorded_by = models.ForeignKey(
        settings.AUTH_USER_MODEL,
        verbose_name=_("recorded by"),
        on_delete=models.PROTECT,
        null=True,
        blank=True,
        related_name="+",
    )

    class Meta:
        verbose_name = _("acta entry")
        verbose_name_plural = _("acta entries")
        ordering = ("acta", "position")
        constraints = [
            models.UniqueConstraint(fields=["acta", "position"], name="acta_entry_position_unique"),
            models.CheckConstraint(condition=Q(position__gte=1), name="acta_entry_position_from_one"),
            models.CheckConstraint(
                condition=Q(kind__in=["finished", "annulled"]), name="acta_entry_kind_known"
            ),
            models.CheckConstraint(
                condition=Q(content_hash__regex=HASH_PATTERN, previous_hash__regex=HASH_PATTERN),
                name="acta_entry_hashes_are_sha256",
            ),
        ]

    def __str__(self) -> str:
        return f"{self.acta} · {self.position}"


class ActaNote(models.Model):
    """Something the caller or the manager recorded in the session's acta, with who and when
    (R61 j), l), m), R51-R52), or the system (R52's daily destruction). Insert-only, chained like
    the entries; a destruction names its cards in the content (docs/acta.md)."""

    class Kind(models.TextChoices):
        COMPLAINT = "complaint", _("Player's complaint (R61 j)")
        DECISION = "decision", _("Decision on a complaint (R61 j)")
        EQUIPMENT_FAILURE = "equipment_failure", _("Equipment failure (R61 l)")
        OCCURRENCE = "occurrence", _("Occurrence that may involve an offence (R61 m)")
        CARDS_DESTROYED = "cards_destroyed", _("Cards collected and destroyed (R51)")
        WINNING_CARDS_DESTROYED = "winning_cards_destroyed", _("Winning cards destroyed after 8 days (R52)")
        #: The session's end (R61 h), with its ball-set checks (R23) and replacements (R61 k) as
        #: they stood then, in the content: the last record of a closed session's acta.
        SESSION_CLOSED = "session_closed", _("Session closed (R61 h)")
        #: The operator's key that signs the acta's receipts changed since the last receipt: the
        #: previous key and the new one, in the content (``"signing_key"``). By the system.
        SIGNING_KEY_CHANGED = "signing_key_changed", _("Signing key changed")

    acta = models.ForeignKey(Acta, verbose_name=_("acta"), on_delete=models.PROTECT, related_name="notes")
    #: 1 for the session's first note, then 2, 3, … in the order they were recorded.
    position = models.PositiveIntegerField(_("position"))
    kind = models.CharField(_("kind"), max_length=24, choices=Kind.choices)
    text = models.TextField(_("what happened"), blank=True)
    decision = models.TextField(_("decision or measure taken"), blank=True)
    game = models.ForeignKey(
        "bingo.Game",
        verbose_name=_("game"),
        on_delete=models.PROTECT,
        null=True,
        blank=True,
        related_name="acta_notes",
    )
    #: A decision names the complaint it decides.
    refers_to = models.ForeignKey(
        "self",
        verbose_name=_("complaint decided"),
        on_delete=models.PROTECT,
        null=True,
        blank=True,
        related_name="decisions",
    )
    content = models.TextField(_("content"))
    content_hash = models.CharField(_("hash"), max_length=64)
    previous_hash = models.CharField(_("previous hash"), max_length=64)
    recorded_at = models.DateTimeField(_("recorded at"))
    #: Empty only for what the system records on its own: the winning cards destroyed once their
    #: 8 days are over (R52, the daily task ``actas.winning_cards_destroy_due``). The acta shows
    #: "the system" as their author; the content records ``"recorded_by": null`` like an entry's.
    recorded_by = models.ForeignKey(
        settings.AUTH_USER_MODEL,
        verbose_name=_("recorded by"),
        on_delete=models.PROTECT,
        null=True,
        blank=True,
        related_name="+",
    )

    class Meta:
        verbose_name = _("acta note")
        verbose_name_plural = _("acta notes")
        ordering = ("acta", "position")
        constraints = [
            models.UniqueConstraint(fields=["acta", "position"], name="acta_note_position_unique"),
            models.CheckConstraint(condition=Q(position__gte=1), name="acta_note_position_from_one"),
            models.CheckConstraint(
                condition=Q(
                    kind__in=[
                        "complaint",
                        "decision",
                        "equipment_failure",
                        "occurrence",
                        "cards_destroyed",
                        "winning_cards_destroyed",
                        "session_closed",
                        "signing_key_changed",
                    ]
                ),
                name="acta_note_kind_known",
            ),
            # R61 j): a decision decides a complaint, and says what was decided.
            models.CheckConstraint(
                condition=(Q(kind="decision") & Q(refers_to__isnull=False) & ~Q(decision=""))
                | (~Q(kind="decision") & Q(refers_to__isnull=True)),
                name="acta_note_decision_refers_to_a_complaint",
            ),
            models.CheckConstraint(
                condition=~Q(kind__in=["complaint", "equipment_failure", "occurrence"]) | ~Q(text=""),
                name="acta_note_says_what_happened",
            ),
            # R51-R52: the cards of one game.
            models.CheckConstraint(
                condition=~Q(kind__in=["cards_destroyed", "winning_cards_destroyed"]) | Q(game__isnull=False),
                name="acta_note_destruction_names_its_game",
            ),
            models.CheckConstraint(
                condition=Q(content_hash__regex=HASH_PATTERN, previous_hash__regex=HASH_PATTERN),
                name="acta_note_hashes_are_sha256",
            ),
            # Only R52's destruction, a session closed by the system (the simulation) and a change
            # of the signing key have no person; every other note has one.
            models.CheckConstraint(
                condition=Q(recorded_by__isnull=False)
                | Q(kind__in=["winning_cards_destroyed", "session_closed", "signing_key_changed"]),
                name="acta_note_a_person_records_it",
            ),
        ]

    def __str__(self) -> str:
        return f"{self.acta} · {self.get_kind_display()} {self.position}"

    @property
    def author(self) -> str:
        """Who recorded the note, as the acta names them: a username, or the system (R52)."""
        return self.recorded_by.get_username() if self.recorded_by is not None else str(_("the system"))


class ActaReceipt(models.Model):
    """The operator's signature over the acta's state, taken after each record (a game, a note,
    the session's close): the session, how many records each chain held and the last one's hash,
    the seal over both, when, and the key (docs/acta.md, «Signed receipts»). ``statement`` is the
    canonical JSON exactly as signed; the columns repeat it to be read and listed. Insert-only.

    A receipt handed to the regulator proves what the acta held at that moment: a chain cut short
    or rewritten since no longer extends it (``bingo.engine.acta.receipt_extension_fault``)."""

    class Reason(models.TextChoices):
        GAME = "game", _("Game recorded")
        NOTE = "note", _("Note recorded")
        SESSION_CLOSED = "session_closed", _("Session closed")

    acta = models.ForeignKey(Acta, verbose_name=_("acta"), on_delete=models.PROTECT, related_name="receipts")
    #: 1 for the acta's first receipt, then 2, 3, … in the order they were signed.
    number = models.PositiveIntegerField(_("number"))
    reason = models.CharField(_("reason"), max_length=16, choices=Reason.choices)
    entries = models.PositiveIntegerField(_("games recorded"))
    entries_hash = models.CharField(_("last hash of the games"), max_length=64)
    notes = models.PositiveIntegerField(_("notes recorded"))
    notes_hash = models.CharField(_("last hash of the notes"), max_length=64)
    seal = models.CharField(_("seal"), max_length=64)
    signed_at = models.DateTimeField(_("signed at"))
    key_id = models.CharField(_("key id"), max_length=16)
    #: The signing key's 32 raw bytes in base64 (``bingo.engine.acta.public_key_text``).
    public_key = models.CharField(_("public key"), max_length=44)
    #: The Ed25519 signature over ``statement``, in base64.
    signature = models.CharField(_("signature"), max_length=88)
    #: Canonical JSON (``bingo.engine.acta.canonical_json``): exactly the text signed.
    statement = models.TextField(_("statement"))

    class Meta:
        verbose_name = _("acta receipt")
        verbose_name_plural = _("acta receipts")
        ordering = ("acta", "number")
        constraints = [
            models.UniqueConstraint(fields=["acta", "number"], name="acta_receipt_number_unique"),
            models.CheckConstraint(condition=Q(number__gte=1), name="acta_receipt_number_from_one"),
            models.CheckConstraint(
                condition=Q(entries__gte=0, notes__gte=0), name="acta_receipt_counts_not_negative"
            ),
            models.CheckConstraint(
                condition=Q(reason__in=["game", "note", "session_closed"]), name="acta_receipt_reason_known"
            ),
            models.CheckConstraint(
                condition=Q(
                    entries_hash__regex=HASH_PATTERN, notes_hash__regex=HASH_PATTERN, seal__regex=HASH_PATTERN
                ),
                name="acta_receipt_hashes_are_sha256",
            ),
            models.CheckConstraint(
                condition=Q(key_id__regex=r"^[0-9a-f]{16}$"), name="acta_receipt_key_id_is_hex"
            ),
        ]

    def __str__(self) -> str:
        return f"{self.acta} · {self.get_reason_display()} {self.number}"

    def as_receipt(self) -> dict[str, object]:
        """The receipt exactly as signed (``bingo.engine.acta.receipt_sign``'s form), which
        ``receipt_signature_fault`` checks with nothing but the engine."""
        return {
            "format": RECEIPT_FORMAT,
            "statement": json.loads(self.statement),
            "signature": self.signature,
            "public_key": self.public_key,
        }
