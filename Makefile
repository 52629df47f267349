# mcp-matrix. Every target does its own set-up: a fresh clone needs nothing but python3 (3.11+).
PYTHON ?= python3
VENV := .venv
PY := $(VENV)/bin/python
STAMP := $(VENV)/.installed
PYTEST := $(PY) -m pytest
# pytest-xdist workers: the tests mostly wait on their peers, so 8 keeps 2 cores busy (see make bench); a worker
# out of tests takes some of another's (worksteal), so the run's end is not one worker's queue.
WORKERS ?= 8
XDIST = -n $(WORKERS) --dist worksteal

.PHONY: setup spec sarif-schema test conformance falsify matrix lint bench stability run clean
.PHONY: referee targets implementations mutate capture-real calibrate

$(STAMP): pyproject.toml
	$(PYTHON) -m venv $(VENV)
	$(PY) -m pip install --quiet --upgrade pip
	$(PY) -c "import tomllib; print('\n'.join(tomllib.load(open('pyproject.toml', 'rb'))['project']['dependencies']))" > $(VENV)/requirements.txt
	$(PY) -m pip install --quiet -r $(VENV)/requirements.txt
	touch $(STAMP)

setup: $(STAMP) spec sarif-schema

spec: $(STAMP)
	$(PY) -m conformance spec

## The SARIF 2.1.0 schema the validator's tests check its SARIF report against (a pinned npm package, sha256-checked).
sarif-schema: $(STAMP)
	$(PY) -m conformance.validator.sarif_schema

## Run every test: the machinery's own tests, the meta-test and the suite against the default target
## (--strict: a SHOULD not followed or an inconclusive cell fails the run, so that the matrix stays exact),
## keeping every trace; then the two judges on those traces (issue #14's calibration): each trace validated
## offline and held to the suite's verdict on its cells; a disagreement, named with both verdicts, fails the run.
test: setup lint targets
	$(PYTEST) $(XDIST) --strict --keep-traces tests conformance; status=$$?; \
	if [ $$status -eq 5 ]; then echo "pytest collected no tests: the suite is broken, not green" >&2; fi; \
	[ $$status -eq 0 ] || exit $$status
	$(PY) -m conformance.capture.calibration
	$(MAKE) --no-print-directory falsify
	$(MAKE) --no-print-directory referee

## Run every test that declares a fault under that fault; each must fail at its own check (see coverage/<area>.py).
## --strict: a test the harness could not finish under its fault (inconclusive) proves nothing, so it fails the run.
## Then the client cells the SDK does not offer (its profile's N-NNN gaps: tasks, mostly), on the TypeScript
## SDK's client, which offers them, and at 2026-07-28, which that client does not speak, on fastmcp's.
falsify: setup targets
	$(PYTEST) $(XDIST) --strict --falsify conformance
	$(PYTEST) $(XDIST) --strict --falsify conformance --target ts-sdk-client --not-offered-by sdk-python
	$(PYTEST) $(XDIST) --strict --falsify conformance --target fastmcp-client --not-offered-by sdk-python \
		-k 2026-07-28

## Run the suite against the default implementation (the pinned SDK): the headline, the report in
## reports/sdk-python/, then the matrix summary.
conformance: setup
	$(PYTEST) $(XDIST) --strict conformance; status=$$?; $(PY) -m conformance summary; exit $$status

## Regenerate conformance/requirements.json and docs/spec/conformance-matrix.{md,json}.
matrix: setup
	$(PY) -m conformance generate

lint: $(STAMP)
	$(PY) -m ruff check .
	$(PY) -m ruff format --check .

## The mutation sweep: every tested cell under each generic wire mutation; the tests none kills, per area
## (reports/mutation-sweep.md). A measurement, not a gate: not part of make test.
mutate: setup
	$(PY) -m conformance mutate --workers $(WORKERS)

## Time each stage of the machinery (median of several runs).
bench: setup
	WORKERS=$(WORKERS) $(PY) -m conformance bench

## The timing-dependent client tests (cancellation, progress, tasks, ping, timeouts, races: conformance/cli/stability.py)
## REPEAT times in a row on the default target (TARGET= another); lists every item whose outcome changed, exit 1 if any.
REPEAT ?= 20
stability: setup
	$(PY) -m conformance stability --repeat $(REPEAT) --workers $(WORKERS) $(if $(TARGET),--target $(TARGET))

## Run exactly the tests covering requirement ids or areas: make run REQ="lifecycle-server-version-echo tools"
run: setup
	$(PY) -m conformance run $(REQ)

## The pinned official suite (referee/baseline.yaml) against the fixture server and the client driver:
## install it into .cache/referee (once), run every profile, gate each, cross-check with the matrix.
referee: setup
	$(PY) -m conformance referee all

## The real implementations that targets/*.yaml put under test, from the package registries at pinned versions
## (targets/package-lock.json, targets/requirements/*.txt), into .cache/targets: once per lock (see targets/install.py).
targets:
	$(PYTHON) targets/install.py

## A capture of a real client and server no one here wrote (the TypeScript SDK's client against the npm "everything"
## server, over stdio and Streamable HTTP, through `python -m conformance capture`), validated offline: each
## report's headline (conformance/capture/real.py).
capture-real: setup targets
	$(PY) -m conformance.capture.real

## The two judges (issue #14): the suite against the default target (TARGET= another) keeping every trace, then
## each trace validated offline and held to the suite's verdict, cell by cell (conformance/capture/calibration.py):
## the figures, and every disagreement with both verdicts (exit 1 if any).
calibrate: setup
	$(PYTEST) $(XDIST) -q --keep-traces conformance $(if $(TARGET),--target $(TARGET)) > /dev/null; \
	$(PY) -m conformance.capture.calibration --target $(or $(TARGET),sdk-python)

## Every target profile run (the default and the real ones: make targets), then docs/implementations.md
## from their reports. A target's MUST failures do not stop the others; each is read in its report.
implementations: setup targets
	for profile in targets/*.yaml; do \
		name=$$(basename $$profile .yaml); \
		$(PYTEST) $(XDIST) conformance --target $$name -q >/dev/null; \
		echo "$$name: exit $$? ($$(grep -o '"headline": "[^"]*"' reports/$$name/report.json))"; \
	done
	$(PY) -m conformance implementations

clean:
	rm -rf $(VENV) .cache reports
