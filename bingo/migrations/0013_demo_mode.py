"""Demo mode (R102, PT-803/44): the practice games and their demo credits, a ledger apart from
the wallet. On PostgreSQL the demo ledger is chained and insert-only like the wallet's (0011)."""

import django.db.models.deletion
from django.db import migrations, models

FORWARD = [
    """
    CREATE FUNCTION bingo_demo_credit_chain() RETURNS trigger LANGUAGE plpgsql AS $$
    DECLARE
        last_seq integer;
        last_balance integer;
    BEGIN
        SELECT seq, balance_after INTO last_seq, last_balance
          FROM bingo_democreditentry WHERE player_id = NEW.player_id
         ORDER BY seq DESC LIMIT 1;
        IF NEW.seq <> COALESCE(last_seq, 0) + 1 THEN
            RAISE EXCEPTION 'demo credit entry % of player % does not follow entry %',
                NEW.seq, NEW.player_id, COALESCE(last_seq, 0)
                USING ERRCODE = 'integrity_constraint_violation';
        END IF;
        IF NEW.balance_after <> COALESCE(last_balance, 0) + NEW.credits THEN
            RAISE EXCEPTION 'demo credit entry % of player %: balance % is not % plus %',
                NEW.seq, NEW.player_id, NEW.balance_after, COALESCE(last_balance, 0), NEW.credits
                USING ERRCODE = 'integrity_constraint_violation';
        END IF;
        RETURN NEW;
    END $$
    """,
    "CREATE TRIGGER bingo_democreditentry_chain BEFORE INSERT ON bingo_democreditentry "
    "FOR EACH ROW EXECUTE FUNCTION bingo_demo_credit_chain()",
    # The draw's records' function (0005) refuses any change: the demo ledger is insert-only too.
    "CREATE TRIGGER bingo_democreditentry_insert_only BEFORE UPDATE OR DELETE ON bingo_democreditentry "
    "FOR EACH ROW EXECUTE FUNCTION bingo_draw_insert_only()",
]
BACKWARD = [
    "DROP TRIGGER bingo_democreditentry_insert_only ON bingo_democreditentry",
    "DROP TRIGGER bingo_democreditentry_chain ON bingo_democreditentry",
    "DROP FUNCTION bingo_demo_credit_chain()",
]


def _run(statements):
    def apply(apps, schema_editor):
        if schema_editor.connection.vendor == "postgresql":
            for sql in statements:
                schema_editor.execute(sql, None)

    return apply


