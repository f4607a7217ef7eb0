"""No markup is made from data: a step's panel crosses to the browser as data
(vizad/trace/panel.py), and the browser component builds its elements with DOM calls, every
piece of text set as text (issue 43: a script injection came from a panel written as HTML in
Python and inserted with innerHTML).

(a) No module of the trace layer or of the widget writes HTML tags in its strings, but for
the places listed in PYTHON_ALLOWED, each saying why. The stepper's static picture is built
with ElementTree (vizad/view/widget/snapshot.py), which escapes text itself.

(b) No source of the browser component (vizad/view/widget/static/: the stepper's modules and
boot.js; the committed bundle is built from them), of the JupyterLab / Notebook 7 extension
(frontend/labextension/src/, which rewrites a stepper's static picture when the reader steps;
vizad/labextension is built from it) nor of the slide deck (frontend/deck/) assigns
``innerHTML`` or ``outerHTML``, calls ``insertAdjacentHTML`` (or another way of parsing HTML
text), or holds markup in a string or template literal, but for the lines listed in
JS_ALLOWED. (ESLint's no-restricted-syntax in frontend/eslint.config.mjs says the same at lint
time.)

(c) The slide deck's built script (vizad/view/slides/deck.js: the deck and KaTeX, which a
deck page inlines) holds no HTML sink at all, and the page's own script makes no markup.

Each check is shown to see what it must see (the ``*_sees_*`` tests)."""

from __future__ import annotations

import ast
import re
from pathlib import Path

import vizad
from vizad.view.assets import STATIC

PACKAGE = Path(vizad.__file__).parent
LABEXTENSION = PACKAGE.parent / "frontend" / "labextension" / "src"
DECK_SOURCES = PACKAGE.parent / "frontend" / "deck"
SLIDES = PACKAGE / "view" / "slides"
#: An HTML tag (open or close) of the elements a page or a panel is made of.
TAG = re.compile(
    r"</?(?:tr|td|th|thead|tbody|table|div|span|b|i|em|strong|img|a|p|br|ul|ol|li|"
    r"script|style|svg|details|summary|button|input|label|select|option|pre|code|h[1-6]|"
    r"iframe|template|body|html|head)(?=[\s>/])",
    re.I,
)

#: (module, function) → why that function writes HTML tags (None: at module level).
PYTHON_ALLOWED = {
    # the shell of a stepper's output and of a page: a root element carrying the step, the
    # component's CSS, the data as a JSON script element (vizad.view.assets.json_element);
    # no user text but the escaped ids
    ("vizad/view/widget/page.py", "fragment"): "the output's shell: root, style, data",
    ("vizad/view/widget/page.py", "data_script"): "the data's JSON script element",
    ("vizad/view/widget/page.py", "page_data"): "reads a page's data element (a regex)",
    # the evaluation-trace tables of trace._repr_html_ (Griewank–Walther), every cell escaped:
    # another output than the stepper's panel, not sent to the component
    ("vizad/trace/display.py", "html_table"): "trace tables (_repr_html_), cells escaped",
}

#: (file, the line as written, stripped) → why that line is allowed.
JS_ALLOWED = {
    ("sanitize.js", "t.innerHTML = text;"): (
        "the SVG sanitizer: Graphviz's SVG text parsed in an inert <template>, then stripped"
    ),
    (
        "layout.js",
        'return { svg: svg.slice(svg.indexOf("<svg")), ms: performance.now() - start };',
    ): ("finds the SVG element in Graphviz's output (reads markup, makes none)"),
    (
        "worker.js",
        'postMessage({ svg: svg.slice(svg.indexOf("<svg")), ms: performance.now() - start });',
    ): ("finds the SVG element in Graphviz's output (reads markup, makes none)"),
}


