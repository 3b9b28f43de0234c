"""Settings, read from the environment.

With nothing set, the system runs on embedded defaults: SQLite under ``var/``, the in-process
channel layer, and Celery on a filesystem broker under ``var/celery/`` (one process: tests and
commands). ``make run`` starts a Redis of its own and sets ``REDIS_URL`` for the processes it
starts, so they share the channel layer (docs/live.md, «make run»). Production is the same
code with ``DATABASE_URL`` (PostgreSQL, as the app's role; ``DATABASE_OWNER_URL`` the tables'
owner, for migrations), ``REDIS_URL`` (channel layer, broker, cache),
``DJANGO_SECRET_KEY``, ``DJANGO_DEBUG=false`` and ``DJANGO_ALLOWED_HOSTS`` set.
"""

from datetime import timedelta
from pathlib import Path

import environ
from celery.schedules import crontab
from csp.constants import NONE, SELF
from django.core.exceptions import ImproperlyConfigured
from django.utils.translation import gettext_lazy as _

BASE_DIR = Path(__file__).resolve().parent.parent
VAR_DIR = Path(environ.Env().str("BINGO_VAR_DIR", default=str(BASE_DIR / "var")))

env = environ.Env()

# --- core -------------------------------------------------------------------------------------

DEBUG = env.bool("DJANGO_DEBUG", default=True)

_DEFAULT_SECRET_KEY = "django-insecure-local-development-only-never-use-in-production"  # noqa: S105
SECRET_KEY = env.str("DJANGO_SECRET_KEY", default=_DEFAULT_SECRET_KEY)
if not DEBUG and SECRET_KEY == _DEFAULT_SECRET_KEY:
    raise ImproperlyConfigured(
        "DJANGO_SECRET_KEY is not set. With DJANGO_DEBUG off the default key is refused: "
        "set DJANGO_SECRET_KEY to a long random value (secrets.token_urlsafe(50))."
    )

ALLOWED_HOSTS = env.list("DJANGO_ALLOWED_HOSTS", default=["127.0.0.1", "localhost", "[::1]"])
CSRF_TRUSTED_ORIGINS = env.list("DJANGO_CSRF_TRUSTED_ORIGINS", default=[])

INSTALLED_APPS = [
    "django.contrib.admin",
    "django.contrib.auth",
    "django.contrib.contenttypes",
    "django.contrib.sessions",
    "django.contrib.messages",
    "django.contrib.staticfiles",
    "rest_framework",
    "drf_spectacular",
    "drf_spectacular_sidecar",
    "channels",
    "axes",
    "bingo",
    "halls",
    "cards",
    "actas",
]

MIDDLEWARE = [
    "django.middleware.security.SecurityMiddleware",
    "bingo.middleware.StaticFilesMiddleware",  # WhiteNoise, async-friendly under ASGI
    "csp.middleware.CSPMiddleware",  # Content-Security-Policy (static files are answered above)
    "django.contrib.sessions.middleware.SessionMiddleware",
    "bingo.middleware.LanguageMiddleware",
    "bingo.middleware.NotFoundPageMiddleware",  # with debug on, the site's own 404 page too
    "django.middleware.common.CommonMiddleware",
    "django.middleware.csrf.CsrfViewMiddleware",
    "django.contrib.auth.middleware.AuthenticationMiddleware",
    "django.contrib.messages.middleware.MessageMiddleware",
    # A player's play session: kept alive, ended when idle, over the time limit or inactive.
    "bingo.playtime.middleware.PlaySessionMiddleware",
    "django.middleware.clickjacking.XFrameOptionsMiddleware",
    # Last, as django-axes asks: it turns a login refused for too many failures into the
    # lockout page (bingo/accounts/views.py login_locked_out).
    "axes.middleware.AxesMiddleware",
]

ROOT_URLCONF = "bingo.urls"
WSGI_APPLICATION = "bingo.wsgi.application"
ASGI_APPLICATION = "bingo.asgi.application"

