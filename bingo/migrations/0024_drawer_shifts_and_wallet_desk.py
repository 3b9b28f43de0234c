"""The drawer's close-out (bingo/drawers/): the drawer shifts of each cash desk, and the desk a
wallet's deposit or withdrawal went through.

PostgreSQL-only triggers: a drawer is opened now and open (never backdated, never born closed);
an open drawer may be closed once, now (its close columns written, its
opening untouched); a closed one is never changed, and no drawer is deleted or truncated. The app's
role may UPDATE the close columns only (bingo/common/db_roles.py ``CLOSED_ONCE``).
"""

import django.db.models.deletion
import django.db.models.expressions
import django.db.models.functions.math
from decimal import Decimal
from django.conf import settings
from django.db import migrations, models


TRIGGERS = [
    # A drawer is opened now, open (never born closed, nor backdated to cover sales another
    # drawer counted); it is closed once, now, its opening untouched; then never changed; no
    # drawer is deleted. "Now" is the database's clock, give or take five minutes for the
    # application's.
    """
    CREATE FUNCTION bingo_drawershift_closed_once() RETURNS trigger LANGUAGE plpgsql AS $$
    BEGIN
        IF TG_OP = 'INSERT' THEN
            IF NEW.closed_at IS NULL AND NEW.closed_by_id IS NULL AND NEW.expected_cash IS NULL
               AND NEW.opened_at BETWEEN clock_timestamp() - interval '5 minutes'
                                     AND clock_timestamp() + interval '5 minutes' THEN
                RETURN NEW;
            END IF;
            RAISE EXCEPTION 'a drawer is opened now, open: never backdated nor born closed'
                USING ERRCODE = 'integrity_constraint_violation';
        END IF;
        IF TG_OP = 'UPDATE' THEN
            IF OLD.closed_at IS NULL AND NEW.id = OLD.id AND NEW.cash_desk_id = OLD.cash_desk_id
               AND NEW.opened_by_id = OLD.opened_by_id AND NEW.opened_at = OLD.opened_at
               AND NEW.opening_float = OLD.opening_float
               AND NEW.closed_at BETWEEN clock_timestamp() - interval '5 minutes'
                                     AND clock_timestamp() + interval '5 minutes' THEN
                RETURN NEW;
            END IF;
        END IF;
        RAISE EXCEPTION 'a drawer''s close-out is never deleted, nor changed once closed'
            USING ERRCODE = 'integrity_constraint_violation';
    END $$
    """,
    "CREATE TRIGGER bingo_drawershift_closed_once BEFORE INSERT OR UPDATE OR DELETE ON bingo_drawershift "
    "FOR EACH ROW EXECUTE FUNCTION bingo_drawershift_closed_once()",
    "CREATE TRIGGER bingo_drawershift_refuse_truncate BEFORE TRUNCATE ON bingo_drawershift "
    "FOR EACH STATEMENT EXECUTE FUNCTION bingo_drawershift_closed_once()",
]
UNDO_TRIGGERS = [
    "DROP TRIGGER bingo_drawershift_refuse_truncate ON bingo_drawershift",
    "DROP TRIGGER bingo_drawershift_closed_once ON bingo_drawershift",
    "DROP FUNCTION bingo_drawershift_closed_once()",
]


def _run(statements):
    def apply(apps, schema_editor):
        if schema_editor.connection.vendor == "postgresql":
            for sql in statements:
                schema_editor.execute(sql, None)

    return apply


