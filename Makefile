# Set-up and everyday commands. Each target installs only what is missing, so
# running it a second time skips the work already done.

PYTHON ?= python3
VENV   ?= .venv
PY     := $(VENV)/bin/python
PORT   ?= 8888
# JupyterLab refuses to run as root unless told it may (containers, CI machines)
ROOT_FLAG := $(if $(filter 0,$(shell id -u)),--allow-root,)

.PHONY: lab site docs dist test check test-js lint lint-js typecheck format component fuzz adversarial bench gallery golden notebooks slides slides-deck frontend setup-notebook setup-test graphviz bubblewrap widgets-lowest clean

## make lab: set up, then start JupyterLab on the tutorials in notebooks/
lab: setup-notebook graphviz bubblewrap
	$(VENV)/bin/jupyter lab --notebook-dir=notebooks --port=$(PORT) $(ROOT_FLAG)

# nbval on the tutorials (pytest alone does not load it: pyproject.toml's addopts)
NOTEBOOK_TESTS = -p nbval --nbval --nbval-sanitize-with notebooks/nbval-sanitize.cfg --nbval-current-env

## make test: set up with the test extras, then run every test, in parallel (pytest-xdist:
## one worker per core; a file's tests stay on one worker, in order, --dist loadfile: a
## notebook's cells share its kernel, a browser file's tests its servers), and the browser
## component's unit tests (node --test). The CI command.
## (The browser tests need Debian's chromium: installed here when we may, otherwise those
## tests are skipped; the LaTeX tests compile with pdflatex, amsmath and booktabs, which are
## installed here; Node is installed for the JavaScript unit tests. The JupyterLite site and
## the documentation are built first: tests/browser/test_site.py and tests/test_docs.py open them;
## so is the environment of the lowest jupyter-widgets, make widgets-lowest, about 2 min the first
## time, which tests/browser/test_widgets_lowest.py runs JupyterLab in.)
test: setup-test graphviz bubblewrap lint test-js site docs widgets-lowest
	@sh tools/ensure-system-package chromium chromium || echo "(browser tests will be skipped)"
	@sh tools/ensure-system-package pdftoppm poppler-utils || echo "(PDF frames will not be opened)"
	@sh tools/ensure-system-package pdflatex texlive-latex-base
	@sh tools/ensure-system-package tex:booktabs.sty texlive-latex-recommended
	VIZAD_REQUIRE_BUILT=1 $(PY) -m pytest -n auto --dist loadfile $(NOTEBOOK_TESTS) tests notebooks

## make docs: the documentation site in docs/_build/html/ (Sphinx: the API reference made from
## the docstrings, a page per public name; the README, the guides of docs/guides/ with their
## code run (the bridges' guide imports PyTorch and JAX: the test extras), the notes, the
## tutorials, the CLI); warnings are errors, and so is a guide's cell that raises
docs: setup-test bubblewrap
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

## make widgets-lowest: an environment of its own with the LOWEST jupyter-widgets of the range
## vizad supports (pyproject.toml: jupyterlab_widgets 3.0.8, i.e. @jupyter-widgets/jupyterlab-manager
## 5.0.8, the first for JupyterLab 4, with ipywidgets 8.0.7), the project's JupyterLab and this
## checkout's vizad (editable); tests/browser/test_widgets_lowest.py steps a walkthrough live in
## it (skipped without it). The highest of the range is the project's own environment.
WIDGETS_VENV ?= .venv-widgets-lowest
widgets-lowest: setup-notebook $(WIDGETS_VENV)/.installed

$(WIDGETS_VENV)/.installed: pyproject.toml
	$(PYTHON) -m venv $(WIDGETS_VENV)
	$(WIDGETS_VENV)/bin/pip install --quiet -e . ipywidgets==8.0.7 jupyterlab_widgets==3.0.8 \
	    jupyterlab==$(shell $(PY) -c \
	    "import importlib.metadata as m; print(m.version('jupyterlab'))")
	touch $@