# -- (a) Python ---------------------------------------------------------------------------
def python_markup(source: str) -> list[tuple[int, str | None, str]]:
    """The string literals of ``source`` (f-strings' literal parts too; docstrings not) that
    hold an HTML tag: (line, enclosing function or None, the text)."""
    tree = ast.parse(source)
    docstrings = set()
    owner: dict[int, str | None] = {}
    for node in ast.walk(tree):
        if isinstance(node, (ast.Module, ast.ClassDef, ast.FunctionDef, ast.AsyncFunctionDef)):
            body = node.body
            if body and isinstance(body[0], ast.Expr) and isinstance(body[0].value, ast.Constant):
                docstrings.add(id(body[0].value))
        if isinstance(node, (ast.FunctionDef, ast.AsyncFunctionDef)):
            for inner in ast.walk(node):
                owner.setdefault(id(inner), node.name)  # the outermost function
    found = []
    for node in ast.walk(tree):
        if (
            isinstance(node, ast.Constant)
            and isinstance(node.value, str)
            and id(node) not in docstrings
            and TAG.search(node.value)
        ):
            found.append((node.lineno, owner.get(id(node)), node.value))
    return found


def _python_sources() -> list[Path]:
    return sorted(
        [*(PACKAGE / "trace").rglob("*.py"), *(PACKAGE / "view" / "widget").rglob("*.py")]
    )


def test_python_check_sees_markup_in_strings():
    bad = 'def panel(x):\n    return f"<tr><td>{x}</td></tr>" + "<div class=\'a\'>"\n'
    assert [(line, f) for line, f, _ in python_markup(bad)] == [(2, "panel")] * 3
    assert python_markup('X = "</span>"\n')[0][:2] == (1, None)
    fine = (
        'def panel(x):\n    """Builds a <table> (docstrings may say so)."""\n'
        '    return ET.SubElement(x, "td"), "a < b", "<", "v<sub>"\n'
    )
    assert python_markup(fine) == []


def test_no_python_module_of_the_trace_or_the_widget_writes_markup():
    found = []
    for path in _python_sources():
        where = str(path.relative_to(PACKAGE.parent))
        for line, function, text in python_markup(path.read_text(encoding="utf-8")):
            if (where, function) not in PYTHON_ALLOWED:
                found.append(f"{where}:{line} ({function}): {text[:60]!r}")
    assert not found, "HTML written in Python (build data; the browser makes elements):\n" + (
        "\n".join(found)
    )
    listed = {where for where, _ in PYTHON_ALLOWED}
    assert listed <= {str(p.relative_to(PACKAGE.parent)) for p in _python_sources()}


def test_the_panel_module_is_gone_and_the_snapshot_is_built_with_elementtree():
    assert not (PACKAGE / "view" / "widget" / "panel.py").exists()
    snapshot = (PACKAGE / "view" / "widget" / "snapshot.py").read_text(encoding="utf-8")
    assert "ET.tostring(" in snapshot and python_markup(snapshot) == []


# -- (b) JavaScript -----------------------------------------------------------------------
#: Ways of turning text into elements, in code (not in strings or comments).
HTML_SINKS = re.compile(
    r"\.\s*(?:innerHTML|outerHTML)\s*\+?=(?!=)|\binsertAdjacentHTML\b|"
    r"\bcreateContextualFragment\b|\bdocument\s*\.\s*write(?:ln)?\b|\bparseFromString\b|"
    r"\bsetHTMLUnsafe\b|\.\s*srcdoc\b"
)
#: Markup in a string: a tag's start ("<div", "</td", "<tr data-now…").
MARKUP = re.compile(r"</?[A-Za-z]")
_REGEX_BEFORE = set("(,=:[!&|?{};+-*%~^<>")


