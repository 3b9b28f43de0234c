"""Writes of online players and their wallets (R85-R103).

The wallet is an insert-only ledger (``WalletEntry``): every movement is one entry carrying the
balance after it, and nothing else holds a balance. ``wallet_post`` writes every entry but an
online purchase's; it locks the player's row, so movements of one wallet queue one after another.
A purchase's debit is ``wallet_purchase_debit``, under the same lock its transaction took first
(``wallet_lock``). The database checks the chain again (``bingo/migrations/0011``): an entry
follows the previous one, its balance is the previous plus its amount, and never below zero.
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from datetime import date, datetime
from decimal import Decimal

from django.conf import settings
from django.contrib.auth.base_user import AbstractBaseUser
from django.contrib.auth.models import Group, User
from django.contrib.auth.password_validation import validate_password
from django.contrib.auth.tokens import PasswordResetTokenGenerator
from django.core.exceptions import PermissionDenied, ValidationError
from django.core.mail import send_mail
from django.db import IntegrityError, connection, transaction
from django.db.models import Max
from django.template.loader import render_to_string
from django.urls import reverse
from django.utils import timezone
from django.utils.encoding import force_bytes
from django.utils.http import urlsafe_base64_decode, urlsafe_base64_encode
from django.utils.translation import gettext as _

from bingo.common import bounds
from bingo.common.clock import hall_today
from bingo.common.money import money_display, quantum_for
from bingo.common.roles import Role
from bingo.models import Player, PrizePayment, Refund, Sale, WalletEntry
from bingo.players.selectors import player_age, player_email_taken, wallet_balance
from bingo.protection import services as protection_services
from halls.models import CashDesk, Hall
from halls.selectors import staff_has_role

#: The largest deposit or withdrawal a cashier may key in (bingo.common.bounds).
MAX_MOVEMENT = bounds.AMOUNT_MAX

#: A desk movement's key is stored under this prefix, apart from the keys the system writes
#: (``refund-<pk>``, ``prize-payment-<pk>``) and online purchases' (``online:...``): a client's
#: key can never take the place of a refund or prize that is still to be credited.
DESK_KEY_PREFIX = "desk:"
#: The longest key a client may send for a desk movement (the ledger's key holds 80 characters).
DESK_KEY_MAX = 80 - len(DESK_KEY_PREFIX)


class WalletKeyConflictError(ValidationError):
    """The key was already used for another movement of the wallet; nothing was written."""


def desk_key(key: str) -> str:
    """The ledger's key for a deposit or withdrawal keyed ``key`` by the desk's client."""
    return DESK_KEY_PREFIX + key.strip()


def wallet_post(
    *,
    player: Player,
    kind: str,
    amount: Decimal,
    key: str = "",
    sale: Sale | None = None,
    prize_payment: PrizePayment | None = None,
    refund: Refund | None = None,
    recorded_by: User | None = None,
    reference: str = "",
    cash_desk: CashDesk | None = None,
) -> WalletEntry:
    """Write one movement of ``player``'s wallet: ``amount`` is positive, added for a deposit,
    prize or refund, taken for a withdrawal or purchase. Refused, changing nothing, when it would
    take the balance below zero. With ``key``, a retried request returns the entry it wrote the
    first time and writes nothing; the same key for another movement (another kind, amount,
    sale, prize payment, refund or document) is refused with ``WalletKeyConflictError``, writing
    nothing, rather than passed off as done.

    Runs in the caller's transaction (a purchase writes its sale and its entry together) and
    locks the player's row until that commits.
    """
    if not isinstance(amount, Decimal) or not amount.is_finite() or amount <= 0:
        raise ValidationError(_("The amount must be more than zero."))
    if kind not in WalletEntry.Kind.values:
        raise ValidationError(_("Unknown kind of wallet movement."))
    signed = amount if kind in WalletEntry.CREDITS else -amount
    with transaction.atomic():
        # The wallets come last in the lock order (docs/architecture.md), FOR NO KEY UPDATE.
        Player.objects.select_for_update(no_key=True).filter(pk=player.pk).values_list("pk").get()
        if key and (done := WalletEntry.objects.filter(player=player, key=key).first()) is not None:
            if (
                done.kind != kind
                or done.amount != signed
                or done.sale_id != (sale.pk if sale else None)
                or done.prize_payment_id != (prize_payment.pk if prize_payment else None)
                or done.refund_id != (refund.pk if refund else None)
                or done.reference != reference
                or done.cash_desk_id != (cash_desk.pk if cash_desk else None)
            ):
                raise WalletKeyConflictError(
                    {"key": [_("This idempotency key was used for another movement.")]}
                )
            return done
        last = (
            WalletEntry.objects.filter(player=player)
            .order_by("-seq")
            .values_list("seq", "balance_after")
            .first()
        )
        seq, balance = last if last is not None else (0, Decimal("0.00"))
        after = balance + signed
        if after < 0:
            raise ValidationError(
                _("The wallet holds %(balance)s; %(amount)s cannot be taken from it.")
                % {"balance": balance, "amount": amount}
            )
        if after > bounds.BALANCE_MAX:  # what the ledger's column holds: refused here, not by it
            raise ValidationError(
                {
                    "amount": _("The wallet holds %(balance)s and can hold at most %(max)s.")
                    % {"balance": balance, "max": bounds.BALANCE_MAX}
                }
            )
        return WalletEntry.objects.create(
            player=player,
            seq=seq + 1,
            kind=kind,
            amount=signed,
            balance_after=after,
            sale=sale,
            prize_payment=prize_payment,
            refund=refund,
            recorded_by=recorded_by,
            reference=reference,
            cash_desk=cash_desk,
            key=key,
        )


# --- a purchase's debit --------------------------------------------------------------------------


def wallet_lock(*, player: Player) -> None:
    """Lock ``player``'s row, the wallet's lock, until the transaction ends. An online purchase
    takes it once, first, and judges and writes its debit under it, before its cards (the lock
    order, docs/architecture.md: the wallets, then the series on sale)."""
    if connection.vendor == "postgresql":
        with connection.cursor() as cursor:
            cursor.execute("SELECT 1 FROM bingo_player WHERE user_id = %s FOR NO KEY UPDATE", [player.pk])
    # SQLite (development) writes one transaction at a time already (IMMEDIATE).


# PostgreSQL: the purchase's debit in one statement, the next entry of the wallet's chain, taken
# only where the balance covers it, the key is new and every guard holds (the guards name
# %(player)s, %(now)s and their own parameters). The sale it pays for is written after it, in
# the same transaction, with the key reserved here from the sales' sequence: the foreign key is
# checked at commit, and the ledger's CHECK wants a purchase to name its sale.
_PURCHASE_DEBIT = """
WITH last AS (
    SELECT seq, balance_after FROM bingo_walletentry
     WHERE player_id = %(player)s ORDER BY seq DESC LIMIT 1
)
INSERT INTO bingo_walletentry (player_id, seq, kind, amount, balance_after, sale_id, prize_payment_id,
                               refund_id, recorded_by_id, reference, key, created_at)