TEMPLATES = [
    {
        "BACKEND": "django.template.backends.django.DjangoTemplates",
        "DIRS": [BASE_DIR / "templates"],
        "APP_DIRS": True,
        "OPTIONS": {
            "context_processors": [
                "django.template.context_processors.request",
                "django.template.context_processors.i18n",
                "django.contrib.auth.context_processors.auth",
                "django.contrib.messages.context_processors.messages",
                "bingo.context_processors.roles",
                "bingo.context_processors.server_clock",
            ],
        },
    },
]

# --- database ---------------------------------------------------------------------------------

VAR_DIR.mkdir(parents=True, exist_ok=True)
DATABASES = {"default": env.db_url("DATABASE_URL", default=f"sqlite:///{VAR_DIR / 'db.sqlite3'}")}
if DATABASES["default"]["ENGINE"] == "django.db.backends.sqlite3":
    # Embedded mode: the web server and the Celery worker share one file. WAL lets readers and
    # one writer work at once; IMMEDIATE takes the write lock at BEGIN so two writers queue
    # instead of failing mid-transaction.
    DATABASES["default"]["OPTIONS"] = {
        "timeout": 20,
        "transaction_mode": "IMMEDIATE",
        "init_command": "PRAGMA journal_mode=WAL; PRAGMA synchronous=NORMAL;",
    }
else:
    # Under ASGI every request runs in a thread of its own, so persistent connections would pile
    # up (Django's docs: disable them under ASGI). Each process keeps a pool of connections
    # instead (psycopg_pool, Django's "pool" option): a request takes one when it first reads and
    # gives it back at its end, so no request pays for connecting (docs/deploy.md, «Database
    # connections»: how to size it per process, and PgBouncer). DATABASE_POOL_MAX=0: no pool,
    # a connection per request (CONN_MAX_AGE 0), closed at its end.
    _pool_max = env.int("DATABASE_POOL_MAX", default=10)
    if _pool_max > 0:
        if env.int("DJANGO_CONN_MAX_AGE", default=0):
            raise ImproperlyConfigured(
                "DJANGO_CONN_MAX_AGE keeps a connection per thread, which the connection pool "
                "replaces: leave it unset, or set DATABASE_POOL_MAX=0 to have no pool."
            )
        DATABASES["default"]["CONN_MAX_AGE"] = 0
        DATABASES["default"].setdefault("OPTIONS", {})["pool"] = {
            "min_size": min(env.int("DATABASE_POOL_MIN", default=2), _pool_max),
            "max_size": _pool_max,
            # A request waits this long for a connection when all are in use, then fails (500).
            "timeout": env.float("DATABASE_POOL_TIMEOUT", default=10.0),
        }
    else:
        DATABASES["default"].setdefault("CONN_MAX_AGE", env.int("DJANGO_CONN_MAX_AGE", default=0))
    # With the pool: a connection is checked as it is handed out (one round trip), so one the
    # server dropped (a restart) is replaced, not given to a request.
    DATABASES["default"]["CONN_HEALTH_CHECKS"] = True
    # Parameters sent apart from the statement (psycopg's server-side binding), so a statement a
    # connection runs again and again is prepared once and planned from then on by its name
    # (psycopg prepares after 5 runs): the purchase's and the sale's statements cost PostgreSQL
    # their parse and plan once per pooled connection, not per request (issue 23).
    DATABASES["default"]["OPTIONS"]["server_side_binding"] = env.bool(
        "DATABASE_SERVER_SIDE_BINDING", default=True
    )
    # Runs of a statement before a connection prepares it (Django's default: never). 0: never,
    # as behind a PgBouncer older than 1.21 in transaction mode (docs/deploy.md).
    _prepare_threshold = env.int("DATABASE_PREPARE_THRESHOLD", default=5)
    DATABASES["default"]["OPTIONS"]["prepare_threshold"] = _prepare_threshold or None
    # Behind PgBouncer in transaction mode a server-side cursor cannot outlive its transaction.
    DATABASES["default"]["DISABLE_SERVER_SIDE_CURSORS"] = env.bool(
        "DATABASE_DISABLE_SERVER_SIDE_CURSORS", default=False
    )


# --- the web workers ---------------------------------------------------------------------------