class Migration(migrations.Migration):
    dependencies = [("bingo", "0012_online_system_user")]

    operations = [
        migrations.CreateModel(
            name="DemoGame",
            fields=[
                (
                    "id",
                    models.BigAutoField(
                        auto_created=True, primary_key=True, serialize=False, verbose_name="ID"
                    ),
                ),
                (
                    "variant",
                    models.CharField(
                        choices=[
                            ("90", "90 balls"),
                            ("80", "80 balls"),
                            ("75", "75 balls"),
                            ("30", "30 balls"),
                        ],
                        max_length=2,
                        verbose_name="variant",
                    ),
                ),
                ("prize_plan", models.JSONField(verbose_name="prize plan")),
                (
                    "ball_interval",
                    models.DecimalField(
                        decimal_places=2, max_digits=5, verbose_name="seconds between balls (R88)"
                    ),
                ),
                ("card_price", models.PositiveIntegerField(verbose_name="demo credits a card")),
                ("cards", models.JSONField(verbose_name="cards")),
                ("cards_mine", models.PositiveSmallIntegerField(verbose_name="the player's cards")),
                ("balls", models.JSONField(verbose_name="balls")),
                ("results", models.JSONField(verbose_name="prizes")),
                ("winnings", models.PositiveIntegerField(verbose_name="demo credits won")),
                ("started_at", models.DateTimeField(verbose_name="started at")),
                ("key", models.CharField(max_length=80)),
                (
                    "settled_at",
                    models.DateTimeField(blank=True, null=True, verbose_name="winnings credited at"),
                ),
                (
                    "online_room",
                    models.ForeignKey(
                        on_delete=django.db.models.deletion.PROTECT,
                        related_name="demo_games",
                        to="bingo.onlineroom",
                        verbose_name="room mirrored",
                    ),
                ),
                (
                    "player",
                    models.ForeignKey(
                        on_delete=django.db.models.deletion.PROTECT,
                        related_name="demo_games",
                        to="bingo.player",
                    ),
                ),
            ],
            options={
                "verbose_name": "demo game",
                "verbose_name_plural": "demo games",
            },
        ),
        migrations.CreateModel(
            name="DemoCreditEntry",
            fields=[
                (
                    "id",
                    models.BigAutoField(
                        auto_created=True, primary_key=True, serialize=False, verbose_name="ID"
                    ),
                ),
                ("seq", models.PositiveIntegerField(verbose_name="entry")),
                (
                    "kind",
                    models.CharField(
                        choices=[("grant", "Free credits"), ("stake", "Demo cards"), ("win", "Demo prize")],
                        max_length=8,
                        verbose_name="kind",
                    ),
                ),
                ("credits", models.IntegerField(verbose_name="demo credits")),
                ("balance_after", models.IntegerField(verbose_name="demo credits after")),
                ("key", models.CharField(max_length=80)),
                ("created_at", models.DateTimeField(verbose_name="at")),
                (
                    "player",
                    models.ForeignKey(
                        on_delete=django.db.models.deletion.PROTECT,
                        related_name="demo_credit_entries",
                        to="bingo.player",
                    ),
                ),
                (
                    "game",
                    models.ForeignKey(
                        blank=True,
                        null=True,
                        on_delete=django.db.models.deletion.PROTECT,
                        related_name="credit_entries",
                        to="bingo.demogame",
                    ),
                ),
            ],
            options={
                "verbose_name": "demo credit entry",
                "verbose_name_plural": "demo credit entries",
                "ordering": ("player", "seq"),
            },
        ),
        migrations.AddConstraint(
            model_name="demogame",
            constraint=models.UniqueConstraint(fields=("player", "key"), name="demo_game_key_unique"),
        ),
        migrations.AddConstraint(
            model_name="demogame",
            constraint=models.CheckConstraint(
                condition=models.Q(("ball_interval__gte", 1)), name="demo_game_ball_interval_r88"
            ),
        ),
        migrations.AddConstraint(
            model_name="demogame",
            constraint=models.CheckConstraint(
                condition=models.Q(("cards_mine__gte", 1)), name="demo_game_has_cards"
            ),
        ),
        migrations.AddConstraint(
            model_name="democreditentry",
            constraint=models.UniqueConstraint(fields=("player", "seq"), name="demo_credit_seq_unique"),
        ),
        migrations.AddConstraint(
            model_name="democreditentry",
            constraint=models.UniqueConstraint(fields=("player", "key"), name="demo_credit_key_unique"),
        ),
        migrations.AddConstraint(
            model_name="democreditentry",
            constraint=models.CheckConstraint(
                condition=models.Q(("seq__gte", 1)), name="demo_credit_seq_positive"
            ),
        ),
        migrations.AddConstraint(
            model_name="democreditentry",
            constraint=models.CheckConstraint(
                condition=models.Q(("balance_after__gte", 0)), name="demo_credit_never_negative"
            ),
        ),
        migrations.AddConstraint(
            model_name="democreditentry",
            constraint=models.CheckConstraint(
                condition=models.Q(
                    models.Q(("credits__gt", 0), ("kind__in", ["grant", "win"])),
                    models.Q(("credits__lt", 0), ("kind", "stake")),
                    _connector="OR",
                ),
                name="demo_credit_sign_of_kind",
            ),
        ),
        migrations.AddConstraint(
            model_name="democreditentry",
            constraint=models.CheckConstraint(
                condition=models.Q(("kind", "grant"), ("game__isnull", False), _connector="OR"),
                name="demo_credit_stake_win_has_game",
            ),
        ),
        migrations.RunPython(_run(FORWARD), _run(BACKWARD)),
    ]
