# The two commands of the README: `make run` and `make test`. Both set everything up first.
PYTHON ?= $(shell command -v python3.11 || command -v python3)
VENV := .venv
BIN := $(VENV)/bin
INSTALLED := $(VENV)/.installed
PORT ?= 8000
# The signing key (intent mandates, the agent card) `make run` uses when none is configured: an EC
# P-256 key (ES256) for a new setup; a key file that exists, RSA or EC, is used as it is.
DEV_SIGNING_KEY := var/mandate-signing-key.pem

.PHONY: run test test-fast install sidecars lint typecheck pytest migrate demo signing-key dev-signing-key bench bench-calibrate bench-scale bench-tools relevance load tour clean conformance-tools

run: install signing-key migrate demo ## set up and start web, worker and beat on the embedded default
	@# The links are printed once the web role answers (gateway/web_banner.py, beside honcho).
	@# Ctrl-C is how it ends: honcho stops every process and exits 130, which is no error.
	@HOST_="$${HOST:-127.0.0.1}"; case "$$HOST_" in 0.0.0.0|"") HOST_=127.0.0.1;; esac; \
	$(BIN)/python gateway/web_banner.py --url "http://$$HOST_:$(PORT)" \
		--base "$${PUBLIC_BASE_URL:-http://127.0.0.1:$(PORT)}" & \
	PATH="$(CURDIR)/$(BIN):$$PATH" PORT=$(PORT) $(BIN)/honcho start || [ $$? -eq 130 ]

test: install lint typecheck pytest ## set up, lint, type-check and run the test suite

install: $(INSTALLED) .env

$(INSTALLED): pyproject.toml
	test -x $(BIN)/python || $(PYTHON) -m venv $(VENV)
	$(BIN)/python -m pip install -qq --disable-pip-version-check --upgrade pip
	$(BIN)/python -m pip install -qq --disable-pip-version-check -e '.[dev]'
	touch $@

.env:
	sed "s|^DJANGO_SECRET_KEY=.*|DJANGO_SECRET_KEY=$$($(PYTHON) -c 'import secrets; print(secrets.token_urlsafe(50))')|" .env.example > $@

# Intent mandates: with no signing key in the environment or .env, `make run` names the
# development key in .env (once, as it writes the secret key there); whenever .env names that key
# and it is missing (a fresh clone, `rm -rf var`), it is generated before anything loads settings,
# which would refuse a named file that does not exist. keygen itself runs with signing unset.
signing-key: install ## sign intent mandates with a development key unless one is configured
	@if [ -z "$$MANDATE_SIGNING_KEY_FILE$$MANDATE_SIGNING_KEY" ] \
		&& ! grep -qsE '^MANDATE_SIGNING_KEY(_FILE)?=.' .env; then \
		[ -z "$$(tail -c1 .env)" ] || echo >> .env; \
		echo "MANDATE_SIGNING_KEY_FILE=$(DEV_SIGNING_KEY)" >> .env; \
		echo "Intent mandates are signed with the development key $(DEV_SIGNING_KEY) (see .env)"; \
	fi

dev-signing-key: install
	@if [ -z "$$MANDATE_SIGNING_KEY_FILE$$MANDATE_SIGNING_KEY" ] && [ ! -f $(DEV_SIGNING_KEY) ] \
		&& grep -qsx 'MANDATE_SIGNING_KEY_FILE=$(DEV_SIGNING_KEY)' .env; then \
		MANDATE_SIGNING_KEY_FILE= MANDATE_SIGNING_KEY= $(BIN)/python manage.py mandate_keygen \
			--algorithm ES256 --output $(DEV_SIGNING_KEY) --configured; \
	fi

# Older releases of packages the venv holds newer (an a2a-sdk 0.3 client, ucp-sdk 0.4), each apart
# under .venv/sidecars/, for the tests that check the gateway against both lines.
sidecars: install
	@$(BIN)/python tests/support/sidecars.py

lint: install
	$(BIN)/ruff format --check .
	$(BIN)/ruff check .

typecheck: install
	$(BIN)/mypy .

# The suite runs on parallel workers, one a core and one more, at most 4 (each has a Redis
# database, a var/ directory and a test database of its own: tests/support/isolation.py): many
# tests wait on processes of their own, and the worker more keeps the cores busy meanwhile.
# `--dist load` hands out tests by their place in the collection: the contract fuzzing's tests
# share one node id, which the grouping modes (loadscope, loadgroup) would run once. Then the
# fault suite runs apart, two tests at a time (they hold workers to deadlines), and last, alone,
# its tests that stop the PostgreSQL server every test shares (GATEWAY_FAULTS_RESTART_DB=1) or
# hold the Procfile's roles to a minute after Redis returns.
PYTEST_WORKERS ?= $(shell echo $$(( $$(nproc 2>/dev/null || echo 1) + 1 )))
PARALLEL := -n $(PYTEST_WORKERS) --maxprocesses 4 --dist load
pytest: install dev-signing-key sidecars
	$(BIN)/pytest $(PARALLEL) --ignore=tests/faults
	$(BIN)/pytest -n 2 --dist load -m "not alone" tests/faults
	$(BIN)/pytest -m alone tests/faults