# Requests each web worker process runs at once (bingo/asgi.py); the others wait their turn in
# the order they came. Python runs one thread at a time in a process: more requests at once only
# share it, and with every one of them waiting for the interpreter in turn, answers came in
# twice the median time under load (issue 23; docs/deploy.md, «Capacity»). Embedded (SQLite):
# 64, as a request waiting for SQLite's write lock (up to 20 s, above) would hold a turn.
REQUEST_THREADS = env.int(
    "WEB_REQUEST_THREADS", default=64 if DATABASES["default"]["ENGINE"] == "django.db.backends.sqlite3" else 3
)
if REQUEST_THREADS < 1:
    raise ImproperlyConfigured("WEB_REQUEST_THREADS must be at least 1.")

# The tables' owner (docs/deploy.md, «The database's roles»): `manage.py migrate` and
# `manage.py db_grant` connect with DATABASE_OWNER_URL when it is set, and the processes that
# serve with DATABASE_URL, as a role that owns nothing and may not change the insert-only ledgers
# (bingo/common/db_roles.py). Unset, the app connects as the owner (`check --deploy` warns).
DATABASE_OWNER_URL = env.str("DATABASE_OWNER_URL", default="")

DEFAULT_AUTO_FIELD = "django.db.models.BigAutoField"

# --- the acta's signed receipts (docs/acta.md, «Signed receipts») -------------------------------

# The operator's Ed25519 key that signs each state of an acta: never in the database. Either
# ACTA_SIGNING_KEY (the key itself: a PEM PKCS8 private key, or base64 of its 32-byte seed) or
# ACTA_SIGNING_KEY_FILE (the path of a PEM file, `manage.py acta_keygen --output PATH` makes one).
# A PEM in one line of an environment file may spell its line breaks "\n" (multiline).
ACTA_SIGNING_KEY = env.str("ACTA_SIGNING_KEY", default="", multiline=True)
ACTA_SIGNING_KEY_FILE = env.str("ACTA_SIGNING_KEY_FILE", default="")
# With neither and debug on (make run, the tests, make up's default), a key of this machine,
# created on first use under var/ (git ignores it). With debug off there is none: `check
# --deploy` fails and signing refuses (actas/signing.py), rather than sign with a key no
# regulator registered.
ACTA_SIGNING_KEY_DEVELOPMENT_FILE = (
    str(VAR_DIR / "acta-signing-key.pem") if DEBUG and not (ACTA_SIGNING_KEY or ACTA_SIGNING_KEY_FILE) else ""
)

# --- redis: channel layer, Celery broker, cache -----------------------------------------------

REDIS_URL = env.str("REDIS_URL", default="")

if REDIS_URL:
    CHANNEL_LAYERS = {
        "default": {
            "BACKEND": "channels_redis.core.RedisChannelLayer",
            # Hundreds of displays join and leave at once: redis-py's default pool of 100
            # connections runs out, and its read timeout must outlast channels_redis's 5 s wait.
            # Only each worker's live hub joins groups, and renews them every 10 minutes
            # (bingo.live.fanout): a worker that died leaves its groups within half an hour.
            "CONFIG": {
                "hosts": [{"address": REDIS_URL, "max_connections": 1000, "socket_timeout": 10}],
                "group_expiry": 1800,
                # Installations (or test runs) sharing one Redis keep apart by their prefix.
                "prefix": env.str("CHANNEL_LAYER_PREFIX", default="asgi"),
            },
        }
    }
    # The cache holds the rate limits' counts (bingo/common/throttling.py), which count in each
    # process alone while Redis is down: a second to connect or answer, not the system's minutes
    # of a connect to a host that drops packets, so a request never hangs on it for long.
    CACHES = {
        "default": {
            "BACKEND": "django.core.cache.backends.redis.RedisCache",
            "LOCATION": REDIS_URL,
            "OPTIONS": {"socket_connect_timeout": 1, "socket_timeout": 1},
        }
    }
    CELERY_BROKER_URL = REDIS_URL
else:
    CHANNEL_LAYERS = {"default": {"BACKEND": "channels.layers.InMemoryChannelLayer"}}
    CACHES = {"default": {"BACKEND": "django.core.cache.backends.locmem.LocMemCache"}}
    # A broker on the local filesystem: a worker process on the same machine picks tasks up
    # with no server running.
    _broker_dir = VAR_DIR / "celery" / "broker"
    _broker_dir.mkdir(parents=True, exist_ok=True)
    CELERY_BROKER_URL = "filesystem://"
    _control_dir = VAR_DIR / "celery" / "control"
    _control_dir.mkdir(parents=True, exist_ok=True)
    CELERY_BROKER_TRANSPORT_OPTIONS = {
        "data_folder_in": str(_broker_dir),
        "data_folder_out": str(_broker_dir),
        "control_folder": str(_control_dir),
        "store_processed": False,
    }

