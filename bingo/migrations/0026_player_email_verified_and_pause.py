"""Issue 25 point 3, the self-service account: a player's e-mail verified before any deposit,
and the player's break («fazer uma pausa») as a kind of exclusion (R101).

PostgreSQL holds both again: a trigger refuses a deposit into the wallet of a player whose
e-mail is not verified (whatever wrote it), and a break lasts at most 30 days. Players
registered before this migration start unverified: they verify from their page before their
next deposit (docs/players.md).
"""

from django.conf import settings
from django.db import migrations, models

FORWARD = [
    """
    CREATE FUNCTION bingo_deposit_needs_verified_email() RETURNS trigger LANGUAGE plpgsql AS $$
    BEGIN
        IF NOT EXISTS (SELECT 1 FROM bingo_player
                        WHERE user_id = NEW.player_id AND email_verified_at IS NOT NULL) THEN
            RAISE EXCEPTION 'player %: no deposit before the e-mail address is verified', NEW.player_id
                USING ERRCODE = 'check_violation';
        END IF;
        RETURN NEW;
    END $$
    """,
    """
    CREATE TRIGGER bingo_walletentry_deposit_verified BEFORE INSERT ON bingo_walletentry
        FOR EACH ROW WHEN (NEW.kind = 'deposit') EXECUTE FUNCTION bingo_deposit_needs_verified_email()
    """,
    """
    ALTER TABLE bingo_playerexclusion ADD CONSTRAINT player_exclusion_pause_at_most_30_days
        CHECK (kind <> 'pause' OR ends_at <= starts_at + interval '30 days')
    """,
]
BACKWARD = [
    "ALTER TABLE bingo_playerexclusion DROP CONSTRAINT player_exclusion_pause_at_most_30_days",
    "DROP TRIGGER bingo_walletentry_deposit_verified ON bingo_walletentry",
    "DROP FUNCTION bingo_deposit_needs_verified_email()",
]


def _run(statements):
    def apply(apps, schema_editor):
        if schema_editor.connection.vendor == "postgresql":
            for sql in statements:
                schema_editor.execute(sql, None)

    return apply


class Migration(migrations.Migration):
    dependencies = [
        ("bingo", "0025_online_room_strips_and_sales_after_first"),
        migrations.swappable_dependency(settings.AUTH_USER_MODEL),
    ]

    operations = [
        migrations.AddField(
            model_name="player",
            name="email_verified_at",
            field=models.DateTimeField(blank=True, null=True, verbose_name="e-mail verified at"),
        ),
        migrations.AddField(
            model_name="playerexclusion",
            name="kind",
            field=models.CharField(
                choices=[("exclusion", "Exclusion"), ("pause", "Break")],
                default="exclusion",
                max_length=9,
                verbose_name="kind",
            ),
        ),
        migrations.AddConstraint(
            model_name="playerexclusion",
            constraint=models.CheckConstraint(
                condition=models.Q(("kind__in", ["exclusion", "pause"])), name="player_exclusion_kind_known"
            ),
        ),
        migrations.AddConstraint(
            model_name="playerexclusion",
            constraint=models.CheckConstraint(
                condition=models.Q(
                    ("kind", "exclusion"),
                    models.Q(("ends_at__isnull", False), ("source", "self")),
                    _connector="OR",
                ),
                name="player_exclusion_pause_is_own_and_ends",
            ),
        ),
        migrations.RunPython(_run(FORWARD), _run(BACKWARD)),
    ]
