"""The bounds of the numbers a person sets (issue 20: hostile input gets a 400, never a 500).

One place for each bound, which the form, the API's serializer (so the OpenAPI schema shows
it), the service (a clear ValidationError) and the database (a CheckConstraint) all read. Where
a rule sets a bound it is cited; the others are the domain's sane limits: far above any real
use, and far below what would overflow PostgreSQL's integer and numeric columns or Python's
``timedelta`` into a 500.
"""

from __future__ import annotations

from datetime import timedelta
from decimal import Decimal

from bingo.engine import MAX_CARDS

# --- online rooms (R88-R93) --------------------------------------------------------------------

#: R88: never under one second between balls; at most what the numeric(5, 2) columns hold.
BALL_INTERVAL_MIN = Decimal("1")
BALL_INTERVAL_MAX = Decimal("999.99")
#: R90: a continuous room's sales window for each game, in seconds: at least 5, at most an hour.
SALES_SECONDS_MIN = 5
SALES_SECONDS_MAX = 3_600
#: A continuous room's pause between games, in seconds: none to an hour.
PAUSE_SECONDS_MAX = 3_600
#: A continuous room's minimum sales time after a game's first purchase, in seconds: none to an
#: hour (as the sales window).
SALES_AFTER_FIRST_SECONDS_MAX = 3_600
#: The most games a player buys cards for in one action (buying ahead: the games selling bought at
#: once, the rest a standing order filled as their sales open, R93).
BUY_AHEAD_GAMES_MAX = 10
#: R92: the games of one scheduled online session, several variants and prices at once.
SESSION_MAX_GAMES = 20

# --- sessions -----------------------------------------------------------------------------------

#: A session is a day's play at most (an online room's continuous session ends at the hall's
#: midnight: 25 hours on the day the clocks go back, hence the margin), and is opened at most a
#: year ahead.
SESSION_MAX_LENGTH = timedelta(hours=26)
SESSION_MAX_AHEAD = timedelta(days=366)

# --- cards and sales (R16-R19, R33-R41) ---------------------------------------------------------

#: The most cards a card set holds (bingo.engine.cardset, R19: other sizes by authorization),
#: so the highest card number of any series.
CARD_NUMBER_MAX = MAX_CARDS
#: A series' order number in its hall (R18).
SERIES_ORDER_NUMBER_MAX = 999_999
#: The most cards one sale sells, at a desk (R34) or online (R85).
SALE_MAX_CARDS = 1_000
#: A hall's cap on the cards one player buys in a game (R35).
CARD_LIMIT_MAX = 10_000

# --- money --------------------------------------------------------------------------------------

#: A card's face value (a series', an online game's, R18, R92). The biggest sale,
#: ``SALE_MAX_CARDS`` cards at this price, is ``AMOUNT_MAX``.
CARD_PRICE_MAX = Decimal("1000000.00")
#: The smallest amount a price, a deposit or a limit can be: a cent.
AMOUNT_MIN = Decimal("0.01")
#: Any other amount a person types: cash received, a deposit or a withdrawal, a limit (R101),
#: the jackpot's base value, seed or adjustment (R11), the prize tax's threshold (R61 g).
AMOUNT_MAX = Decimal("1000000000.00")
#: A balance kept in a numeric(14, 2) column (a wallet, the jackpot): a movement that would
#: take it beyond is refused by the service, never by the column.
BALANCE_MAX = Decimal("999999999999.99")

# --- the draw (R20-R26, R42) --------------------------------------------------------------------

#: The highest ball of any variant (R1) and of any ball set (R22), so the most balls one game draws.
BALL_NUMBER_MAX = 90
#: A list of ball numbers typed by hand (a check's faulty balls): every ball of the largest
#: set, comma-separated, fits.
BALL_LIST_MAX_LENGTH = 400
#: Ball sets checked at one session's end: a hall has a few; more in one request is not a check.
SESSION_MAX_BALL_SETS = 50

# --- ids ----------------------------------------------------------------------------------------

#: The largest id a row can have (a bigint primary key): a bigger one names no row, and is
#: refused before any query (SQLite cannot even bind it).
ID_MAX = 2**63 - 1

# --- play time (R101) ---------------------------------------------------------------------------

#: The session time limit a player may set, in minutes (10 minutes to a day), and the reminder
#: intervals offered (bingo.playtime).
PLAY_LIMIT_MINUTES_MIN = 10
PLAY_LIMIT_MINUTES_MAX = 24 * 60
REMINDER_CHOICES = (15, 30, 60)
#: The operator's mandatory break after a session ended by the player's time limit, in minutes:
#: none (0) to a week (halls.Hall.play_cooloff_minutes).
PLAY_COOLOFF_MINUTES_MAX = 7 * 24 * 60

# --- demo mode (R102) ---------------------------------------------------------------------------

#: The most cards a player plays in one demo game.
DEMO_MAX_CARDS = 6

# --- free text ----------------------------------------------------------------------------------

#: A reason written into the acta (an occurrence, R61 m)): a paragraph, not a document.
REASON_MAX_LENGTH = 2_000