def js_parts(source: str) -> tuple[str, list[tuple[int, str]]]:
    """``source`` split by a small lexer: the code with every comment, string, template and
    regular-expression literal blanked (line breaks kept), and the string and template
    literals' texts with their first lines (a template's ``${…}`` parts are code, lexed in
    turn)."""
    code: list[str] = []
    literals: list[tuple[int, str]] = []
    i, n, line = 0, len(source), 1
    braces: list[int] = []  # per open ${…}: the depth of { } inside it

    def blank(text: str) -> str:
        return re.sub(r"[^\n]", " ", text)

    def literal_until(end: str, start: int) -> int:
        """The index after the literal that starts at ``start`` and ends with ``end``."""
        j = start + 1
        while j < n and source[j] != end:
            j += 2 if source[j] == "\\" else 1
        return j + 1

    def template_from(start: int) -> int:
        """The index after the template part from ``start`` (after "`" or "}") to "`" or "${"."""
        j = start
        while j < n and source[j] != "`" and not source.startswith("${", j):
            j += 2 if source[j] == "\\" else 1
        return j

    while i < n:
        c = source[i]
        if source.startswith("//", i):
            j = source.find("\n", i)
            j = n if j < 0 else j
            code.append(blank(source[i:j]))
            i = j
        elif source.startswith("/*", i):
            j = source.find("*/", i + 2) + 2
            code.append(blank(source[i:j]))
            line += source.count("\n", i, j)
            i = j
        elif c in "'\"":
            j = literal_until(c, i)
            literals.append((line, source[i + 1 : j - 1]))
            code.append(c + blank(source[i + 1 : j - 1]) + c)
            i = j
        elif c == "`" or (c == "}" and braces and braces[-1] == 0):
            if c == "}":
                braces.pop()
            j = template_from(i + 1)
            literals.append((line, source[i + 1 : j]))
            code.append(c + blank(source[i + 1 : j]))
            line += source.count("\n", i, j)
            if source.startswith("${", j):
                braces.append(0)
                code.append("${")
                i = j + 2
            else:
                code.append("`")
                i = j + 1
        elif c == "/" and _regex_may_start(code):
            j = i + 1
            in_class = False
            while j < n and (source[j] != "/" or in_class) and source[j] != "\n":
                if source[j] == "\\":
                    j += 1
                elif source[j] == "[":
                    in_class = True
                elif source[j] == "]":
                    in_class = False
                j += 1
            code.append("/" + blank(source[i + 1 : j]) + "/")  # a pattern: reads, makes nothing
            i = j + 1
        else:
            if braces and c == "{":
                braces[-1] += 1
            elif braces and c == "}":
                braces[-1] -= 1
            if c == "\n":
                line += 1
            code.append(c)
            i += 1
    return "".join(code), literals


def _regex_may_start(code: list[str]) -> bool:
    """Whether a "/" here starts a regular expression: after an operator, or after the word
    ``return`` / ``typeof`` (not after a name, a number or a closing bracket: a division)."""
    text = "".join(code[-12:]).rstrip()
    if not text or text[-1] in _REGEX_BEFORE:
        return True
    return bool(re.search(r"\b(?:return|typeof|in|of)$", text))


def js_markup(source: str) -> list[tuple[int, str]]:
    """The lines of ``source`` (number, text stripped) that turn text into elements or hold
    markup in a literal."""
    code, literals = js_parts(source)
    lines = source.split("\n")
    hits = {code.count("\n", 0, m.start()) + 1 for m in HTML_SINKS.finditer(code)}
    for line, text in literals:
        found = MARKUP.search(text)
        if found:
            hits.add(line + text.count("\n", 0, found.start()))
    return [(k, lines[k - 1].strip()) for k in sorted(hits)]


def _js_sources() -> list[Path]:
    labextension = sorted(LABEXTENSION.glob("*.js"))
    assert labextension, f"no JavaScript in {LABEXTENSION}"
    deck = sorted(DECK_SOURCES.glob("*.mjs"))
    assert deck, f"no JavaScript in {DECK_SOURCES}"
    js = [*sorted((STATIC / "stepper").glob("*.js")), STATIC / "boot.js", STATIC / "shim.js"]
    return [*js, *labextension, *deck]