# How often every live page hears from its server when nothing happens (bingo/live/fanout.py):
# a page that hears nothing for 2.5 intervals shows «A restabelecer a ligação…» and reconnects.
LIVE_HEARTBEAT_SECONDS = env.float("LIVE_HEARTBEAT_SECONDS", default=10.0)

# Task state that matters (progress of a long job) lives in PostgreSQL models, not in Celery.
CELERY_TASK_IGNORE_RESULT = True
CELERY_TASK_ACKS_LATE = True
CELERY_WORKER_PREFETCH_MULTIPLIER = 1
CELERY_TASK_ALWAYS_EAGER = env.bool("CELERY_TASK_ALWAYS_EAGER", default=False)
CELERY_TIMEZONE = "UTC"
# The queue tasks go to and workers read by default: one installation, one queue. The tests that
# start a real worker on a shared Redis give theirs a queue of its own.
CELERY_TASK_DEFAULT_QUEUE = env.str("CELERY_TASK_DEFAULT_QUEUE", default="celery")
# Periodic work, sent by `celery -A bingo.celery beat` (one beat process per installation).
# R52: once a day, the winning cards whose 8 days are over are recorded destroyed. They fall
# due at midnight on each hall's clock (bingo/engine/cards_kept.py); 01:15 UTC is 00:15 in Cape
# Verde. A hall elsewhere has them recorded within a day of falling due, and its manager can
# record them at once from the cards page (actas/cards/).
CELERY_BEAT_SCHEDULE = {
    "winning-cards-destroy-due": {
        "task": "actas.winning_cards_destroy_due",
        "schedule": crontab(hour=1, minute=15),
    },
    # The online rooms' loop (bingo/autodraw): every second, the work due (sessions, next games,
    # sales closing together, R93) and any drawing game whose next ball is overdue (its task was
    # lost with a killed worker: queued again, idempotent on the ball's position). A tick not
    # run within 2 s is dropped: the next one does the same work.
    "online-reconcile": {
        "task": "autodraw.reconcile",
        "schedule": 1.0,
        "options": {"expires": 2.0},
    },
    # Players' play sessions (bingo/playtime): every minute, end those idle too long, past the
    # player's time limit (R101) or inactive (PT-806/70-71), so their summaries are written even
    # if the player never comes back (PT-806/67).
    "playtime-end-due": {
        "task": "playtime.end_due",
        "schedule": 60.0,
        "options": {"expires": 50.0},
    },
}
# With debug on, a page not found is the site's own (bingo/middleware.py); true: Django's
# technical page, which lists the routes tried.
BINGO_TECHNICAL_404 = env.bool("BINGO_TECHNICAL_404", default=False)

# The demo's simulated online players (bingo/demohall): under `make run` they buy cards in every
# online game on sale, so the lobby shows real prize values. Never on a real system.
DEMO_BOTS = env.bool("DEMO_BOTS", default=False)
if DEMO_BOTS:
    CELERY_BEAT_SCHEDULE["demo-bots-buy"] = {
        "task": "demohall.bots_buy",
        "schedule": 5.0,
        "options": {"expires": 5.0},
    }
# R98 (PT-803/33, PT-806/72): an online game whose next ball is this many seconds overdue (the
# system was down too long to finish it in real time), or whose same ball task failed
# ONLINE_FAULT_FAILURES times with an unexpected error, is declared null by the reconciler and
# every card refunded to the wallets (docs/autodraw.md, «Faults»). A worker killed and started
# again within seconds is not a fault: the ball is queued again and the game goes on.
ONLINE_FAULT_AFTER = env.int("ONLINE_FAULT_AFTER", default=300)
ONLINE_FAULT_FAILURES = env.int("ONLINE_FAULT_FAILURES", default=3)

# --- e-mail (password reset, e-mail verification) -------------------------------------------

