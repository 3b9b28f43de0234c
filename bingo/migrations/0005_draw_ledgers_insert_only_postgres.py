"""PostgreSQL-only: the draw's records are insert-only, like the sales ledger.

A ball once drawn is never changed or taken back (R42, R57 annuls the game instead); claims,
awarded prizes and their winners, prize payments (R50: once) and refunds are facts the acta
reports. UPDATE and DELETE on them are refused.
"""

from django.db import migrations

TABLES = ("bingo_ball", "bingo_claim", "bingo_prize", "bingo_prizewinner", "bingo_prizepayment", "bingo_refund")

FORWARD = [
    """
    CREATE FUNCTION bingo_draw_insert_only() RETURNS trigger LANGUAGE plpgsql AS $$
    BEGIN
        RAISE EXCEPTION '% rows are never changed or deleted', TG_TABLE_NAME
            USING ERRCODE = 'integrity_constraint_violation';
    END $$
    """,
    *(
        f"CREATE TRIGGER {table}_insert_only BEFORE UPDATE OR DELETE ON {table} "
        "FOR EACH ROW EXECUTE FUNCTION bingo_draw_insert_only()"
        for table in TABLES
    ),
]
BACKWARD = [
    *(f"DROP TRIGGER {table}_insert_only ON {table}" for table in TABLES),
    "DROP FUNCTION bingo_draw_insert_only()",
]


def _run(statements):
    def apply(apps, schema_editor):
        if schema_editor.connection.vendor == "postgresql":
            for sql in statements:
                schema_editor.execute(sql, None)

    return apply


class Migration(migrations.Migration):
    dependencies = [("bingo", "0004_draw_balls_claims_prizes_refunds")]

    operations = [migrations.RunPython(_run(FORWARD), _run(BACKWARD))]
