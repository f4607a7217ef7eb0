"""Every exported page carries a Content-Security-Policy (issue 46): a ``<meta
http-equiv="Content-Security-Policy">`` first in its head, letting run exactly the page's own
inline scripts (by their SHA-256 hashes, computed here from the text between their tags) and
nothing else: no 'unsafe-inline' or 'unsafe-eval' for scripts, so that an event handler
attribute (``onerror=``) let through by a missed escape cannot run. What the browser does with
the policy: tests/browser/test_page_policy.py."""

from __future__ import annotations

import base64
import hashlib
from html.parser import HTMLParser

import pytest

import vizad as vz
from vizad.trace.text import escape


class _Head(HTMLParser):
    """The first element of an HTML text's head and the inline scripts' (attributes, text)."""

    def __init__(self):
        super().__init__(convert_charrefs=True)
        self.first: tuple[str, dict] | None = None
        self.scripts: list[tuple[dict, str]] = []
        self._in_head = False
        self._script: dict | None = None

    def handle_starttag(self, tag, attrs):
        if self._in_head and self.first is None:
            self.first = (tag, dict(attrs))
        self._in_head = self._in_head or tag == "head"
        if tag == "script":
            self._script = dict(attrs)
            self.scripts.append((self._script, ""))

    def handle_data(self, data):
        if self._script is not None:
            attrs, text = self.scripts[-1]
            self.scripts[-1] = (attrs, text + data)

    def handle_endtag(self, tag):
        if tag == "script":
            self._script = None


def policy_of(html: str) -> tuple[dict[str, list[str]], list[str]]:
    """The page's policy (directive → sources) and the texts of its scripts that run (not
    data)."""
    parser = _Head()
    parser.feed(html)
    parser.close()
    assert parser.first is not None, "no element in the head"
    tag, attrs = parser.first
    assert tag == "meta" and attrs.get("http-equiv") == "Content-Security-Policy", parser.first
    directives: dict[str, list[str]] = {}
    for part in attrs["content"].split(";"):
        name, *sources = part.split()
        assert name not in directives, name
        directives[name] = sources
    running = [text for attrs, text in parser.scripts if attrs.get("type") != "application/json"]
    assert all("src" not in attrs for attrs, _ in parser.scripts)
    return directives, running


def sha256(text: str) -> str:
    return "'sha256-" + base64.b64encode(hashlib.sha256(text.encode()).digest()).decode() + "'"


def check_page(html: str) -> dict[str, list[str]]:
    """Asserts the page's policy lets run exactly its inline scripts and nothing else."""
    policy, running = policy_of(html)
    assert running, "no script"
    assert policy["default-src"] == ["'none'"]
    script = policy["script-src"]
    hashes = {s for s in script if s.startswith("'sha256-")}
    assert hashes == {sha256(text) for text in running}
    assert len(script) == len(set(script))
    graphviz = 'id="vz-graphviz"' in html
    assert set(script) - hashes == ({"blob:", "'wasm-unsafe-eval'"} if graphviz else set())
    assert ("worker-src" in policy) == graphviz
    if graphviz:
        assert policy["worker-src"] == ["blob:"]
    for sources in policy.values():
        assert (
            not {"'unsafe-inline'", "'unsafe-eval'", "*", "data:", "http:", "https:"} & set(sources)
            or sources == policy["style-src"]
        )
    assert policy["style-src"] == ["'unsafe-inline'"]
    assert policy["base-uri"] == policy["form-action"] == ["'none'"]
    assert set(policy) <= {
        "default-src",
        "script-src",
        "style-src",
        "worker-src",
        "base-uri",
        "form-action",
    }
    return policy


@pytest.mark.parametrize("layout", ["dot", "browser"])
def test_every_page_lets_run_its_own_scripts_only(tmp_path, monkeypatch, layout):
    monkeypatch.setenv("VIZAD_LAYOUT", layout)
    pages = {
        "lecture": vz.export_html(vz.examples.lecture(), tmp_path / "lecture.html"),
        "quiz": vz.export_html(vz.examples.lecture(), tmp_path / "quiz.html", quiz=True),
        "stepper": vz.export_html(vz.Stepper(vz.examples.lecture()), tmp_path / "stepper.html"),
        "rnn": vz.export_html(vz.examples.rnn(steps=12), tmp_path / "rnn.html", collapse="repeats"),
    }
    for name, path in pages.items():
        html = path.read_text(encoding="utf-8")
        policy = check_page(html)
        # the page as it is laid out: Graphviz (and what it needs) only where it lays out
        laid_out_here = layout == "browser" or name == "rnn"
        assert ("blob:" in policy["script-src"]) == laid_out_here, name
    # the same policy each time
    again = vz.export_html(vz.examples.lecture(), tmp_path / "again.html")
    assert policy_of(again.read_text("utf-8")) == policy_of(pages["lecture"].read_text("utf-8"))


def test_the_check_sees_a_wrong_policy(tmp_path):
    html = vz.export_html(vz.examples.lecture(), tmp_path / "p.html").read_text("utf-8")
    check_page(html)
    (hash_,) = [escape(s) for s in policy_of(html)[0]["script-src"]]
    for wrong in (
        # a script's text changed after hashing
        html.replace("PATIENCE_MS = 8000", "PATIENCE_MS = 9000", 1),
        html.replace(hash_, hash_ + " " + escape("'unsafe-inline'"), 1),
        html.replace(escape("default-src 'none'"), "default-src *", 1),
        html.replace('<meta http-equiv="Content-Security-Policy"', "<meta name=x", 1),
        html.replace("<head>", "<head><meta charset=utf-8>", 1),
    ):
        assert wrong != html
        with pytest.raises(AssertionError):
            check_page(wrong)