# EMAIL_URL, read by django-environ's email_url: in production the operator's SMTP server, e.g.
# smtp+tls://user:password@smtp.example.cv:587 (docs/deploy.md «E-mail»). Without it: in debug the
# console, and `make run` (runlocal) sets filemail:// so every mail is a file under var/mail/ a
# newcomer can open; with debug off, an SMTP server on localhost:25 (the `check --deploy` warns).
EMAIL_URL_SET = "EMAIL_URL" in env.ENVIRON
_email = env.email_url("EMAIL_URL", default="consolemail://" if DEBUG else "smtp://localhost:25")
EMAIL_BACKEND = _email["EMAIL_BACKEND"]
EMAIL_HOST = _email.get("EMAIL_HOST") or "localhost"
EMAIL_PORT = _email.get("EMAIL_PORT") or 25
EMAIL_HOST_USER = _email.get("EMAIL_HOST_USER") or ""
EMAIL_HOST_PASSWORD = _email.get("EMAIL_HOST_PASSWORD") or ""
EMAIL_USE_TLS = bool(_email.get("EMAIL_USE_TLS", False))
EMAIL_USE_SSL = bool(_email.get("EMAIL_USE_SSL", False))
EMAIL_TIMEOUT = env.int("EMAIL_TIMEOUT", default=10)
# filemail:///an/absolute/folder (django-environ drops the URL path's first slash), or
# filemail:// for var/mail/.
EMAIL_FILE_PATH = "/" + _email["EMAIL_FILE_PATH"] if _email.get("EMAIL_FILE_PATH") else str(VAR_DIR / "mail")
# The sender of the players' mails: the operator's address in production.
DEFAULT_FROM_EMAIL = env.str("DJANGO_DEFAULT_FROM_EMAIL", default="bingo@localhost")
# A password reset link, and an e-mail verification link, are valid this long (seconds).
PASSWORD_RESET_TIMEOUT = env.int("PASSWORD_RESET_TIMEOUT", default=60 * 60 * 24)
# Password reset requests per address, and per e-mail address asked about, in a sliding hour
# (bingo/accounts/views.py): a script cannot flood a mailbox nor the server.
PASSWORD_RESET_RATE = env.str("PASSWORD_RESET_RATE", default="10/hour")
PASSWORD_RESET_EMAIL_RATE = env.str("PASSWORD_RESET_EMAIL_RATE", default="3/hour")
# Verification mails a player may ask for again, per address, in a sliding hour.
EMAIL_VERIFY_SEND_RATE = env.str("EMAIL_VERIFY_SEND_RATE", default="5/hour")

# --- auth -------------------------------------------------------------------------------------

AUTH_PASSWORD_VALIDATORS = [
    {"NAME": "django.contrib.auth.password_validation.UserAttributeSimilarityValidator"},
    {"NAME": "django.contrib.auth.password_validation.MinimumLengthValidator"},
    {"NAME": "django.contrib.auth.password_validation.CommonPasswordValidator"},
    {"NAME": "django.contrib.auth.password_validation.NumericPasswordValidator"},
]
LOGIN_URL = "login"
LOGIN_REDIRECT_URL = "home"
LOGOUT_REDIRECT_URL = "login"

# How many proxies stand in front of the web server (docs/deploy.md, «The client's address»).
# Every rate limit and login lockout counts by the client's address (bingo/common/clients.py):
# with 0 the socket's, X-Forwarded-For ignored (any client may write it); with N the Nth address
# of X-Forwarded-For from the right, the one our outermost proxy appended. uvicorn runs with
# --no-proxy-headers so that the socket's address reaches Django as it is.
BINGO_TRUSTED_PROXIES = env.int("BINGO_TRUSTED_PROXIES", default=0)
if BINGO_TRUSTED_PROXIES < 0:
    raise ImproperlyConfigured("BINGO_TRUSTED_PROXIES is the number of proxies in front: 0 or more.")

