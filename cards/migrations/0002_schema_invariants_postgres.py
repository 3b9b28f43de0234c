"""PostgreSQL-only schema invariants that Django's model API cannot state.

* A series' size always equals its card set's: a composite foreign key (card_set_id, size)
  references card set (id, size). On SQLite the services enforce it.
* Stored cards are kept uncompressed, out of line (STORAGE EXTERNAL), so reading one card is a
  cheap substring instead of decompressing the whole set.
"""

from django.db import migrations

FORWARD = [
    "ALTER TABLE cards_series ADD CONSTRAINT series_size_matches_card_set "
    "FOREIGN KEY (card_set_id, size) REFERENCES cards_cardset (id, size) DEFERRABLE INITIALLY DEFERRED",
    "ALTER TABLE cards_cardsetcells ALTER COLUMN cells SET STORAGE EXTERNAL",
]
BACKWARD = [
    "ALTER TABLE cards_series DROP CONSTRAINT series_size_matches_card_set",
    "ALTER TABLE cards_cardsetcells ALTER COLUMN cells SET STORAGE EXTENDED",
]


def _run(statements):
    def apply(apps, schema_editor):
        if schema_editor.connection.vendor == "postgresql":
            for sql in statements:
                schema_editor.execute(sql)

    return apply


class Migration(migrations.Migration):
    dependencies = [("cards", "0001_card_sets_and_series")]

    operations = [migrations.RunPython(_run(FORWARD), _run(BACKWARD))]
