"""PostgreSQL-only invariants of the sales ledger.

* No card is ever sold twice: the card ranges of one series never overlap, in any game, on any
  day (an exclusion constraint over integer ranges; needs btree_gist).
* The ledger is insert-only (R41: a sale is never cancelled): UPDATE and DELETE are refused.
"""

from django.db import migrations

FORWARD = [
    "CREATE EXTENSION IF NOT EXISTS btree_gist",
    "ALTER TABLE bingo_sale ADD CONSTRAINT sale_cards_sold_once EXCLUDE USING gist "
    "(series_id WITH =, int4range(first_number, last_number, '[]') WITH &&)",
    """
    CREATE FUNCTION bingo_sale_insert_only() RETURNS trigger LANGUAGE plpgsql AS $$
    BEGIN
        RAISE EXCEPTION 'sales are never changed or cancelled (R41)' USING ERRCODE = 'integrity_constraint_violation';
    END $$
    """,
    "CREATE TRIGGER sale_insert_only BEFORE UPDATE OR DELETE ON bingo_sale "
    "FOR EACH ROW EXECUTE FUNCTION bingo_sale_insert_only()",
]
BACKWARD = [
    "DROP TRIGGER sale_insert_only ON bingo_sale",
    "DROP FUNCTION bingo_sale_insert_only()",
    "ALTER TABLE bingo_sale DROP CONSTRAINT sale_cards_sold_once",
]


def _run(statements):
    def apply(apps, schema_editor):
        if schema_editor.connection.vendor == "postgresql":
            for sql in statements:
                schema_editor.execute(sql)

    return apply


class Migration(migrations.Migration):
    dependencies = [("bingo", "0002_sessions_games_and_sales")]

    operations = [migrations.RunPython(_run(FORWARD), _run(BACKWARD))]
