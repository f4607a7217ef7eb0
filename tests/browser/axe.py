"""axe-core (Deque's accessibility engine) run in a page of the browser tests: the WCAG 2.0
and 2.1 level A and AA rules, on vizad's own component.

axe.min.js is committed beside the tests (tests/browser/data/axe.min.js, MPL-2.0, its
licence in frontend/licenses/axe-core-MPL-2.0.txt), copied from the npm package pinned in
frontend/package.json by ``node frontend/copy-axe.mjs``: the tests need no Node and no
network. It is injected with ``page.add_script_tag`` (content, not a URL: the pages under
test run offline), or, in a page whose Content Security Policy refuses inline scripts (the
exported page's), evaluated through Playwright (the debugging protocol is not bound by it).
"""

from __future__ import annotations

from pathlib import Path

AXE = Path(__file__).parent / "data" / "axe.min.js"
#: The rules of WCAG 2.0 and 2.1, levels A and AA (axe-core's tags)
WCAG_AA = ["wcag2a", "wcag2aa", "wcag21a", "wcag21aa"]
#: The impacts the tests refuse
SERIOUS = {"serious", "critical"}


def axe(page, context: str = ".vizad-stepper") -> list[dict]:
    """axe-core's WCAG 2.1 A/AA violations in ``page``, checked in the elements matching
    ``context`` (a CSS selector; by default vizad's component, every copy in the page), as
    axe reports them: ``{"id", "impact", "help", "nodes": [{"target", "failureSummary"}]}``.
    Raises when nothing matches (a check of nothing is no check)."""
    assert page.locator(context).count(), f"axe: nothing in the page matches {context!r}"
    if not page.evaluate("() => typeof window.axe === 'object'"):
        source = AXE.read_text(encoding="utf-8")
        if page.locator('meta[http-equiv="Content-Security-Policy" i]').count():
            # a page whose CSP allows no inline script (export_html's): evaluated by the
            # browser's debugging protocol, which the page's CSP does not bind (a script tag
            # would be refused, with a console error)
            page.evaluate(source)
        else:
            page.add_script_tag(content=source)
        assert page.evaluate("() => typeof window.axe === 'object'"), "axe-core did not load"
    return page.evaluate(
        """async ([context, tags]) => {
             const only = { runOnly: { type: "tag", values: tags }, resultTypes: ["violations"] };
             const r = await axe.run({ include: [[context]] }, only);
             return r.violations.map((v) => ({ id: v.id, impact: v.impact, help: v.help,
               nodes: v.nodes.map((n) => ({ target: n.target.join(" "),
                                            failureSummary: n.failureSummary })) }));
           }""",
        [context, WCAG_AA],
    )


def serious(violations: list[dict]) -> list[dict]:
    """The violations of impact serious or critical."""
    return [v for v in violations if v["impact"] in SERIOUS]


def summary(violations: list[dict]) -> str:
    """One line per violation: its rule, impact, how many elements, and the first of them."""
    return "\n".join(
        f"{v['id']} ({v['impact']}, {len(v['nodes'])}×): {v['help']} — "
        f"{v['nodes'][0]['target']}: {v['nodes'][0]['failureSummary']}"
        for v in violations
    )
