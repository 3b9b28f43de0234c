"""PostgreSQL-only invariants of the ball-set records and the jackpot ledger.

* The records an inspector reads are insert-only: the checks of every ball (R23), the ball and
  set replacements (R25-R26), the games each set drew (R25) and the jackpot's movements
  (R10-R11). UPDATE and DELETE are refused.
* A ball set keeps its hall, serial number and size (R22); its game count never goes down and a
  retired set never comes back (R25).
* Ball numbers named by a check or a replacement lie within the set's own size.
* Every jackpot movement leaves the balance at the previous movement's balance plus its amount,
  and the jackpot's balance is always its last movement's balance: balance == sum of movements.
"""

from django.db import migrations

INSERT_ONLY = {
    "halls_ballsetcheck": "ball checks are never changed or deleted (R23)",
    "halls_ballreplacement": "ball replacements are never changed or deleted (R25-R26)",
    "halls_ballsetuse": "the games a ball set drew are never changed or deleted (R25)",
    "halls_jackpotmovement": "jackpot movements are never changed or deleted (R10-R11)",
}

FORWARD = [
    """
    CREATE FUNCTION halls_insert_only() RETURNS trigger LANGUAGE plpgsql AS $$
    BEGIN
        RAISE EXCEPTION '%', TG_ARGV[0] USING ERRCODE = 'integrity_constraint_violation';
    END $$
    """,
    *(
        f"CREATE TRIGGER {table}_insert_only BEFORE UPDATE OR DELETE ON {table} "
        f"FOR EACH ROW EXECUTE FUNCTION halls_insert_only('{message}')"
        for table, message in INSERT_ONLY.items()
    ),
    """
    CREATE FUNCTION halls_ballset_guard() RETURNS trigger LANGUAGE plpgsql AS $$
    BEGIN
        IF NEW.hall_id <> OLD.hall_id OR NEW.size <> OLD.size OR NEW.serial_number <> OLD.serial_number THEN
            RAISE EXCEPTION 'a ball set keeps its hall, serial number and size (R22)'
                USING ERRCODE = 'integrity_constraint_violation';
        END IF;
        IF NEW.games_played < OLD.games_played THEN
            RAISE EXCEPTION 'the games a ball set played never go down (R25)'
                USING ERRCODE = 'integrity_constraint_violation';
        END IF;
        IF OLD.state = 'retired' AND NEW.state <> 'retired' THEN
            RAISE EXCEPTION 'a retired ball set is never used again (R25)'
                USING ERRCODE = 'integrity_constraint_violation';
        END IF;
        RETURN NEW;
    END $$
    """,
    "CREATE TRIGGER halls_ballset_guard BEFORE UPDATE ON halls_ballset "
    "FOR EACH ROW EXECUTE FUNCTION halls_ballset_guard()",
    """
    CREATE FUNCTION halls_ballsetcheck_balls_in_set() RETURNS trigger LANGUAGE plpgsql AS $$
    DECLARE
        set_size integer;
    BEGIN
        SELECT size INTO set_size FROM halls_ballset WHERE id = NEW.ball_set_id;
        IF jsonb_typeof(NEW.faulty_balls) <> 'array'
           OR EXISTS (
               SELECT 1 FROM jsonb_array_elements(NEW.faulty_balls) AS ball
               WHERE jsonb_typeof(ball) <> 'number'
                  OR ball::numeric <> trunc(ball::numeric)
                  OR ball::numeric < 1 OR ball::numeric > set_size
           )
           OR (SELECT count(*) FROM jsonb_array_elements(NEW.faulty_balls))
              <> (SELECT count(DISTINCT ball) FROM jsonb_array_elements(NEW.faulty_balls) AS ball)
        THEN
            RAISE EXCEPTION 'faulty balls are distinct numbers of the set, from 1 to %', set_size
                USING ERRCODE = 'integrity_constraint_violation';
        END IF;
        RETURN NEW;
    END $$
    """,
    "CREATE TRIGGER halls_ballsetcheck_balls_in_set BEFORE INSERT ON halls_ballsetcheck "
    "FOR EACH ROW EXECUTE FUNCTION halls_ballsetcheck_balls_in_set()",
    """
    CREATE FUNCTION halls_ballreplacement_ball_in_set() RETURNS trigger LANGUAGE plpgsql AS $$
    DECLARE
        set_size integer;
    BEGIN
        SELECT size INTO set_size FROM halls_ballset WHERE id = NEW.ball_set_id;
        IF NEW.ball_number IS NOT NULL AND NEW.ball_number > set_size THEN
            RAISE EXCEPTION 'ball % is not in a set of % balls (R26)', NEW.ball_number, set_size
                USING ERRCODE = 'integrity_constraint_violation';
        END IF;
        RETURN NEW;
    END $$
    """,
    "CREATE TRIGGER halls_ballreplacement_ball_in_set BEFORE INSERT ON halls_ballreplacement "
    "FOR EACH ROW EXECUTE FUNCTION halls_ballreplacement_ball_in_set()",
    """
    CREATE FUNCTION halls_jackpotmovement_chain() RETURNS trigger LANGUAGE plpgsql AS $$
    DECLARE
        previous numeric;
    BEGIN
        SELECT balance_after INTO previous FROM halls_jackpotmovement
            WHERE jackpot_id = NEW.jackpot_id ORDER BY id DESC LIMIT 1;
        IF NEW.balance_after <> COALESCE(previous, 0) + NEW.amount THEN
            RAISE EXCEPTION 'a jackpot movement leaves the balance at the previous balance plus its amount'
                USING ERRCODE = 'integrity_constraint_violation';
        END IF;
        RETURN NEW;
    END $$
    """,
    "CREATE TRIGGER halls_jackpotmovement_chain BEFORE INSERT ON halls_jackpotmovement "
    "FOR EACH ROW EXECUTE FUNCTION halls_jackpotmovement_chain()",
    """
    CREATE FUNCTION halls_jackpot_balance_from_ledger() RETURNS trigger LANGUAGE plpgsql AS $$
    DECLARE
        latest numeric;
    BEGIN
        SELECT balance_after INTO latest FROM halls_jackpotmovement
            WHERE jackpot_id = NEW.id ORDER BY id DESC LIMIT 1;
        IF NEW.balance <> COALESCE(latest, 0) THEN
            RAISE EXCEPTION 'a jackpot balance changes only by a movement of its ledger'
                USING ERRCODE = 'integrity_constraint_violation';
        END IF;
        RETURN NEW;
    END $$
    """,
    "CREATE TRIGGER halls_jackpot_balance_from_ledger BEFORE INSERT OR UPDATE ON halls_jackpot "
    "FOR EACH ROW EXECUTE FUNCTION halls_jackpot_balance_from_ledger()",
]