SELECT %(player)s, COALESCE(last.seq, 0) + 1, 'purchase', -%(amount)s,
       COALESCE(last.balance_after, 0) - %(amount)s, nextval(pg_get_serial_sequence('bingo_sale', 'id')),
       NULL, NULL, NULL, '', %(key)s::varchar, %(created)s
  FROM (SELECT 1) AS one LEFT JOIN last ON TRUE
 WHERE COALESCE(last.balance_after, 0) >= %(amount)s
   AND NOT EXISTS (SELECT 1 FROM bingo_walletentry WHERE player_id = %(player)s AND key = %(key)s::varchar)
   {guards}
RETURNING id, seq, balance_after, sale_id, created_at
"""


def wallet_purchase_debit(
    *,
    player: Player,
    amount: Decimal,
    key: str,
    now: datetime,
    guards: Sequence[str] = (),
    params: Mapping[str, object] | None = None,
) -> WalletEntry | None:
    """Take ``amount`` from ``player``'s wallet for a purchase keyed ``key``: its entry, naming
    the sale (``sale_id``, a key reserved for it) the caller writes next in the same transaction.
    The caller holds the wallet's lock (``wallet_lock``) and has judged the purchase, or passes
    the ``guards`` under which nothing is left to judge: SQL conditions on PostgreSQL, with
    ``params`` and ``%(player)s`` and ``%(now)s`` (``now``: when the purchase is judged).

    None, writing nothing, when the balance is short, the key was used, or a guard fails; the
    caller then judges the purchase and says why (on SQLite, any guard: it is PostgreSQL's)."""
    if connection.vendor != "postgresql":
        return None if guards else _purchase_debit_orm(player, amount, key)
    values = {
        **(params or {}),
        "player": player.pk,
        "amount": amount,
        "key": key,
        "now": now,
        "created": timezone.now(),
    }
    with connection.cursor() as cursor:
        cursor.execute(_PURCHASE_DEBIT.format(guards="".join(f" AND ({g})" for g in guards)), values)
        row = cursor.fetchone()
    if row is None:
        return None
    entry_id, seq, balance_after, sale_id, created_at = row
    entry = WalletEntry(
        id=entry_id,
        player=player,
        seq=seq,
        kind=WalletEntry.Kind.PURCHASE,
        amount=-amount,
        balance_after=balance_after,
        sale_id=sale_id,
        key=key,
        created_at=created_at,
    )
    entry._state.adding = False
    entry._state.db = connection.alias
    return entry


def _purchase_debit_orm(player: Player, amount: Decimal, key: str) -> WalletEntry | None:
    """``wallet_purchase_debit`` on SQLite, which writes one transaction at a time: the next key
    of the sales is free until this one commits."""
    if WalletEntry.objects.filter(player=player, key=key).exists():
        return None
    last = (
        WalletEntry.objects.filter(player=player).order_by("-seq").values_list("seq", "balance_after").first()
    )
    seq, balance = last if last is not None else (0, Decimal("0.00"))
    if balance < amount:
        return None
    sale_id = (Sale.objects.aggregate(top=Max("pk"))["top"] or 0) + 1
    return WalletEntry.objects.create(
        player=player,
        seq=seq + 1,
        kind=WalletEntry.Kind.PURCHASE,
        amount=-amount,
        balance_after=balance - amount,
        sale_id=sale_id,
        key=key,
    )


# --- registration -------------------------------------------------------------------------------


def _lock_email(email: str) -> None:
    """Queue the registrations of one e-mail address one after another until this transaction
    ends, so that two at once cannot both find it free (see ``player_register``)."""
    if connection.vendor == "postgresql":
        with connection.cursor() as cursor:
            cursor.execute("SELECT pg_advisory_xact_lock(hashtext(%s))", [f"player-email:{email.lower()}"])
    # SQLite (development) writes one transaction at a time already.


def player_register(
    *,
    username: str,
    email: str,
    first_name: str,
    last_name: str,
    password: str,
    birth_date: date,
    adult_confirmed: bool,
    hall: Hall,
    now: datetime | None = None,
) -> Player:
    """Register an online player with ``hall`` (the operator): their user, the player role and
    their ``Player`` row, in one transaction. Refused, creating nothing, with a ValidationError
    naming the fields: a username or e-mail already registered (e-mails compared without regard
    to case), a password Django's validators refuse, a player under ``settings.PLAYER_MIN_AGE``
    on the hall's date, or no explicit confirmation of being of age.

    The e-mail is unique among players. The database cannot index it for players alone (the
    address is on Django's ``auth_user``, which staff share, and a hall may give several staff
    accounts one address), so the check runs under a lock on the address that a concurrent
    registration of the same address waits for (PostgreSQL's transaction advisory lock), and
    the username's uniqueness is the database's own constraint.
    """
    now = now or timezone.now()
    username = username.strip()
    email = email.strip()
    errors: dict[str, list[str]] = {}
    if not username:
        errors.setdefault("username", []).append(_("Choose a username."))
    if not email:
        errors.setdefault("email", []).append(_("Give your e-mail address."))
    if not first_name.strip() or not last_name.strip():
        errors.setdefault("first_name", []).append(_("Give your name and surname."))
    if not adult_confirmed:
        errors.setdefault("adult_confirmed", []).append(
            _("Confirm that you are %(age)d or older.") % {"age": settings.PLAYER_MIN_AGE}
        )
    today = hall_today(hall, now)
    if birth_date > today:
        errors.setdefault("birth_date", []).append(_("The date of birth is in the future."))
    elif player_age(birth_date=birth_date, today=today) < settings.PLAYER_MIN_AGE:
        errors.setdefault("birth_date", []).append(
            _("Only people aged %(age)d or older may play.") % {"age": settings.PLAYER_MIN_AGE}
        )
    candidate = User(
        username=username, email=email, first_name=first_name.strip(), last_name=last_name.strip()
    )
    try:
        validate_password(password, user=candidate)
    except ValidationError as exc:
        errors.setdefault("password", []).extend(exc.messages)
    if errors:
        raise ValidationError(errors)
    taken_name = ValidationError({"username": [_("This username is taken; choose another.")]})
    with transaction.atomic():
        _lock_email(email)
        if player_email_taken(email=email):
            raise ValidationError({"email": [_("A player is already registered with this e-mail address.")]})
        if User.objects.filter(username__iexact=username).exists():
            raise taken_name
        candidate.set_password(password)
        try:
            with transaction.atomic():
                candidate.save()
        except IntegrityError:  # the same username registered at the same moment
            raise taken_name from None
        group, _created = Group.objects.get_or_create(name=Role.PLAYER.value)
        candidate.groups.add(group)
        player = Player.objects.create(
            user=candidate, hall=hall, birth_date=birth_date, adult_confirmed_at=now
        )
        player_email_verification_send(player=player)  # sent once the registration commits
        return player


# --- the e-mail's verification (no deposit before it) ----------------------------------------


class EmailVerificationTokens(PasswordResetTokenGenerator):
    """The tokens of the verification link, made as Django makes a password reset's: signed,
    valid ``settings.PASSWORD_RESET_TIMEOUT``, and void once the address is verified or changed."""

    key_salt = "bingo.players.EmailVerificationTokens"

    def _make_hash_value(self, user: AbstractBaseUser, timestamp: int) -> str:
        player = Player.objects.filter(user_id=user.pk).values_list("email_verified_at", flat=True).first()
        return f"{user.pk}{getattr(user, 'email', '')}{player}{timestamp}"


email_verification_tokens = EmailVerificationTokens()


def player_email_verification_link(*, player: Player) -> str:
    """The link that verifies ``player``'s e-mail address, on ``settings.BINGO_PUBLIC_URL``."""
    uid = urlsafe_base64_encode(force_bytes(player.user.pk))
    token = email_verification_tokens.make_token(player.user)
    path = reverse("players:email_verify", kwargs={"uidb64": uid, "token": token})
    return f"{settings.BINGO_PUBLIC_URL}{path}"


def player_email_verification_send(*, player: Player) -> None:
    """Mail ``player`` the link that verifies their e-mail address (in the language active now),
    once the transaction commits. Refused (ValidationError) when it is verified already."""
    if Player.objects.filter(pk=player.pk, email_verified_at__isnull=False).exists():
        raise ValidationError(_("Your e-mail address is verified already."))
    context = {
        "player": player,
        "link": player_email_verification_link(player=player),
        "hours": max(settings.PASSWORD_RESET_TIMEOUT // 3600, 1),
        "hall": player.hall.name,
    }
    subject = "".join(render_to_string("players/email_verification_subject.txt", context).splitlines())
    body = render_to_string("players/email_verification_email.txt", context)
    address = player.user.email
    transaction.on_commit(lambda: send_mail(subject, body, None, [address]))


def player_email_verify(*, uidb64: str, token: str, now: datetime | None = None) -> Player:
    """Verify the e-mail address of the player the link ``uidb64``/``token`` was made for, now.
    Opening it again once verified answers the player unchanged; a link altered, expired or made
    for another address is refused (ValidationError), changing nothing."""
    refused = ValidationError(
        _("This verification link does not work: it expired or was copied incompletely. Ask for a new one.")
    )
    try:
        user_id = int(urlsafe_base64_decode(uidb64).decode())
        player = Player.objects.select_related("user", "hall").get(pk=user_id)
    except (ValueError, TypeError, OverflowError, Player.DoesNotExist):
        raise refused from None
    if player.email_verified_at is not None:
        return player
    if not email_verification_tokens.check_token(player.user, token):
        raise refused
    now = now or timezone.now()
    Player.objects.filter(pk=player.pk, email_verified_at__isnull=True).update(email_verified_at=now)
    player.refresh_from_db(fields=["email_verified_at"])
    return player


def player_email_mark_verified(*, player: Player, now: datetime | None = None) -> None:
    """Take ``player``'s e-mail address as verified without a link: only for the demo's accounts
    (bingo/demohall, ``demo_setup``), whose made-up addresses have no mailbox. Once verified,
    it stays so."""
    Player.objects.filter(pk=player.pk, email_verified_at__isnull=True).update(
        email_verified_at=now or timezone.now()
    )


# --- deposits and withdrawals at the desk ------------------------------------------------------


def _cash_movement(
    *,
    kind: str,
    player: Player,
    amount: Decimal,
    staff: User,
    reference: str,
    key: str,
    cash_desk: CashDesk | None = None,
    now: datetime | None = None,
) -> WalletEntry:
    hall = player.hall
    if not any(
        staff_has_role(user=staff, hall_id=player.hall_id, role=r) for r in (Role.CASHIER, Role.MANAGER)
    ):
        raise PermissionDenied(_("Only a cashier or a manager of the player's hall records this."))
    reference = reference.strip()
    key = key.strip()
    errors: dict[str, list[str]] = {}
    if not reference:
        errors["reference"] = [_("Write down the identity document you checked.")]
    if not key:
        errors["key"] = [_("The request has no idempotency key.")]
    elif len(key) > DESK_KEY_MAX:
        errors["key"] = [_("The idempotency key is too long.")]
    if not isinstance(amount, Decimal) or not amount.is_finite() or amount <= 0:
        errors["amount"] = [_("The amount must be more than zero.")]
    elif amount > MAX_MOVEMENT:
        errors["amount"] = [_("The amount is at most %(max)s.") % {"max": MAX_MOVEMENT}]
    elif amount % quantum_for(hall.currency):
        errors["amount"] = [
            _("Amounts in %(currency)s are in steps of %(step)s.")
            % {"currency": hall.currency, "step": quantum_for(hall.currency)}
        ]
    if cash_desk is not None and cash_desk.hall_id != player.hall_id:
        errors["cash_desk"] = [_("This cash desk belongs to another hall.")]
    if errors:
        raise ValidationError(errors)
    with transaction.atomic():
        if kind == WalletEntry.Kind.DEPOSIT:
            # R101: exclusion and deposit limits, under the lock; then the e-mail verified.
            protection_services.deposit_check(player=player, amount=amount, key=desk_key(key), now=now)
            _email_verified_check(player, desk_key(key))
        try:
            return wallet_post(
                player=player,
                kind=kind,
                amount=amount,
                key=desk_key(key),
                recorded_by=staff,
                reference=reference,
                cash_desk=cash_desk,
            )
        except WalletKeyConflictError:
            raise  # the key names another movement: say so, whatever the balance
        except ValidationError as exc:
            if kind == WalletEntry.Kind.WITHDRAWAL:
                balance = wallet_balance(player=player)
                raise ValidationError(
                    {
                        "amount": [
                            _(
                                "The wallet holds %(balance)s: %(amount)s cannot be withdrawn. "
                                "Nothing was changed."
                            )
                            % {
                                "balance": money_display(balance, hall.currency),
                                "amount": money_display(amount, hall.currency),
                            }
                        ]
                    }
                ) from exc
            raise


def _email_verified_check(player: Player, key: str) -> None:
    """No deposit before the player verified their e-mail address (issue 25): refused on
    ``amount`` with what the desk tells them. A retry of a deposit written under ``key`` passes."""
    if Player.objects.filter(pk=player.pk, email_verified_at__isnull=False).exists():
        return
    if WalletEntry.objects.filter(player=player, key=key).exists():
        return  # wallet_post answers the retry with the first entry
    raise ValidationError(
        {
            "amount": [
                _(
                    "This player has not verified their e-mail address yet: no deposit is accepted "
                    "until they open the link sent to %(email)s (they can have it sent again from "
                    "their page). Nothing was deposited."
                )
                % {"email": player.user.email}
            ]
        }
    )


def wallet_deposit(
    *,
    player: Player,
    amount: Decimal,
    staff: User,
    reference: str,
    key: str,
    cash_desk: CashDesk | None = None,
    now: datetime | None = None,
) -> WalletEntry:
    """Money handed in at the desk put into ``player``'s wallet by ``staff``, a cashier or manager
    of the player's hall (PermissionDenied for anyone else), after checking the identity
    document ``reference`` (required). ``key`` makes a repeated request (a form sent twice)
    count once: it returns the entry written the first time; the same key for another movement
    is refused (``WalletKeyConflictError``). The ledger stores it as ``desk_key(key)``, so it never
    meets a key the system writes (``refund-57`` from a client is not Refund 57's). ``cash_desk``,
    a desk of the player's hall, is the drawer the cash went into: its close-out counts it
    (bingo/drawers/).

    R101: refused, changing nothing, while an exclusion or a break bars the player or when it
    would pass a deposit limit of theirs (``bingo.protection.services.deposit_check``, judged at
    ``now``); and before the player verified their e-mail address (``player_email_verify``)."""
    return _cash_movement(
        kind=WalletEntry.Kind.DEPOSIT,
        player=player,
        amount=amount,
        staff=staff,
        reference=reference,
        key=key,
        cash_desk=cash_desk,
        now=now,
    )


def wallet_withdraw(
    *,
    player: Player,
    amount: Decimal,
    staff: User,
    reference: str,
    key: str,
    cash_desk: CashDesk | None = None,
) -> WalletEntry:
    """Money taken out of ``player``'s wallet and paid at the desk (out of ``cash_desk``'s drawer),
    as ``wallet_deposit``. More than the balance is refused with a ValidationError on ``amount``
    and changes nothing."""
    return _cash_movement(
        kind=WalletEntry.Kind.WITHDRAWAL,
        player=player,
        amount=amount,
        staff=staff,
        reference=reference,
        key=key,
        cash_desk=cash_desk,
    )
