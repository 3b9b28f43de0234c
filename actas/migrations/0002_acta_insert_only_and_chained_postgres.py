"""PostgreSQL-only: the acta is insert-only, and each record joins its chain correctly.

* An acta, its entries (R59-R61) and its notes (R61 j), l), m), R51-R52) are never changed or
  deleted once recorded: UPDATE and DELETE are refused, whatever the code that asks.
* A new entry or note takes the next position of its acta (no gap), names the hash of the
  record before it (the genesis hash, 64 zeros, for the first), states its own position in its
  content, and its hash is SHA-256 of the previous hash, a newline and its content: the formula
  of bingo.engine.acta, recomputed here so a record with a wrong hash never gets in.
"""

from django.db import migrations

INSERT_ONLY = {
    "actas_acta": "an acta is never changed or deleted (R58)",
    "actas_actaentry": "a game recorded in the acta is never changed or deleted (R59-R61)",
    "actas_actanote": "a note recorded in the acta is never changed or deleted (R61)",
}
CHAINED = ("actas_actaentry", "actas_actanote")

FORWARD = [
    """
    CREATE FUNCTION actas_insert_only() RETURNS trigger LANGUAGE plpgsql AS $$
    BEGIN
        RAISE EXCEPTION '%', TG_ARGV[0] USING ERRCODE = 'integrity_constraint_violation';
    END $$
    """,
    *(
        f"CREATE TRIGGER {table}_insert_only BEFORE UPDATE OR DELETE ON {table} "
        f"FOR EACH ROW EXECUTE FUNCTION actas_insert_only('{message}')"
        for table, message in INSERT_ONLY.items()
    ),
    """
    CREATE FUNCTION actas_chained() RETURNS trigger LANGUAGE plpgsql AS $$
    DECLARE
        last_position integer;
        last_hash text;
    BEGIN
        -- The record before it: the acta's last, through the (acta, position) unique index.
        EXECUTE format(
            'SELECT position, content_hash FROM %I WHERE acta_id = $1 ORDER BY position DESC LIMIT 1',
            TG_TABLE_NAME
        ) INTO last_position, last_hash USING NEW.acta_id;
        IF NEW.position <> COALESCE(last_position, 0) + 1 THEN
            RAISE EXCEPTION 'acta record % is not the next one (after %)', NEW.position, COALESCE(last_position, 0)
                USING ERRCODE = 'integrity_constraint_violation';
        END IF;
        IF NEW.previous_hash <> COALESCE(last_hash, repeat('0', 64)) THEN
            RAISE EXCEPTION 'acta record % does not name the hash of the record before it', NEW.position
                USING ERRCODE = 'integrity_constraint_violation';
        END IF;
        IF (NEW.content::jsonb ->> 'position') IS DISTINCT FROM NEW.position::text THEN
            RAISE EXCEPTION 'acta record % does not state its position in its content', NEW.position
                USING ERRCODE = 'integrity_constraint_violation';
        END IF;
        IF NEW.content_hash <> encode(sha256(convert_to(NEW.previous_hash || chr(10) || NEW.content, 'UTF8')), 'hex')
        THEN
            RAISE EXCEPTION 'the hash of acta record % is not SHA-256 of the previous hash and its content',
                NEW.position USING ERRCODE = 'integrity_constraint_violation';
        END IF;
        RETURN NEW;
    END $$
    """,
    *(
        f"CREATE TRIGGER {table}_chained BEFORE INSERT ON {table} FOR EACH ROW EXECUTE FUNCTION actas_chained()"
        for table in CHAINED
    ),
]

BACKWARD = [
    *(f"DROP TRIGGER {table}_chained ON {table}" for table in CHAINED),
    "DROP FUNCTION actas_chained()",
    *(f"DROP TRIGGER {table}_insert_only ON {table}" for table in INSERT_ONLY),
    "DROP FUNCTION actas_insert_only()",
]


def _run(statements):
    def apply(apps, schema_editor):
        if schema_editor.connection.vendor == "postgresql":
            for sql in statements:
                schema_editor.execute(sql, params=None)  # no placeholders: "%" is literal

    return apply


class Migration(migrations.Migration):
    dependencies = [("actas", "0001_acta_entries_and_notes")]

    operations = [migrations.RunPython(_run(FORWARD), _run(BACKWARD))]