# Password guessing (django-axes). Every login path calls authenticate(request, ...): /entrar/,
# /admin/login/ (the API takes no credentials: session authentication only). After 5 failures
# an account is refused, and so is an address, each counted on its own: a flat list of
# AXES_LOCKOUT_PARAMETERS locks by username OR by address ([["username", "ip_address"]] would
# lock only the pair, which an attacker defeats by spreading guesses). The lock lifts by itself
# 30 minutes after the failures, or sooner when a manager unlocks their staff or an address
# (/gerente/bloqueios/) or an administrator deletes the attempts in the Django admin. Attempts
# live in the database (axes' database handler: no cache, so no Redis on the login path), so
# each test's rollback forgets them. The address is the client's (BINGO_TRUSTED_PROXIES).
AUTHENTICATION_BACKENDS = [
    "axes.backends.AxesStandaloneBackend",  # first: refuses a locked-out login before any check
    # ModelBackend, reading a request's user with their roles and player (bingo/players/backends.py).
    "bingo.players.backends.UserBackend",
    # Only for the sessions it logged in before: they stay logged in (it logs no one in now,
    # UserBackend does; a refused login is tried by both).
    "django.contrib.auth.backends.ModelBackend",
]
AXES_FAILURE_LIMIT = 5
AXES_LOCKOUT_PARAMETERS = ["username", "ip_address"]
AXES_COOLOFF_TIME = timedelta(minutes=30)
# A login tried during a lockout is refused without moving its end: the page can say when it
# ends, and guessing is no faster (5 tries per 30 minutes either way).
AXES_RESET_COOL_OFF_ON_FAILURE_DURING_LOCKOUT = False
# A success does not wipe the failures: it would let one good account clear the count of its
# address, and with it the guesses at other accounts made from there.
AXES_RESET_ON_SUCCESS = False
# Every failed login is kept, one row each, for the audit trail the inspector reads (R61,
# actas/audit/selectors.py); AccessAttempt only counts the failures behind a lockout.
AXES_ENABLE_ACCESS_FAILURE_LOG = True
AXES_LOCKOUT_CALLABLE = "bingo.accounts.views.login_locked_out"
AXES_CLIENT_IP_CALLABLE = "bingo.common.clients.client_address"
# Our own log line names the account and the address (bingo/accounts/views.py log_lockout); axes's
# start banner would otherwise print on every manage.py command.
AXES_VERBOSE = False

# --- i18n: Portuguese first (R54), English available -------------------------------------------

LANGUAGE_CODE = "pt"
LANGUAGES = [("pt", _("Português")), ("en", _("English"))]
LOCALE_PATHS = [BASE_DIR / "locale"]
USE_I18N = True
USE_TZ = True
TIME_ZONE = "Atlantic/Cape_Verde"

# --- static files -----------------------------------------------------------------------------

STATIC_URL = "static/"
STATICFILES_DIRS = [BASE_DIR / "static"]
# Where collectstatic writes and production serves from; the server refuses to start with debug
# off until collectstatic has written its manifest there (bingo/checks.py).
STATIC_ROOT = Path(env.str("DJANGO_STATIC_ROOT", default=str(BASE_DIR / "staticfiles")))
STORAGES = {
    "default": {"BACKEND": "django.core.files.storage.FileSystemStorage"},
    "staticfiles": {
        "BACKEND": (
            "django.contrib.staticfiles.storage.StaticFilesStorage"
            if DEBUG
            else "whitenoise.storage.CompressedManifestStaticFilesStorage"
        )
    },
}
# In debug, WhiteNoise serves straight from the app and project static folders (no
# collectstatic), so `make run` under uvicorn shows its CSS; in production, STATIC_ROOT.
WHITENOISE_USE_FINDERS = DEBUG
MEDIA_ROOT = Path(env.str("DJANGO_MEDIA_ROOT", default=str(VAR_DIR / "media")))

# Where players reach the system: printed QR codes point at {BINGO_PUBLIC_URL}/verificar/...
BINGO_PUBLIC_URL = env.str("BINGO_PUBLIC_URL", default="http://127.0.0.1:8000").rstrip("/")

# --- online players (R85-R103) ----------------------------------------------------------------

