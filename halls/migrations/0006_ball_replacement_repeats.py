"""A ball replaced again in the same session is flagged and says why (R26; issue [A0] 7).

On PostgreSQL a trigger holds what the service does under the ball set's lock: a replacement of
a ball already replaced in the session names the latest of those as ``repeat_of``, and one that
is not a repeat names none.
"""

import django.db.models.deletion
from django.conf import settings
from django.db import migrations, models


FORWARD = [
    """
    CREATE FUNCTION halls_ballreplacement_repeat() RETURNS trigger LANGUAGE plpgsql AS $$
    DECLARE
        latest bigint;
    BEGIN
        IF NEW.ball_number IS NOT NULL AND NEW.session_id IS NOT NULL THEN
            SELECT id INTO latest FROM halls_ballreplacement
                WHERE ball_set_id = NEW.ball_set_id AND ball_number = NEW.ball_number
                  AND session_id = NEW.session_id
                ORDER BY id DESC LIMIT 1;
        END IF;
        IF NEW.repeat_of_id IS DISTINCT FROM latest THEN
            RAISE EXCEPTION 'a ball replaced again in a session names its last replacement there (R26)'
                USING ERRCODE = 'integrity_constraint_violation';
        END IF;
        RETURN NEW;
    END $$
    """,
    "CREATE TRIGGER halls_ballreplacement_repeat BEFORE INSERT ON halls_ballreplacement "
    "FOR EACH ROW EXECUTE FUNCTION halls_ballreplacement_repeat()",
]

BACKWARD = [
    "DROP TRIGGER halls_ballreplacement_repeat ON halls_ballreplacement",
    "DROP FUNCTION halls_ballreplacement_repeat()",
]


def _run(statements):
    def apply(apps, schema_editor):
        if schema_editor.connection.vendor == "postgresql":
            for sql in statements:
                schema_editor.execute(sql, params=None)

    return apply


class Migration(migrations.Migration):
    dependencies = [
        ("bingo", "0008_sale_refuses_retired_series_postgres"),
        ("halls", "0005_jackpot_reversal_of_annulled_games"),
        migrations.swappable_dependency(settings.AUTH_USER_MODEL),
    ]

    operations = [
        migrations.AddField(
            model_name="ballreplacement",
            name="repeat_of",
            field=models.ForeignKey(
                blank=True,
                null=True,
                on_delete=django.db.models.deletion.PROTECT,
                related_name="repeats",
                to="halls.ballreplacement",
                verbose_name="repeats",
            ),
        ),
        migrations.AddField(
            model_name="ballreplacement",
            name="repeat_reason",
            field=models.TextField(blank=True, default="", verbose_name="why again"),
        ),
        migrations.AddConstraint(
            model_name="ballreplacement",
            constraint=models.CheckConstraint(
                condition=models.Q(
                    models.Q(("repeat_of__isnull", True), ("repeat_reason", "")),
                    models.Q(
                        ("ball_number__isnull", False),
                        ("repeat_of__isnull", False),
                        ("session__isnull", False),
                        models.Q(("repeat_reason", ""), _negated=True),
                    ),
                    _connector="OR",
                ),
                name="ball_replacement_repeat_has_reason",
            ),
        ),
        migrations.RunPython(_run(FORWARD), _run(BACKWARD)),
    ]
