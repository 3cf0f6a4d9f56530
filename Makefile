# The two commands of the README: `make run` and `make test`. Both set everything up first.
PYTHON ?= $(shell command -v python3.11 || command -v python3)
VENV := .venv
BIN := $(VENV)/bin
INSTALLED := $(VENV)/.installed
PORT ?= 8000

.PHONY: run test install lint typecheck pytest migrate demo bench clean

run: install migrate demo ## set up and start web, worker and beat on the embedded default
	@echo "Gateway on http://127.0.0.1:$(PORT)  (admin: /admin/, contract: /openapi.json, docs: /docs/)"
	PATH="$(CURDIR)/$(BIN):$$PATH" PORT=$(PORT) $(BIN)/honcho start

test: install lint typecheck pytest ## set up, lint, type-check and run the test suite

install: $(INSTALLED) .env

$(INSTALLED): pyproject.toml
	test -x $(BIN)/python || $(PYTHON) -m venv $(VENV)
	$(BIN)/python -m pip install -qq --disable-pip-version-check --upgrade pip
	$(BIN)/python -m pip install -qq --disable-pip-version-check -e '.[dev]'
	touch $@

.env:
	sed "s|^DJANGO_SECRET_KEY=.*|DJANGO_SECRET_KEY=$$($(PYTHON) -c 'import secrets; print(secrets.token_urlsafe(50))')|" .env.example > $@

lint: install
	$(BIN)/ruff format --check .
	$(BIN)/ruff check .

typecheck: install
	$(BIN)/mypy .

pytest: install
	$(BIN)/pytest

migrate: install
	$(BIN)/python manage.py migrate --noinput

demo: migrate ## load the demo catalog once (skipped when products exist)
	$(BIN)/python manage.py seed_demo --if-empty

bench: install ## measure against DESIGN.md section 11 (scratch database under var/)
	$(BIN)/python bench/match.py
	$(BIN)/python bench/recommend.py

clean:
	rm -rf $(VENV) var .env