# The youngest a player may register at: the legal age to gamble (no other age is set by the
# regulation the system follows; 18 unless the regulator says otherwise).
PLAYER_MIN_AGE = env.int("PLAYER_MIN_AGE", default=18)
# A player's play session ends after this many seconds without a request (bingo/playtime).
PLAYER_IDLE_TIMEOUT = env.int("PLAYER_IDLE_TIMEOUT", default=30 * 60)
# Registration's limits per address, in a sliding hour, the page and the API counted together
# (bingo/players/api.py RegistrationThrottle; docs/players.md says why these numbers): players
# registered, which is what mass account creation needs, and tries, failed validations included,
# which tell a script whether an e-mail or a username is taken. A hall's kiosk behind one
# address registers a player every two minutes, each getting the form wrong once.
PLAYER_REGISTER_RATE = env.str("PLAYER_REGISTER_RATE", default="30/hour")
PLAYER_REGISTER_ATTEMPT_RATE = env.str("PLAYER_REGISTER_ATTEMPT_RATE", default="60/hour")
# How players reach the operator about a complaint, shown on the rules page (R103, PT-806/66):
# e.g. "reclamacoes@operador.cv · +238 000 00 00". Empty: the page sends them to the hall's desk.
OPERATOR_CONTACT = env.str("BINGO_OPERATOR_CONTACT", default="")

# --- API --------------------------------------------------------------------------------------

REST_FRAMEWORK = {
    "DEFAULT_AUTHENTICATION_CLASSES": [
        "rest_framework.authentication.SessionAuthentication",
    ],
    "DEFAULT_PERMISSION_CLASSES": ["rest_framework.permissions.IsAuthenticated"],
    # The API reads JSON only (docs/api.md «Conventions»), refusing bodies nested too deeply with
    # 400 (bingo/common/parsers.py); a form body is 415. Forms cannot say null, a list of objects
    # or a number apart from text: a second encoding the schema would have to promise and every
    # field would have to read twice (issue 26).
    "DEFAULT_PARSER_CLASSES": ["bingo.common.parsers.JSONParser"],
    "DEFAULT_SCHEMA_CLASS": "bingo.common.schema.AutoSchema",
    # A service's django ValidationError becomes a 400 with field errors (bingo/common/api.py).
    "EXCEPTION_HANDLER": "bingo.common.api.exception_handler",
    # The public card check is throttled per address, one count for /verificar/ and the API
    # (cards/api.py CardCheckThrottle), and so is registration (bingo/common/throttling.py).
    "DEFAULT_THROTTLE_RATES": {
        "card_check": "30/minute",
        "player_register": PLAYER_REGISTER_RATE,
        "player_register_attempt": PLAYER_REGISTER_ATTEMPT_RATE,
        "password_reset": PASSWORD_RESET_RATE,
        "password_reset_email": PASSWORD_RESET_EMAIL_RATE,
        "email_verify_send": EMAIL_VERIFY_SEND_RATE,
    },
    # Any throttle of DRF's own reads the client's address as ours do (bingo/common/clients.py).
    "NUM_PROXIES": BINGO_TRUSTED_PROXIES,
}
SPECTACULAR_SETTINGS = {
    "TITLE": "Bingo hall management API",
    "DESCRIPTION": "Everything the screens do, for programs. Rules are cited as R1..R103.",
    "VERSION": "0.1.0",
    "SERVE_INCLUDE_SCHEMA": False,
    "SWAGGER_UI_DIST": "SIDECAR",
    "SWAGGER_UI_FAVICON_HREF": "SIDECAR",
    "REDOC_DIST": "SIDECAR",
    # Request bodies get components of their own (FooRequest): a field the server refuses blank
    # says minLength 1 there, a read-only one is left out (issue 26).
    "COMPONENT_SPLIT_REQUEST": True,
    # Choice sets met under more than one field name get one component each.
    "ENUM_NAME_OVERRIDES": {
        "LimitKindEnum": ["deposit", "loss"],
        "WalletEntryKindEnum": "bingo.models.WalletEntry.Kind",
        "ConfirmationEnum": [(True, True)],
        "ExclusionLengthEnum": "bingo.protection.services.EXCLUSION_CHOICES",
        "PauseLengthEnum": "bingo.protection.services.PAUSE_CHOICES",
    },
}

# --- security (production values when DEBUG is off) --------------------------------------------