# The edit loop: everything but the slow suites (docs/development.md lists what each runs). The
# suites left out are not even collected: the contract fuzzing plans its cases as it is collected.
test-fast: install dev-signing-key sidecars ## the edit loop: the suite without its slow parts, in parallel
	$(BIN)/pytest $(PARALLEL) --ignore=tests/faults --ignore=tests/contract --ignore=tests/browser \
		-m "not processes"

migrate: install dev-signing-key
	$(BIN)/python manage.py migrate --noinput

# The README's tour (its blocks marked `<!-- tour: -->`) against the gateway `make run` serves, or
# the one at B (`make tour B=http://host:port`); tests/docs/test_tour.py runs the same blocks in
# the suite. A gateway that does not answer at B is named before anything runs, with how to point
# the tour elsewhere (curl alone would end the tour on its exit code 7, without a word).
# Before the last block, which asks for recommendations, a gateway without an engine says so and
# the tour ends there.
B ?= http://127.0.0.1:$(PORT)
TOUR_ENGINE_CHECK := if [ "$$(curl -s -o /dev/null -w '%{http_code}' "$$B/v1/recommend?intent=tour")" = 503 ]; then echo "(no intent engine configured: recommendations skipped; see docs/engine.md)"; exit 0; fi
tour: ## run the README's tour against the running gateway (make run; same PORT, or B=URL)
	@export B='$(B)'; curl -s -o /dev/null --max-time 10 "$$B/healthz" || { \
		echo "No gateway answers at $$B: start one with \`make run\`, or point the tour at yours" \
			"with \`make tour PORT=9000\` (or \`make tour B=http://host:port\`)." >&2; exit 1; }; \
	awk -v check='$(TOUR_ENGINE_CHECK)' \
		'/^<!-- tour:/ { n++; if (n > 1) print check; take = 1; next } \
		 take && /^```sh$$/ { inside = 1; next } inside && /^```$$/ { inside = take = 0; next } inside' \
		README.md | sed 's|^B=http://127.0.0.1:8000|B="$$B"|' | bash -euo pipefail

demo: migrate ## load the demo catalog once (skipped when products exist)
	$(BIN)/python manage.py seed_demo --if-empty

bench: install bench-tools ## every budget of DESIGN.md section 11 in one table (scratch databases only)
	$(BIN)/python bench/budgets.py

# Once, on an idle machine: the ratio budgets (docs/benchmarks.md, calibration).
bench-calibrate: install bench-tools ## make bench, then write the budgets' ratios (idle machine only)
	$(BIN)/python bench/budgets.py --calibrate

bench-scale: install ## the gateway at 10k, 100k and 1M products (scratch databases only)
	$(BIN)/python bench/scale.py

# The load generator of the cards and concurrency figures, a Debian package.
SUDO := $(shell [ "$$(id -u)" = 0 ] || echo sudo)
bench-tools:
	@command -v wrk >/dev/null || { echo "Installing wrk with apt-get"; \
		$(SUDO) apt-get update -qq && $(SUDO) apt-get install -y -qq wrk >/dev/null; }

relevance: install ## the labelled queries against the real catalog, on SQLite and PostgreSQL if configured
	$(BIN)/python relevance/run.py

load: install ## gunicorn on loopback under a bounded mixed workload (scratch database under var/)
	$(BIN)/python bench/load.py

clean:
	rm -rf $(VENV) var .env

# The MCP conformance suite (tests/agents/test_mcp_conformance.py) runs on Node.js 22, which the
# machine's node may not be: both come from npm, the suite at the version the test pins, into
# .venv/mcp-conformance. `make install` leaves them out; without them the test skips.
MCP_CONFORMANCE := $(VENV)/mcp-conformance
MCP_CONFORMANCE_SUITE := @modelcontextprotocol/conformance@0.2.0-alpha.12
MCP_CONFORMANCE_NODE := node-linux-$(if $(filter aarch64 arm64,$(shell uname -m)),arm64,x64)@22
conformance-tools: ## Node.js 22 and the MCP conformance suite, from npm, for the suite's MCP test
	@[ -f $(MCP_CONFORMANCE)/.installed ] && grep -qxF '$(MCP_CONFORMANCE_SUITE)' $(MCP_CONFORMANCE)/.installed \
		|| { npm install --prefix $(MCP_CONFORMANCE) --no-save --no-audit --no-fund --loglevel=error \
			--engine-strict=false $(MCP_CONFORMANCE_NODE) $(MCP_CONFORMANCE_SUITE) \
		&& echo '$(MCP_CONFORMANCE_SUITE)' > $(MCP_CONFORMANCE)/.installed; }
