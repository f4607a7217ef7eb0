"""No Python module of vizad writes JavaScript: every ``<script>`` element Python emits (a
stepper's notebook output, a quiz's, a drawing laid out in the browser, an exported page) is
either data (``type="application/json"``, which reads as JSON) or a module script holding only
the text of files under vizad/view/widget/static/ (the component's bundle, boot.js). What to mount
and how is data: the mount element (``data-vizad-mount``) that static/boot.js reads."""

from __future__ import annotations

import json
from html.parser import HTMLParser

import pytest

import vizad as vz
from vizad.view import sharing
from vizad.view.assets import STATIC


class _Scripts(HTMLParser):
    """The ``<script>`` elements of an HTML text: (attributes, text) in order."""

    def __init__(self):
        super().__init__(convert_charrefs=False)
        self.found: list[tuple[dict, str]] = []
        self._open: dict | None = None

    def handle_starttag(self, tag, attrs):
        if tag == "script":
            self._open = dict(attrs)
            self.found.append((self._open, ""))

    def handle_data(self, data):
        if self._open is not None:
            attrs, text = self.found[-1]
            self.found[-1] = (attrs, text + data)

    def handle_endtag(self, tag):
        if tag == "script":
            self._open = None


def scripts(html: str) -> list[tuple[dict, str]]:
    parser = _Scripts()
    parser.feed(html)
    parser.close()
    return parser.found


#: The text of every JavaScript file of the component, longest first (the bundle holds none
#: of the others whole, but a file is taken out before any file it could contain).
FILES = sorted((p.read_text(encoding="utf-8") for p in STATIC.rglob("*.js")), key=len, reverse=True)


def file_text_only(code: str) -> bool:
    """Whether ``code`` is the text of static files only, joined by whitespace."""
    for text in FILES:
        code = code.replace(text, "")
    return code.strip() == ""


def check(html: str) -> list[dict]:
    """Asserts that every script of ``html`` is JSON data or file text; returns the mount
    elements' options."""
    mounts = []
    found = scripts(html)
    assert found, "no script at all"
    for attrs, text in found:
        if attrs.get("type") == "application/json":
            data = json.loads(text)
            if "data-vizad-mount" in attrs:
                mounts.append(data)
        else:
            assert attrs == {"type": "module"}, attrs
            assert file_text_only(text), "a module script holds text of no static file"
    assert sum(attrs.get("type") == "module" for attrs, _ in found) == len(mounts) == 1
    return mounts


@pytest.fixture(autouse=True)
def _fresh(monkeypatch):
    monkeypatch.delenv("VIZAD_DISPLAY", raising=False)
    sharing.forget()
    yield
    sharing.forget()


def test_the_check_sees_javascript_written_in_python():
    boot = (STATIC / "boot.js").read_text(encoding="utf-8")
    assert file_text_only("\n" + boot) and file_text_only("")
    assert not file_text_only(boot + '\nvizadBoot("a", "a-data", {});')
    assert not file_text_only(boot.replace("8000", "9000"))


def test_stepper_outputs_carry_data_and_files_only():
    first, second = (
        vz.Stepper(vz.examples.lecture())._repr_mimebundle_()[0]["text/html"] for _ in range(2)
    )
    (carrying,) = check(first)
    (waiting,) = check(second)
    assert "globalThis.vizadComponent ??=" in first and "globalThis.vizadComponent" in second
    assert len(second) < len(first) - 100_000  # the component once per notebook
    for html, mount in ((first, carrying), (second, waiting)):
        assert f'id="{mount["root"]}"' in html and f'id="{mount["data"]}"' in html
    assert carrying["root"] != waiting["root"]


def test_a_quiz_output_and_a_quiz_page(tmp_path):
    st = vz.Stepper(vz.examples.lecture(), quiz=True)
    (mount,) = check(st._repr_mimebundle_()[0]["text/html"])
    assert mount["graphviz"] is False
    page = vz.export_html(st, tmp_path / "quiz.html").read_text(encoding="utf-8")
    (mount,) = check(page)
    assert mount == {
        "root": "vz-root",
        "data": "vz-data",
        "focus": True,
        "scale": mount["scale"],
        "notebook": False,
    }


def test_pictures_and_pages_laid_out_in_the_browser(tmp_path, monkeypatch):
    monkeypatch.setenv("VIZAD_LAYOUT", "browser")
    x = vz.Variable("x")
    for expression in (vz.sin(x) * x, vz.cos(x)):  # the first carries the component
        (mount,) = check(vz.draw(expression)._repr_mimebundle_()["text/html"])
        assert mount["picture"] is True and mount["graphviz"] is True
    page = vz.export_html(vz.examples.lecture(), tmp_path / "page.html").read_text()
    (mount,) = check(page)
    assert mount["graphviz"] is True and mount["graphvizId"] == "vz-graphviz"


def test_a_mount_element_cannot_be_closed_by_user_text():
    """The mount element is written as the data elements are (vizad.view.assets.json_element)."""
    from vizad.view.assets import boot_elements

    html = boot_elements({"root": "</script><script>alert(1)</script>", "data": "d"}, False)
    ((attrs, text), (module, code)) = scripts(html)
    assert "data-vizad-mount" in attrs and json.loads(text)["root"].startswith("</script>")
    assert module == {"type": "module"} and file_text_only(code)


def test_no_file_can_end_its_script_element():
    """The files are inlined in a script element: none holds "<script" or "</script"."""
    for path in STATIC.rglob("*.js"):
        assert "<script" not in path.read_text(encoding="utf-8").lower(), path.name
        assert "</script" not in path.read_text(encoding="utf-8").lower(), path.name