SESSION_COOKIE_HTTPONLY = True
# Django's database sessions, loaded with one written-out statement on PostgreSQL.
SESSION_ENGINE = "bingo.common.sessions"
# A refused CSRF token is JSON under /api/ (bingo/common/api.py), the usual page elsewhere.
CSRF_FAILURE_VIEW = "bingo.common.api.csrf_failure"
X_FRAME_OPTIONS = "DENY"
SECURE_CONTENT_TYPE_NOSNIFF = True
SECURE_REFERRER_POLICY = "same-origin"
if not DEBUG:
    SECURE_PROXY_SSL_HEADER = ("HTTP_X_FORWARDED_PROTO", "https")
    SECURE_SSL_REDIRECT = env.bool("DJANGO_SECURE_SSL_REDIRECT", default=True)
    SESSION_COOKIE_SECURE = True
    CSRF_COOKIE_SECURE = True
    SECURE_HSTS_SECONDS = env.int("DJANGO_HSTS_SECONDS", default=60 * 60 * 24 * 365)
    SECURE_HSTS_INCLUDE_SUBDOMAINS = True
    SECURE_HSTS_PRELOAD = env.bool("DJANGO_HSTS_PRELOAD", default=True)

# --- content security policy (django-csp), in debug too --------------------------------------


def _websocket_sources(hosts: list[str], *, tls_only: bool) -> list[str]:
    """connect-src sources for websockets to the allowed hosts, any port (wss only behind TLS).

    Pages open their websocket to the host that served them. CSP Level 3 lets 'self' match
    ws:/wss: on that host, and Chromium and Firefox do; older Safari does not (WebKit bug
    201591), so the allowed hosts are named. IPv6 literals have no CSP host-source form: there
    only 'self' applies.
    """
    schemes = ["wss"] if tls_only else ["ws", "wss"]
    sources: list[str] = []
    for host in hosts:
        if host == "*":
            return [f"{scheme}:" for scheme in schemes]
        if host.startswith("["):
            continue
        names = [host[1:], f"*{host}"] if host.startswith(".") else [host]  # ".x.cv": x.cv and subdomains
        sources += [f"{scheme}://{name}:*" for name in names for scheme in schemes]
    return sources


# templates/500.html styles itself inline on purpose (it must render when static files fail):
# its one <style> block is allowed by hash. Edit that block and tests/test_settings.py says the
# new hash.
_SERVER_ERROR_STYLE_HASH = "'sha256-bv68zpOTgWdyTGohYQqs7aTF7DqrjnXuXEb0gm8HBo0='"

# Everything comes from our own origin: no inline script or event handler, no inline style
# (pages pass data through data- attributes and json_script, per-series colours are set by
# static/js/colours.js through the CSSOM, which CSP does not govern), no eval, no plugins, no
# framing (as X_FRAME_OPTIONS), no <base> or form posts elsewhere. No data: images: the QR codes
# are in the PDFs. PDFs are downloads (attachment), so Chromium's viewer never runs under it.
CONTENT_SECURITY_POLICY = {
    "DIRECTIVES": {
        "default-src": [SELF],
        "script-src": [SELF],
        "style-src": [SELF, _SERVER_ERROR_STYLE_HASH],
        "img-src": [SELF],
        "connect-src": [SELF, *_websocket_sources(ALLOWED_HOSTS, tls_only=not DEBUG and SECURE_SSL_REDIRECT)],
        "object-src": [NONE],
        "base-uri": [SELF],
        "frame-ancestors": [NONE],
        "form-action": [SELF],
    },
    # drf-spectacular's Swagger UI page starts Swagger with an inline <script> and styles itself
    # with an inline <style>; it shows the public schema and no data. The Django admin and the
    # browsable API need no exception.
    "EXCLUDE_URL_PREFIXES": ["/api/docs/"],
}

LOGGING = {
    "version": 1,
    "disable_existing_loggers": False,
    "filters": {"refusals_one_line": {"()": "bingo.common.logs.RefusalsOneLine"}},
    "handlers": {"console": {"class": "logging.StreamHandler"}},
    # A refused request (403) is one line with who and why, not a traceback (bingo/common/logs.py).
    "loggers": {"django.request": {"filters": ["refusals_one_line"]}},
    "root": {"handlers": ["console"], "level": env.str("DJANGO_LOG_LEVEL", default="INFO")},
}