## make check: lint and the fast tests (docs/benchmarks.md has its time): ruff, the wings'
## contracts, the type check, the JavaScript unit tests when Node is here, and the Python tests
## without browsers, notebooks and slow runs (the markers browser, notebook and slow; a
## slow_family keeps one case of a long family; make test runs all). `pytest` alone is quicker
## still: it leaves out the heavy tests too (grader, command line, adversarial suite)
check: setup-test bubblewrap
	$(VENV)/bin/ruff check .
	$(VENV)/bin/ruff format --check .
	$(VENV)/bin/lint-imports --no-logo
	$(VENV)/bin/mypy
	@if command -v node >/dev/null 2>&1; then node --test frontend/tests/*.test.mjs; \
	    else echo "(no Node: the JavaScript unit tests are skipped; make test runs them)"; fi
	$(PY) -m pytest tests -q -n auto --dist loadfile -m "not browser and not notebook and not slow"

## make test-js: the unit tests of the browser component's logic (frontend/tests/, node --test,
## no npm packages): the quiz's reader and judge on tests/quiz_cases.json (Python's cases),
## search, the viewport's maths, the page's model, the slide deck's steps and fit
test-js:
	@sh tools/ensure-system-package node nodejs
	node --test frontend/tests/*.test.mjs

## make lint: ruff's lint rules and its format check (`ruff format .` to reformat); the wings'
## layers (import-linter's contracts in pyproject.toml, `lint-imports`); ESLint
## (no-undef: a name used without its import) and Prettier on the browser component when npm
## is here (frontend/'s pinned packages, installed by npm ci); the type check (make typecheck)
lint: setup-test typecheck
	$(VENV)/bin/ruff check .
	$(VENV)/bin/ruff format --check .
	$(VENV)/bin/lint-imports --no-logo
	@if command -v npm >/dev/null 2>&1; then $(MAKE) --no-print-directory lint-js; \
	    else echo "(no npm: ESLint and Prettier are skipped)"; fi

ESLINT   = frontend/node_modules/.bin/eslint --config frontend/eslint.config.mjs
PRETTIER = frontend/node_modules/.bin/prettier --config frontend/.prettierrc.json

# Prettier checks the build script and the unit tests; the component's modules keep their
# own layout (compact one-line ifs Prettier would split: ~1,000 lines) until `make format`
lint-js: frontend/node_modules/.installed
	$(ESLINT) vizad/view/widget/static/stepper vizad/view/widget/static/boot.js vizad/view/widget/static/shim.js frontend/labextension/src frontend/deck frontend/*.mjs frontend/tests
	$(PRETTIER) --check frontend/*.mjs frontend/deck frontend/tests

## make format: ruff format, and Prettier on all the JavaScript (the component's modules too)
format: setup-test frontend/node_modules/.installed
	$(VENV)/bin/ruff format .
	$(PRETTIER) --write vizad/view/widget/static/stepper/*.js frontend/*.mjs frontend/deck frontend/tests
	node frontend/build-component.mjs
	node frontend/build-slides.mjs

## make component: rebuild vizad/view/widget/static/stepper.bundle.js, the browser component's one
## module, from its ES modules in vizad/view/widget/static/stepper/ (entry mount.js) with the esbuild
## pinned in frontend/package-lock.json; commit the bundle (users and CI need no Node; a test
## checks the hash of the sources recorded in the bundle)
component: frontend/node_modules/.installed
	node frontend/build-component.mjs

frontend/node_modules/.installed: frontend/package-lock.json
	cd frontend && npm ci --no-audit --no-fund
	touch $@

## make typecheck: mypy on the public modules, the op modules and the bridges (the files and
## settings in pyproject.toml's [tool.mypy]; tests/test_typing.py checks that every public
## callable is annotated, and that no module of vizad/engine/ops or vizad/bridges is left out)
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

## make bench: every benchmark of bench/ in a row, each in a process of its own, and its output
## written into docs/benchmarks.md under its command, the commit and the load (bench/report.py;
## --only NAME... again runs some: `$(PY) bench/report.py --only eager tape`). About 30 minutes;
## run it on an idle machine. valgrind (bench/imports.py's instruction counts) and chromium
## (the JupyterLab and page timings) are installed when missing.
bench: setup-test graphviz bubblewrap
	@sh tools/ensure-system-package valgrind valgrind || echo "(instruction counts will be skipped)"
	@sh tools/ensure-system-package chromium chromium || echo "(browser timings will fail)"
	$(PY) bench/report.py

## make notebooks: re-execute every tutorial and store its outputs (review the diff). Widget
## state is not stored: a stepper's output carries an HTML rendering of its component, which
## GitHub, nbconvert and a notebook reopened without its kernel show instead
notebooks: setup-test graphviz bubblewrap
	$(PY) tools/make-exercises
	$(VENV)/bin/jupyter nbconvert --to notebook --execute --inplace \
	    --ExecutePreprocessor.timeout=300 --ExecutePreprocessor.kernel_name=python3 \
	    notebooks/*.ipynb notebooks/exercises/solutions/*.ipynb
	$(PY) tools/drop-widget-state notebooks/*.ipynb notebooks/exercises/solutions/*.ipynb
	$(PY) tools/slide-metadata notebooks/*.ipynb

## make slides NOTEBOOK=notebooks/05_reverse_mode.ipynb: a tutorial as slides (its outputs as
## stored) in build/slides/NAME.slides.html, one file that needs no network (vizad's deck,
## KaTeX and their style inlined: python -m vizad slides); open it in a browser, from disk
slides: setup-notebook
	mkdir -p build/slides
	$(PY) -m vizad slides "$(NOTEBOOK)" -o "build/slides/$(basename $(notdir $(NOTEBOOK))).slides.html"

## make slides-deck: rebuild vizad/view/slides/deck.js and deck.css (vizad's deck from
## frontend/deck/, and KaTeX as pinned in frontend/package-lock.json, its licence in
## deck.LICENSES.txt); commit them (users and CI need no Node; tests/test_slides.py checks a
## fresh build equals them)
slides-deck: frontend/node_modules/.installed
	node frontend/build-slides.mjs

## make gallery: screenshots of the example graphs at 1024×768 in docs/gallery/ (review them)
gallery: setup-test graphviz
	$(PY) docs/gallery.py

## make golden: rewrite the golden DOT and LaTeX files of tests/golden/ (review the diff first)
golden: setup-test graphviz
	VIZAD_REGENERATE_GOLDEN=1 $(PY) -m pytest -q tests/test_render.py tests/test_latex.py -k golden

## make frontend: rebuild vizad/view/widget/static/graphviz.js (Graphviz as WebAssembly, for machines
## without `dot`) from frontend/, the component's bundle (as make component), and vizad/labextension/ (the JupyterLab / Notebook 7 renderer
## of a stepper's output) from frontend/labextension/, with the versions pinned in their
## lockfiles; needs Node and npm, which users and CI do not: the built files are committed
frontend: setup-notebook frontend/node_modules/.installed
	cd frontend && sh build.sh
	node frontend/build-component.mjs
	node frontend/build-slides.mjs
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
	$(PY) -m pip install --quiet -e '.[tutorials]'
	$(LINK_LABEXTENSION)
	touch $@

$(VENV)/.installed-test: pyproject.toml | $(PY)
	$(PY) -m pip install --quiet -e '.[test]'
	$(LINK_LABEXTENSION)
	touch $@ $(VENV)/.installed-notebook

## make graphviz: make sure Graphviz's dot program is installed
graphviz:
	@sh tools/ensure-system-package dot graphviz

## make bubblewrap: make sure bwrap is installed (the grader jails each submission with it;
## without it, as root, a user of its own; elsewhere it refuses untrusted code)
bubblewrap:
	@sh tools/ensure-system-package bwrap bubblewrap

clean:
	rm -rf $(VENV) build *.egg-info
