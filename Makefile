# Set-up and everyday commands. Each target installs only what is missing, so
# running it a second time skips the work already done.

PYTHON ?= python3
VENV   ?= .venv
PY     := $(VENV)/bin/python
PORT   ?= 8888
# JupyterLab refuses to run as root unless told it may (containers, CI machines)
ROOT_FLAG := $(if $(filter 0,$(shell id -u)),--allow-root,)

.PHONY: lab site docs dist test lint typecheck fuzz adversarial bench gallery golden notebooks slides frontend setup-notebook setup-test graphviz clean

## make lab: set up, then start JupyterLab on the tutorials in notebooks/
lab: setup-notebook graphviz
	$(VENV)/bin/jupyter lab --notebook-dir=notebooks --port=$(PORT) $(ROOT_FLAG)

## make test: set up with the test extras, then run every test (the browser tests need
## Debian's chromium: installed here when we may, otherwise those tests are skipped; the
## LaTeX tests compile with pdflatex, amsmath and booktabs, which are installed here; the
## JupyterLite site is built first: tests/browser/test_site.py opens it)
test: setup-test graphviz lint site docs
	@sh tools/ensure-system-package chromium chromium || echo "(browser tests will be skipped)"
	@sh tools/ensure-system-package pdftoppm poppler-utils || echo "(PDF frames will not be opened)"
	@sh tools/ensure-system-package pdflatex texlive-latex-base
	@sh tools/ensure-system-package tex:booktabs.sty texlive-latex-recommended
	VIZAD_REQUIRE_BUILT=1 $(PY) -m pytest

## make docs: the documentation site in docs/_build/html/ (Sphinx: the API reference made from
## the docstrings, a page per public name; the README, the notes, the tutorials, the CLI);
## warnings are errors
docs: setup-test
	$(PY) -m sphinx -W --keep-going -q -b html docs docs/_build/html

## make dist: build the wheel and the sdist into dist/, then install the sdist with its test
## extras into a fresh environment and run its tests there (not the browser tests)
dist: setup-test
	$(PY) tools/check-dist

## make site: build a JupyterLite site of the tutorials in build/site/ (serve it with
## `python -m http.server -d build/site`): vizad, its wheel and extension, the notebooks at their
## saved steps; Pyodide comes from its CDN unless PYODIDE=path/to/pyodide-*.tar.bz2 is given
SITE_VENV ?= .venv-site
site: setup-notebook $(SITE_VENV)/.installed
	$(PY) tools/build-site --venv $(SITE_VENV) $(if $(PYODIDE),--pyodide $(PYODIDE),)

# JupyterLite's build tools in an environment of their own: the Pyodide kernel's JupyterLab
# extension must not load in the project's JupyterLab
$(SITE_VENV)/.installed:
	$(PYTHON) -m venv $(SITE_VENV)
	$(SITE_VENV)/bin/pip install --quiet jupyterlite-core==0.8.6 \
	    jupyterlite-pyodide-kernel==0.8.6 jupyter-server==$(shell $(PY) -c \
	    "import importlib.metadata as m; print(m.version('jupyter-server'))")
	touch $@

## make lint: ruff's lint rules and its format check (`ruff format .` to reformat), and the
## type check
lint: setup-test typecheck
	$(VENV)/bin/ruff check .
	$(VENV)/bin/ruff format --check .

## make typecheck: mypy on the public modules (the files and settings in pyproject.toml's
## [tool.mypy]; tests/test_typing.py checks that every public callable is annotated)
typecheck: setup-test
	$(VENV)/bin/mypy

## make fuzz N=5000: the differential test against JAX on N more random graphs
N ?= 5000
fuzz: setup-test
	cd tests && ../$(PY) differential.py $(N)

## make adversarial: the adversarial suite (tests/adversarial/, also run by make test): hostile
## inputs by category, each a right result or a clear VizadError; prints the counts by category
## (recorded in docs/adversarial.md) and every failure
adversarial: setup-test graphviz
	$(PY) tests/adversarial/run.py

