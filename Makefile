# Two commands do everything: `make demo` and `make test`. Both set up .venv themselves.
PYTHON ?= python3
VENV := .venv
BIN := $(VENV)/bin
STAMP := $(VENV)/.installed
TORCH_STAMP := $(VENV)/.torch
TORCH_VERSION := 2.13.0

.PHONY: demo test quick fmt lint typecheck pytest venv torch clean extension editors editors-all test-vscode

$(BIN)/python:
	$(PYTHON) -m venv $(VENV)
	$(BIN)/python -m pip install --quiet --upgrade pip

$(STAMP): pyproject.toml | $(BIN)/python
	$(BIN)/python -m pip install --quiet -e '.[test]'
	touch $@

# torch runs the ground-truth tests; pinned exactly so that no CUDA build is ever pulled.
$(TORCH_STAMP): | $(BIN)/python
	$(BIN)/python -m pip install --quiet torch==$(TORCH_VERSION) numpy
	touch $@

venv: $(STAMP)
torch: $(TORCH_STAMP)

demo: $(STAMP)
	@echo '$$ errknow-ls records list'
	@$(BIN)/errknow-ls records list
	@echo
	@echo '$$ errknow-ls records lint'
	@$(BIN)/errknow-ls records lint
	@echo
	@echo '$$ errknow-ls check examples/'
	@# Exit 1 means "found something": the examples are buggy on purpose.
	@$(BIN)/errknow-ls check examples/ || test $$? -eq 1
	@echo
	@echo '$$ errknow-ls explain examples/*.log'
	@# Exit 1 means "explained something": the demo's success.
	@$(BIN)/errknow-ls explain examples/*.log || test $$? -eq 1

# The fast inner loop: lint, types and the tests that need neither an editor nor torch (no
# packaging build either). `make test` runs everything.
quick: $(STAMP)
	$(BIN)/ruff check errknow_ls tests benchmarks
	$(BIN)/ruff format --check errknow_ls tests benchmarks
	$(BIN)/lint-imports
	$(BIN)/mypy
	$(BIN)/python -m pytest -q -x --ignore=tests/editors -m 'not torch and not packaging' $(PYTEST_ARGS)

# Rewrite the sources as `make lint` wants them: ruff's fixes and its formatter.
fmt: $(STAMP)
	$(BIN)/ruff check --fix errknow_ls tests benchmarks
	$(BIN)/ruff format errknow_ls tests benchmarks

lint: $(STAMP)
	$(BIN)/ruff check errknow_ls tests benchmarks
	$(BIN)/ruff format --check errknow_ls tests benchmarks
	$(BIN)/lint-imports

typecheck: $(STAMP) $(TORCH_STAMP)
	$(BIN)/mypy

# The VS Code extension: npm ci when the lock file changes, then tsc, eslint and its node tests (the
# problem matchers on tracebacks printed by .venv's Python, the server lookup); part of `make test`.
EXTENSION := editors/vscode
NODE_STAMP := $(EXTENSION)/node_modules/.package-lock.json

$(NODE_STAMP): $(EXTENSION)/package-lock.json
	cd $(EXTENSION) && npm ci --no-audit --no-fund
	touch $@

extension: $(NODE_STAMP) $(STAMP)
	cd $(EXTENSION) && npm run typecheck && npm run lint && ERRKNOW_PYTHON=$(abspath $(BIN)/python) npm test

# The installable extension: editors/vscode/errknow-ls.vsix, carrying errknow-ls and its dependencies
# (built for .venv's Python and this platform: see editors/vscode/scripts/bundle.py).
editors: $(NODE_STAMP) $(STAMP)
	cd $(EXTENSION) && ERRKNOW_BUNDLE_PYTHON=$(abspath $(BIN)/python) npm run package

# One .vsix per platform VS Code publishes extensions for (editors/vscode/errknow-ls-<target>.vsix),
# each carrying that platform's compiled dependencies for every Python in VSIX_PYTHONS: pip fetches
# the wheels of each (see editors/vscode/scripts/bundle.py). `make editors` builds this machine's.
VSIX_TARGETS ?= linux-x64 linux-arm64 darwin-x64 darwin-arm64 win32-x64
VSIX_PYTHONS ?= 3.11 3.12 3.13 3.14
editors-all: $(NODE_STAMP) $(STAMP)
	cd $(EXTENSION) && for target in $(VSIX_TARGETS); do \
		$(abspath $(BIN)/python) scripts/bundle.py --target $$target $(foreach v,$(VSIX_PYTHONS),--python $(v)) && \
		npx vsce package --allow-missing-repository --target $$target --out errknow-ls-$$target.vsix || exit 1; \
	done

# The VS Code end-to-end scenario alone (`make test` runs it too; it installs code-server and Chromium).
test-vscode: $(STAMP) $(TORCH_STAMP)
	ERRKNOW_E2E_VSCODE=1 $(BIN)/python -m pytest tests/editors/test_vscode.py $(PYTEST_ARGS)

# The suite on every core: a module's tests run on one worker (its fixtures are made once), and the real
# editors' end-to-end modules on one worker together (tests/conftest.py). PYTEST_WORKERS=0: one process.
PYTEST_WORKERS ?= auto
pytest: $(STAMP) $(TORCH_STAMP)
	$(BIN)/python -m pytest -n $(PYTEST_WORKERS) $(PYTEST_ARGS)

test: lint typecheck extension pytest

clean:
	rm -rf $(VENV) build dist .mypy_cache .pytest_cache .ruff_cache test-artifacts
	rm -rf $(EXTENSION)/node_modules $(EXTENSION)/out $(EXTENSION)/e2e/node_modules $(EXTENSION)/*.vsix