def test_js_check_sees_markup_and_html_sinks():
    bad = {
        "panel.innerHTML = rec.panel;": 1,
        "el.outerHTML += x;": 1,
        'p.querySelector("t")?.insertAdjacentHTML("afterbegin", head);': 1,
        "const row = `<tr>${cells}</tr>`;": 1,
        "const t = `so far ${n}</td>`;": 1,
        "const m = `${a ? `<b>${a}</b>` : ''}`;": 1,
        'rows.push(rec.row.replace("<tr", "<tr data-now"));': 1,
        "x = '</td><td>' + y;": 1,
        "new DOMParser().parseFromString(text, 'text/html');": 1,
        "document.write(x);": 1,
        "const t = `\n  <div class=x>${y}</div>`;": 2,
    }
    for source, line in bad.items():
        assert [k for k, _ in js_markup(source)] == [line], source
    fine = [
        'h("td", { text: name }); // sets innerHTML = never',
        "/* panel.innerHTML = x */ const a = b / c / d;",
        "if (a.innerHTML === b) f(`repeat(${n},auto)`);",
        "const re = /<svg/; const s = 'a < b';",
        'e.setAttributeNS("http://www.w3.org/2000/svg", "x"); // `<b>`',
        "const read = panel.innerHTML;",
        "const t = `${a ? `x${b}` : 'y'}`; const u = '<';",
    ]
    for source in fine:
        assert js_markup(source) == [], source


def test_no_component_source_makes_markup_from_text():
    found, used = [], set()
    for path in _js_sources():
        for line, text in js_markup(path.read_text(encoding="utf-8")):
            if (path.name, text) in JS_ALLOWED:
                used.add((path.name, text))
            else:
                found.append(f"{path.name}:{line}: {text}")
    assert not found, "markup made from text (build elements: h(), textContent):\n" + (
        "\n".join(found)
    )
    assert used == set(JS_ALLOWED), f"allowed but gone (remove them): {set(JS_ALLOWED) - used}"


def test_the_bundle_holds_no_html_sink_beyond_the_sources():
    """The committed bundle is its sources' text (tests/test_component_bundle.py checks it is
    up to date): it parses no more HTML text than they do."""
    bundle = (STATIC / "stepper.bundle.js").read_text(encoding="utf-8")
    code, _ = js_parts(bundle)
    assert len(HTML_SINKS.findall(code)) == 1  # sanitize.js's template, the one allowed


# -- (c) the slide deck --------------------------------------------------------------------
def html_sinks(script: str) -> list[str]:
    """The HTML sinks of a built script, found in its raw text: strings and comments are not
    set aside (the minified KaTeX inside deck.js is not for the small lexer above), so a sink
    merely named in a string counts too, which errs on the safe side."""
    return HTML_SINKS.findall(script)


def test_the_deck_check_sees_a_sink_added_to_the_script():
    script = (SLIDES / "deck.js").read_text(encoding="utf-8")
    for sink in ("slide.innerHTML = notes;", "bar.insertAdjacentHTML('beforeend', x);",
                 "frame.srcdoc = preview;", "document.write(x);"):  # fmt: skip
        assert len(html_sinks(script + "\n" + sink)) == 1, sink


def test_the_slide_deck_holds_no_html_sink():
    """vizad's own deck (frontend/deck/, scanned above with the component's sources, no line
    allowed) bundled with KaTeX and its auto-render extension (which build DOM nodes): no
    innerHTML, outerHTML, insertAdjacentHTML, document.write, DOMParser, srcdoc anywhere in
    it; reveal.js, which had 16, is gone. The page's own script (the template's last
    <script>) sets the mathematics and starts the deck, and makes no markup either."""
    script = (SLIDES / "deck.js").read_text(encoding="utf-8")
    assert "var vizadSlides = " in script and "function start(" in script  # the deck is in it
    assert "renderMathInElement" in script and "katex" in script  # and KaTeX
    assert "Reveal" not in script and "reveal.js" not in script
    assert html_sinks(script) == []
    template = (SLIDES / "template/index.html.j2").read_text(encoding="utf-8")
    glue = template.rsplit("<script>", 1)[1].split("</script>", 1)[0]
    assert "vizadSlides.start(" in glue and "renderMathInElement(" in glue
    assert js_markup(glue) == [] and html_sinks(glue) == []
    assert "Reveal" not in template and "location.search" not in template
