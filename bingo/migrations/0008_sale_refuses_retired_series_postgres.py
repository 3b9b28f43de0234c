"""PostgreSQL-only: no card of a retired series is ever sold.

Retiring a series stops its sale at once (cards/services.py ``series_retire``); the sale
services refuse it, and this trigger holds the rule for any other writer of the ledger.
"""

from django.db import migrations

FORWARD = [
    """
    CREATE FUNCTION bingo_sale_series_not_retired() RETURNS trigger LANGUAGE plpgsql AS $$
    BEGIN
        IF EXISTS (SELECT 1 FROM cards_series WHERE id = NEW.series_id AND status = 'retired') THEN
            RAISE EXCEPTION 'series % is retired: its cards are no longer sold', NEW.series_id
                USING ERRCODE = 'integrity_constraint_violation';
        END IF;
        RETURN NEW;
    END $$
    """,
    "CREATE TRIGGER sale_series_not_retired BEFORE INSERT ON bingo_sale "
    "FOR EACH ROW EXECUTE FUNCTION bingo_sale_series_not_retired()",
]
BACKWARD = [
    "DROP TRIGGER sale_series_not_retired ON bingo_sale",
    "DROP FUNCTION bingo_sale_series_not_retired()",
]


def _run(statements):
    def apply(apps, schema_editor):
        if schema_editor.connection.vendor == "postgresql":
            for sql in statements:
                schema_editor.execute(sql, None)

    return apply


class Migration(migrations.Migration):
    dependencies = [("bingo", "0007_game_double_cards"), ("cards", "0005_series_on_sale_in_game")]

    operations = [migrations.RunPython(_run(FORWARD), _run(BACKWARD))]