class Migration(migrations.Migration):
    dependencies = [
        ("bingo", "0023_money_checks_rounded_to_the_cent"),
        ("halls", "0009_hall_operator_and_licence"),
        migrations.swappable_dependency(settings.AUTH_USER_MODEL),
    ]

    operations = [
        migrations.CreateModel(
            name="DrawerShift",
            fields=[
                (
                    "id",
                    models.BigAutoField(
                        auto_created=True, primary_key=True, serialize=False, verbose_name="ID"
                    ),
                ),
                ("opened_at", models.DateTimeField(verbose_name="opened at")),
                (
                    "opening_float",
                    models.DecimalField(decimal_places=2, max_digits=14, verbose_name="opening float"),
                ),
                ("closed_at", models.DateTimeField(blank=True, null=True, verbose_name="closed at")),
                ("note", models.CharField(blank=True, max_length=500, verbose_name="note")),
                (
                    "cash_received",
                    models.DecimalField(
                        blank=True, decimal_places=2, max_digits=16, null=True, verbose_name="cash received"
                    ),
                ),
                (
                    "change_given",
                    models.DecimalField(
                        blank=True, decimal_places=2, max_digits=16, null=True, verbose_name="change given"
                    ),
                ),
                (
                    "net_sales",
                    models.DecimalField(
                        blank=True, decimal_places=2, max_digits=16, null=True, verbose_name="net sales"
                    ),
                ),
                (
                    "prizes_gross",
                    models.DecimalField(
                        blank=True,
                        decimal_places=2,
                        max_digits=16,
                        null=True,
                        verbose_name="prizes paid (gross)",
                    ),
                ),
                (
                    "tax_withheld",
                    models.DecimalField(
                        blank=True, decimal_places=2, max_digits=16, null=True, verbose_name="tax withheld"
                    ),
                ),
                (
                    "prizes_net",
                    models.DecimalField(
                        blank=True,
                        decimal_places=2,
                        max_digits=16,
                        null=True,
                        verbose_name="prizes paid in cash",
                    ),
                ),
                (
                    "deposits",
                    models.DecimalField(
                        blank=True, decimal_places=2, max_digits=16, null=True, verbose_name="wallet deposits"
                    ),
                ),
                (
                    "withdrawals",
                    models.DecimalField(
                        blank=True,
                        decimal_places=2,
                        max_digits=16,
                        null=True,
                        verbose_name="wallet withdrawals",
                    ),
                ),
                (
                    "refunds",
                    models.DecimalField(
                        blank=True, decimal_places=2, max_digits=16, null=True, verbose_name="refunds paid"
                    ),
                ),
                (
                    "expected_cash",
                    models.DecimalField(
                        blank=True, decimal_places=2, max_digits=16, null=True, verbose_name="expected cash"
                    ),
                ),
                (
                    "counted_cash",
                    models.DecimalField(
                        blank=True, decimal_places=2, max_digits=16, null=True, verbose_name="counted cash"
                    ),
                ),
                (
                    "over_short",
                    models.DecimalField(
                        blank=True, decimal_places=2, max_digits=16, null=True, verbose_name="over/short"
                    ),
                ),
            ],
            options={
                "verbose_name": "drawer shift",
                "verbose_name_plural": "drawer shifts",
                "ordering": ("-opened_at", "-pk"),
            },
        ),
        migrations.AddField(
            model_name="walletentry",
            name="cash_desk",
            field=models.ForeignKey(
                blank=True,
                null=True,
                on_delete=django.db.models.deletion.PROTECT,
                related_name="wallet_entries",
                to="halls.cashdesk",
                verbose_name="cash desk",
            ),
        ),
        migrations.AddIndex(
            model_name="walletentry",
            index=models.Index(
                condition=models.Q(("cash_desk__isnull", False)),
                fields=["cash_desk", "created_at"],
                name="wallet_entry_desk_time",
            ),
        ),
        migrations.AddConstraint(
            model_name="walletentry",
            constraint=models.CheckConstraint(
                condition=models.Q(
                    ("cash_desk__isnull", True), ("kind__in", ["deposit", "withdrawal"]), _connector="OR"
                ),
                name="wallet_desk_only_for_cash_movements",
            ),
        ),
        migrations.AddField(
            model_name="drawershift",
            name="cash_desk",
            field=models.ForeignKey(
                on_delete=django.db.models.deletion.PROTECT,
                related_name="drawer_shifts",
                to="halls.cashdesk",
                verbose_name="cash desk",
            ),
        ),
        migrations.AddField(
            model_name="drawershift",
            name="closed_by",
            field=models.ForeignKey(
                blank=True,
                null=True,
                on_delete=django.db.models.deletion.PROTECT,
                related_name="+",
                to=settings.AUTH_USER_MODEL,
                verbose_name="closed by",
            ),
        ),
        migrations.AddField(
            model_name="drawershift",
            name="opened_by",
            field=models.ForeignKey(
                on_delete=django.db.models.deletion.PROTECT,
                related_name="+",
                to=settings.AUTH_USER_MODEL,
                verbose_name="opened by",
            ),
        ),
        migrations.AddIndex(
            model_name="drawershift",
            index=models.Index(fields=["cash_desk", "opened_at"], name="bingo_drawe_cash_de_0266d4_idx"),
        ),
        migrations.AddConstraint(
            model_name="drawershift",
            constraint=models.UniqueConstraint(
                condition=models.Q(("closed_at__isnull", True)),
                fields=("cash_desk",),
                name="drawer_one_open_per_desk",
            ),
        ),
        migrations.AddConstraint(
            model_name="drawershift",
            constraint=models.CheckConstraint(
                condition=models.Q(
                    ("opening_float__gte", 0), ("opening_float__lte", Decimal("1000000000.00"))
                ),
                name="drawer_float_in_bounds",
            ),
        ),
        migrations.AddConstraint(
            model_name="drawershift",
            constraint=models.CheckConstraint(
                condition=models.Q(
                    models.Q(
                        ("closed_at__isnull", True),
                        ("closed_by__isnull", True),
                        ("note", ""),
                        ("cash_received__isnull", True),
                        ("change_given__isnull", True),
                        ("counted_cash__isnull", True),
                        ("deposits__isnull", True),
                        ("expected_cash__isnull", True),
                        ("net_sales__isnull", True),
                        ("over_short__isnull", True),
                        ("prizes_gross__isnull", True),
                        ("prizes_net__isnull", True),
                        ("refunds__isnull", True),
                        ("tax_withheld__isnull", True),
                        ("withdrawals__isnull", True),
                    ),
                    models.Q(
                        ("cash_received__gte", 0),
                        ("cash_received__isnull", False),
                        ("change_given__gte", 0),
                        ("change_given__isnull", False),
                        ("closed_at__gte", models.F("opened_at")),
                        ("closed_by__isnull", False),
                        ("counted_cash__gte", 0),
                        ("counted_cash__isnull", False),
                        ("counted_cash__lte", Decimal("1000000000.00")),
                        ("deposits__gte", 0),
                        ("deposits__isnull", False),
                        ("expected_cash__isnull", False),
                        ("net_sales__isnull", False),
                        ("over_short__isnull", False),
                        ("prizes_gross__gte", 0),
                        ("prizes_gross__isnull", False),
                        ("prizes_net__isnull", False),
                        ("refunds__gte", 0),
                        ("refunds__isnull", False),
                        ("tax_withheld__gte", 0),
                        ("tax_withheld__isnull", False),
                        ("withdrawals__gte", 0),
                        ("withdrawals__isnull", False),
                    ),
                    _connector="OR",
                ),
                name="drawer_open_or_closed_whole",
            ),
        ),
        migrations.AddConstraint(
            model_name="drawershift",
            constraint=models.CheckConstraint(
                condition=models.Q(
                    ("closed_at__isnull", True),
                    models.Q(
                        (
                            "expected_cash",
                            django.db.models.functions.math.Round(
                                django.db.models.expressions.CombinedExpression(
                                    django.db.models.expressions.CombinedExpression(
                                        django.db.models.expressions.CombinedExpression(
                                            django.db.models.expressions.CombinedExpression(
                                                django.db.models.expressions.CombinedExpression(
                                                    models.F("opening_float"), "+", models.F("net_sales")
                                                ),
                                                "-",
                                                models.F("prizes_net"),
                                            ),
                                            "+",
                                            models.F("deposits"),
                                        ),
                                        "-",
                                        models.F("withdrawals"),
                                    ),
                                    "-",
                                    models.F("refunds"),
                                ),
                                2,
                            ),
                        ),
                        (
                            "net_sales",
                            django.db.models.functions.math.Round(
                                django.db.models.expressions.CombinedExpression(
                                    models.F("cash_received"), "-", models.F("change_given")
                                ),
                                2,
                            ),
                        ),
                        (
                            "over_short",
                            django.db.models.functions.math.Round(
                                django.db.models.expressions.CombinedExpression(
                                    models.F("counted_cash"), "-", models.F("expected_cash")
                                ),
                                2,
                            ),
                        ),
                        (
                            "prizes_net",
                            django.db.models.functions.math.Round(
                                django.db.models.expressions.CombinedExpression(
                                    models.F("prizes_gross"), "-", models.F("tax_withheld")
                                ),
                                2,
                            ),
                        ),
                    ),
                    _connector="OR",
                ),
                name="drawer_figures_add_up",
            ),
        ),
        migrations.RunPython(_run(TRIGGERS), _run(UNDO_TRIGGERS)),
    ]
