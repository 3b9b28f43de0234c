"""PostgreSQL-only: the wallet's ledger is insert-only and chained by the database itself.

A wallet's balance is its last entry's ``balance_after``. Python locks the player's row before
writing, but the database does not take its word for it: each new entry must be the player's
next (``seq`` one more than the last) and its ``balance_after`` must be the last balance plus its
``amount`` (never below zero: a CHECK constraint). An entry once written is never changed or
deleted, like the sales and the draw's records.

The sale's trigger of 0008 learns the online series (R85): a series set aside for online play is
sold only to a player's wallet, and a hall's series only at a desk.
"""

from django.db import migrations

_SALE_SERIES_CHECK = """
    CREATE OR REPLACE FUNCTION bingo_sale_series_not_retired() RETURNS trigger LANGUAGE plpgsql AS $$
    DECLARE
        s_status text;
        s_online boolean;
    BEGIN
        SELECT status, online INTO s_status, s_online FROM cards_series WHERE id = NEW.series_id;
        IF s_status = 'retired' THEN
            RAISE EXCEPTION 'series % is retired: its cards are no longer sold', NEW.series_id
                USING ERRCODE = 'integrity_constraint_violation';
        END IF;
        IF s_online IS DISTINCT FROM (NEW.buyer_id IS NOT NULL) THEN
            RAISE EXCEPTION 'series % is sold % only', NEW.series_id,
                CASE WHEN s_online THEN 'online' ELSE 'at the hall''s desks' END
                USING ERRCODE = 'integrity_constraint_violation';
        END IF;
        RETURN NEW;
    END $$
"""
_SALE_SERIES_CHECK_0008 = """
    CREATE OR REPLACE FUNCTION bingo_sale_series_not_retired() RETURNS trigger LANGUAGE plpgsql AS $$
    BEGIN
        IF EXISTS (SELECT 1 FROM cards_series WHERE id = NEW.series_id AND status = 'retired') THEN
            RAISE EXCEPTION 'series % is retired: its cards are no longer sold', NEW.series_id
                USING ERRCODE = 'integrity_constraint_violation';
        END IF;
        RETURN NEW;
    END $$
"""

FORWARD = [
    _SALE_SERIES_CHECK,
    """
    CREATE FUNCTION bingo_wallet_entry_chain() RETURNS trigger LANGUAGE plpgsql AS $$
    DECLARE
        last_seq integer;
        last_balance numeric;
    BEGIN
        SELECT seq, balance_after INTO last_seq, last_balance
          FROM bingo_walletentry WHERE player_id = NEW.player_id
         ORDER BY seq DESC LIMIT 1;
        IF NEW.seq <> COALESCE(last_seq, 0) + 1 THEN
            RAISE EXCEPTION 'wallet entry % of player % does not follow entry %',
                NEW.seq, NEW.player_id, COALESCE(last_seq, 0)
                USING ERRCODE = 'integrity_constraint_violation';
        END IF;
        IF NEW.balance_after <> COALESCE(last_balance, 0) + NEW.amount THEN
            RAISE EXCEPTION 'wallet entry % of player %: balance % is not % plus %',
                NEW.seq, NEW.player_id, NEW.balance_after, COALESCE(last_balance, 0), NEW.amount
                USING ERRCODE = 'integrity_constraint_violation';
        END IF;
        RETURN NEW;
    END $$
    """,
    "CREATE TRIGGER bingo_walletentry_chain BEFORE INSERT ON bingo_walletentry "
    "FOR EACH ROW EXECUTE FUNCTION bingo_wallet_entry_chain()",
    # The draw's records' function (0005) refuses any change: the wallet's ledger is one of them.
    "CREATE TRIGGER bingo_walletentry_insert_only BEFORE UPDATE OR DELETE ON bingo_walletentry "
    "FOR EACH ROW EXECUTE FUNCTION bingo_draw_insert_only()",
]
BACKWARD = [
    "DROP TRIGGER bingo_walletentry_insert_only ON bingo_walletentry",
    "DROP TRIGGER bingo_walletentry_chain ON bingo_walletentry",
    "DROP FUNCTION bingo_wallet_entry_chain()",
    _SALE_SERIES_CHECK_0008,
]


def _run(statements):
    def apply(apps, schema_editor):
        if schema_editor.connection.vendor == "postgresql":
            for sql in statements:
                schema_editor.execute(sql, None)

    return apply


class Migration(migrations.Migration):
    dependencies = [("bingo", "0010_online_players_wallets_rooms"), ("cards", "0006_series_online")]

    operations = [migrations.RunPython(_run(FORWARD), _run(BACKWARD))]