## make bench: run the benchmarks in bench/ (figures go to docs/benchmarks.md by hand)
bench: setup-test graphviz
	$(PY) bench/engine.py
	$(PY) bench/trace.py
	$(PY) bench/render.py
	$(PY) bench/folding.py
	$(PY) bench/widget.py
	$(PY) bench/export.py
	$(PY) bench/eager.py
	$(PY) bench/scalar_mlp.py
	$(PY) bench/memory.py
	$(PY) bench/imports.py
	$(PY) bench/browser_layout.py
	$(PY) bench/bridges.py

## make notebooks: re-execute every tutorial and store its outputs (review the diff). Widget
## state is not stored: a stepper's output carries an HTML rendering of its component, which
## GitHub, nbconvert and a notebook reopened without its kernel show instead
notebooks: setup-test graphviz
	$(PY) tools/make-exercises
	$(VENV)/bin/jupyter nbconvert --to notebook --execute --inplace \
	    --ExecutePreprocessor.timeout=300 --ExecutePreprocessor.kernel_name=python3 \
	    notebooks/*.ipynb notebooks/exercises/solutions/*.ipynb
	$(PY) tools/drop-widget-state notebooks/*.ipynb notebooks/exercises/solutions/*.ipynb
	$(PY) tools/slide-metadata notebooks/*.ipynb

## make slides NOTEBOOK=notebooks/05_reverse_mode.ipynb: present a tutorial as reveal.js slides
## (its outputs as stored; a browser tab opens on the slides)
slides: setup-notebook
	$(VENV)/bin/jupyter nbconvert --to slides --post serve "$(NOTEBOOK)"

## make gallery: screenshots of the example graphs at 1024×768 in docs/gallery/ (review them)
gallery: setup-test graphviz
	$(PY) docs/gallery.py

## make golden: rewrite the golden DOT and LaTeX files of tests/golden/ (review the diff first)
golden: setup-test graphviz
	VIZAD_REGENERATE_GOLDEN=1 $(PY) -m pytest -q tests/test_render.py tests/test_latex.py -k golden

## make frontend: rebuild vizad/widget/static/graphviz.js (Graphviz as WebAssembly, for machines
## without `dot`) from frontend/, and vizad/labextension/ (the JupyterLab / Notebook 7 renderer
## of a stepper's output) from frontend/labextension/, with the versions pinned in their
## lockfiles; needs Node and npm, which users and CI do not: the built files are committed
frontend: setup-notebook
	cd frontend && npm ci --no-audit --no-fund && sh build.sh
	rm -rf vizad/labextension
	cd frontend/labextension && npm ci --no-audit --no-fund && \
	    PATH="$(abspath $(VENV))/bin:$$PATH" jupyter-builder build .

setup-notebook: $(VENV)/.installed-notebook
setup-test: $(VENV)/.installed-test

$(PY):
	$(PYTHON) -m venv $(VENV)

# an editable install: JupyterLab finds this checkout's extension (vizad/labextension) by a link
LINK_LABEXTENSION = rm -rf $(VENV)/share/jupyter/labextensions/vizad && \
    mkdir -p $(VENV)/share/jupyter/labextensions && \
    ln -s $(CURDIR)/vizad/labextension $(VENV)/share/jupyter/labextensions/vizad

$(VENV)/.installed-notebook: pyproject.toml | $(PY)
	$(PY) -m pip install --quiet -e '.[notebook]'
	$(LINK_LABEXTENSION)
	touch $@

$(VENV)/.installed-test: pyproject.toml | $(PY)
	$(PY) -m pip install --quiet -e '.[test]'
	$(LINK_LABEXTENSION)
	touch $@ $(VENV)/.installed-notebook

## make graphviz: make sure Graphviz's dot program is installed
graphviz:
	@sh tools/ensure-system-package dot graphviz

clean:
	rm -rf $(VENV) build *.egg-info
