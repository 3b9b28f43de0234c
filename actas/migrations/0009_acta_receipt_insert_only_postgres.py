"""PostgreSQL-only: the acta's receipts (0008) are insert-only, and each says what it signed.

* UPDATE and DELETE are refused for each row, TRUNCATE for the table, with the function of 0002,
  as for the acta's entries and notes (0002, 0007). ``manage.py db_grant`` finds the table by
  its TRUNCATE trigger and keeps UPDATE, DELETE and TRUNCATE from the app's role.
* A new receipt takes the acta's next number, its columns say what its statement (the text
  signed) says, its seal is SHA-256 of the two chains' last hashes (bingo.engine.acta.acta_seal),
  and the counts and hashes are those of the acta's chains as they stand: a receipt never claims
  a state the acta did not hold. The signature itself is checked by the engine, not here.
"""

from django.db import migrations

TABLE = "actas_actareceipt"
MESSAGE = "a receipt of the acta is never changed or deleted"

FORWARD = [
    f"CREATE TRIGGER {TABLE}_insert_only BEFORE UPDATE OR DELETE ON {TABLE} "
    f"FOR EACH ROW EXECUTE FUNCTION actas_insert_only('{MESSAGE}')",
    f"CREATE TRIGGER {TABLE}_refuse_truncate BEFORE TRUNCATE ON {TABLE} "
    f"FOR EACH STATEMENT EXECUTE FUNCTION actas_insert_only('{MESSAGE}')",
    """
    CREATE FUNCTION actas_receipt_states() RETURNS trigger LANGUAGE plpgsql AS $$
    DECLARE
        signed jsonb := NEW.statement::jsonb;
        last_number integer;
        acta_session bigint;
        last_entry integer;
        last_entry_hash text;
        last_note integer;
        last_note_hash text;
    BEGIN
        SELECT number INTO last_number FROM actas_actareceipt
         WHERE acta_id = NEW.acta_id ORDER BY number DESC LIMIT 1;
        IF NEW.number <> COALESCE(last_number, 0) + 1 THEN
            RAISE EXCEPTION 'acta receipt % is not the next one (after %)', NEW.number, COALESCE(last_number, 0)
                USING ERRCODE = 'integrity_constraint_violation';
        END IF;
        SELECT session_id INTO acta_session FROM actas_acta WHERE id = NEW.acta_id;
        SELECT position, content_hash INTO last_entry, last_entry_hash FROM actas_actaentry
         WHERE acta_id = NEW.acta_id ORDER BY position DESC LIMIT 1;
        SELECT position, content_hash INTO last_note, last_note_hash FROM actas_actanote
         WHERE acta_id = NEW.acta_id ORDER BY position DESC LIMIT 1;
        IF NEW.entries <> COALESCE(last_entry, 0)
           OR NEW.entries_hash <> COALESCE(last_entry_hash, repeat('0', 64))
           OR NEW.notes <> COALESCE(last_note, 0)
           OR NEW.notes_hash <> COALESCE(last_note_hash, repeat('0', 64))
        THEN
            RAISE EXCEPTION 'acta receipt % does not sign the acta as it stands', NEW.number
                USING ERRCODE = 'integrity_constraint_violation';
        END IF;
        IF NEW.seal <> encode(sha256(convert_to(NEW.entries_hash || chr(10) || NEW.notes_hash, 'UTF8')), 'hex')
        THEN
            RAISE EXCEPTION 'the seal of acta receipt % is not SHA-256 of the chains'' last hashes', NEW.number
                USING ERRCODE = 'integrity_constraint_violation';
        END IF;
        IF signed ->> 'session' IS DISTINCT FROM acta_session::text
           OR signed ->> 'entries' IS DISTINCT FROM NEW.entries::text
           OR signed ->> 'entries_hash' IS DISTINCT FROM NEW.entries_hash
           OR signed ->> 'notes' IS DISTINCT FROM NEW.notes::text
           OR signed ->> 'notes_hash' IS DISTINCT FROM NEW.notes_hash
           OR signed ->> 'seal' IS DISTINCT FROM NEW.seal
           OR signed ->> 'reason' IS DISTINCT FROM NEW.reason
           OR signed ->> 'key_id' IS DISTINCT FROM NEW.key_id
           OR (signed ->> 'signed_at')::timestamptz IS DISTINCT FROM NEW.signed_at
        THEN
            RAISE EXCEPTION 'acta receipt % does not say what its statement signed', NEW.number
                USING ERRCODE = 'integrity_constraint_violation';
        END IF;
        RETURN NEW;
    END $$
    """,
    f"CREATE TRIGGER {TABLE}_states BEFORE INSERT ON {TABLE} FOR EACH ROW EXECUTE FUNCTION actas_receipt_states()",
]
BACKWARD = [
    f"DROP TRIGGER {TABLE}_states ON {TABLE}",
    "DROP FUNCTION actas_receipt_states()",
    f"DROP TRIGGER {TABLE}_refuse_truncate ON {TABLE}",
    f"DROP TRIGGER {TABLE}_insert_only ON {TABLE}",
]


def _run(statements):
    def apply(apps, schema_editor):
        if schema_editor.connection.vendor == "postgresql":
            for sql in statements:
                schema_editor.execute(sql, None)  # no placeholders: "%" is literal

    return apply


class Migration(migrations.Migration):
    dependencies = [("actas", "0008_acta_receipt_and_signing_key_changed_note")]

    operations = [migrations.RunPython(_run(FORWARD), _run(BACKWARD))]
