# The two commands: `make run` (demo on embedded defaults) and `make test` (the whole suite).
# Both create .venv with Python 3.11 and install the pinned requirements when they change.

PYTHON ?= $(shell command -v python3.11 2>/dev/null || command -v python3)
VENV   := .venv
BIN    := $(VENV)/bin
PY     := $(BIN)/python
STAMP  := $(VENV)/.installed

.PHONY: run serve up test lint format bench install lock clean messages contract schema

$(PY):
	@$(PYTHON) -c 'import sys; sys.exit(sys.version_info < (3, 11))' 2>/dev/null \
		|| { echo "Python 3.11 or newer is needed: make PYTHON=/path/to/python3.11 ..."; exit 1; }
	$(PYTHON) -m venv $(VENV)

$(STAMP): $(PY) requirements.txt requirements-dev.txt
	$(BIN)/pip install --quiet --upgrade pip
	$(BIN)/pip install --quiet -r requirements.txt -r requirements-dev.txt
	@touch $(STAMP)

install: $(STAMP)

## Serve the system on http://127.0.0.1:8000 with demo data (SQLite, in-process layer, local broker).
run: $(STAMP)
	DJANGO_DEBUG=true $(PY) manage.py runlocal

## Production start, debug off, configured by the environment (README "Production"): migrate
## as the tables' owner (DATABASE_OWNER_URL), grant the app's role (DATABASE_URL) its privileges,
## collect the static files, check the deployment, then serve behind the TLS proxy. uvicorn leaves
## the socket's address alone: the application reads X-Forwarded-For as far as BINGO_TRUSTED_PROXIES
## (the number of proxies in front, from the environment) says (docs/deploy.md). Websockets go
## uncompressed: each live message is one frame encoded once for every screen (docs/live.md).
HOST ?= 127.0.0.1
PORT ?= 8001
WORKERS ?= 4
serve: export DJANGO_DEBUG = false
serve: $(STAMP)
	$(PY) manage.py migrate --noinput
	$(PY) manage.py db_grant
	$(PY) manage.py collectstatic --noinput
	$(PY) manage.py check --deploy --database default
	$(PY) -m bingo.serve --host $(HOST) --port $(PORT) --workers $(WORKERS) \
		--no-proxy-headers --ws-per-message-deflate false

## The production topology on this machine, for a try (Procfile, docs/deploy.md): WEB_WORKERS
## ASGI workers on :PORT, a Celery worker and Celery beat, on the PostgreSQL and Redis of
## DATABASE_URL and REDIS_URL (several processes share nothing else). With DATABASE_OWNER_URL,
## migrations run as the owner and the processes as DATABASE_URL's role, created and granted by
## db_grant (docs/deploy.md "The database's roles"). Debug stays on unless DJANGO_DEBUG=false
## (which then wants the production settings of README "Production").
WEB_WORKERS ?= 2
up: export DJANGO_DEBUG ?= true
up: export DEMO_BOTS ?= true
up: $(STAMP)
	@test -n "$$DATABASE_URL" -a -n "$$REDIS_URL" || { echo "make up runs several processes: set DATABASE_URL (PostgreSQL, the app's role), DATABASE_OWNER_URL (the tables' owner) and REDIS_URL (Redis), e.g. DATABASE_OWNER_URL=postgres://postgres@127.0.0.1:5432/bingo DATABASE_URL=postgres://bingo_app@127.0.0.1:5432/bingo REDIS_URL=redis://127.0.0.1:6379/0 make up"; exit 1; }
	$(PY) manage.py migrate --noinput
	$(PY) manage.py db_grant
	$(PY) manage.py demo_setup --base-url http://127.0.0.1:$(PORT)
	@mkdir -p var/celery
	PORT=$(PORT) WEB_WORKERS=$(WEB_WORKERS) $(BIN)/honcho start -f Procfile

## The whole suite: SQLite by default; PostgreSQL and Redis when DATABASE_URL / REDIS_URL are set.
PYTEST_ARGS ?= -n auto
test: $(STAMP)
	$(PY) -m pytest $(PYTEST_ARGS)

lint: $(STAMP)
	$(BIN)/ruff check .
	$(BIN)/ruff format --check .
	$(BIN)/mypy bingo halls cards actas
	$(BIN)/lint-imports
	$(PY) scripts/check_import_cycles.py
	$(PY) scripts/check_function_length.py
	$(PY) manage.py check
	$(PY) manage.py makemigrations --check --dry-run
	$(PY) scripts/check_messages.py

format: $(STAMP)
	$(BIN)/ruff format .
	$(BIN)/ruff check --fix .

## Benchmarks print their figures (set DATABASE_URL to measure persistence on PostgreSQL).
## bench/online_screens.py needs PostgreSQL and Redis: DATABASE_URL and REDIS_URL, by default
## postgres://postgres@127.0.0.1:5432/bingo_bench_screens and redis://127.0.0.1:6379/14.
bench: $(STAMP)
	$(PY) bench/cards.py
	$(PY) bench/persist.py
	$(PY) bench/print.py
	$(PY) bench/sales.py
	$(PY) bench/sales.py --rate 500
	$(PY) bench/sales.py --cashiers 32
	$(PY) bench/detection.py
	$(PY) bench/jackpot_odds.py
	$(PY) bench/display.py
	$(PY) bench/online_screens.py
	$(PY) bench/acta.py
	$(PY) bench/online_buy.py
	$(PY) bench/online_draw.py

## Re-pin requirements*.txt from requirements*.in.
lock: $(PY)
	$(BIN)/pip install --quiet pip-tools==7.6.2
	$(BIN)/pip-compile --quiet --allow-unsafe --strip-extras --no-emit-index-url --no-emit-find-links -o requirements.txt requirements.in
	$(BIN)/pip-compile --quiet --allow-unsafe --strip-extras --no-emit-index-url --no-emit-find-links -o requirements-dev.txt requirements-dev.in

## The API contract run: Schemathesis against a real server, as each role (docs/api-contract.md).
## Needs DATABASE_URL (a PostgreSQL database of its own: the run fills it) and REDIS_URL.
## Write the OpenAPI schema the code generates to docs/openapi.yaml (a test holds them equal).
schema: $(STAMP)
	$(PY) manage.py spectacular --file docs/openapi.yaml

contract: $(STAMP)
	$(PY) scripts/api_contract.py

## Extract and compile the translation catalogues (needs GNU gettext for makemessages).
messages: $(STAMP)
	$(PY) manage.py makemessages -l en -l pt --ignore=.venv --ignore=staticfiles
	$(PY) scripts/check_messages.py --compile

clean:
	rm -rf $(VENV) var staticfiles .pytest_cache .mypy_cache .ruff_cache .hypothesis