BACKWARD = [
    "DROP TRIGGER halls_jackpot_balance_from_ledger ON halls_jackpot",
    "DROP FUNCTION halls_jackpot_balance_from_ledger()",
    "DROP TRIGGER halls_jackpotmovement_chain ON halls_jackpotmovement",
    "DROP FUNCTION halls_jackpotmovement_chain()",
    "DROP TRIGGER halls_ballreplacement_ball_in_set ON halls_ballreplacement",
    "DROP FUNCTION halls_ballreplacement_ball_in_set()",
    "DROP TRIGGER halls_ballsetcheck_balls_in_set ON halls_ballsetcheck",
    "DROP FUNCTION halls_ballsetcheck_balls_in_set()",
    "DROP TRIGGER halls_ballset_guard ON halls_ballset",
    "DROP FUNCTION halls_ballset_guard()",
    *(f"DROP TRIGGER {table}_insert_only ON {table}" for table in INSERT_ONLY),
    "DROP FUNCTION halls_insert_only()",
]


def _run(statements):
    def apply(apps, schema_editor):
        if schema_editor.connection.vendor == "postgresql":
            for sql in statements:
                schema_editor.execute(sql, params=None)  # no placeholders: "%" is literal

    return apply


class Migration(migrations.Migration):
    dependencies = [("halls", "0003_ball_sets_and_jackpot_ledger")]

    operations = [migrations.RunPython(_run(FORWARD), _run(BACKWARD))]
