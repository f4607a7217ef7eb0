"""A walkthrough as one self-contained HTML file: every frame, a small inline stepper, no CDN,
no kernel, no network. For course websites and slides."""

from __future__ import annotations

import json
from pathlib import Path

from .errors import ArgumentError
from .render import Layout
from .text import escape
from .trace import Trace
from .widget import Stepper
from .widget.panel import PANEL_CSS, running_table, step_panel

__all__ = ["export_html"]

_PAGE = """<!DOCTYPE html>
<html lang="en"><head><meta charset="utf-8">
<meta name="viewport" content="width=device-width, initial-scale=1">
<title>{title}</title>
<style>
body{{margin:16px;font-family:system-ui,-apple-system,"Segoe UI",sans-serif;color:#1a1a1a;background:#fff}}
@media (prefers-color-scheme: dark){{body{{color:#e8e8e8;background:#1e1e1e}}}}
h1{{font-size:20px;margin:0 0 8px}}
.vz-bar{{display:flex;flex-wrap:wrap;gap:6px;align-items:center;margin:8px 0}}
.vz-bar button{{font-size:16px;min-width:44px;padding:4px 10px;cursor:pointer}}
.vz-bar button[aria-pressed=true]{{background:#0072B2;color:#fff}}
#vz-graph{{overflow:auto;border:1px solid rgba(128,128,128,.3);max-height:70vh}}
#vz-below{{display:flex;flex-wrap:wrap;gap:16px}}
#vz-panel{{flex:2 1 420px}} #vz-table{{flex:1 1 200px}}
{panel_css}
</style></head><body>
<h1>{title}</h1>
<div class="vz-bar" id="vz-views"></div>
<div id="vz-graph"></div>
<div class="vz-bar">
<button id="vz-first" title="first step">|◀</button><button id="vz-prev" title="previous step">◀</button>
<button id="vz-play" title="play / pause">▶ play</button><button id="vz-next" title="next step">▶</button>
<button id="vz-last" title="last step">▶|</button>
<input id="vz-slider" type="range" min="0" value="0" aria-label="step">
<span id="vz-label"></span>
<label>steps/s <input id="vz-speed" type="number" min="0.25" max="10" step="0.25" value="1.25" style="width:4em"></label>
</div>
<div id="vz-below"><div id="vz-panel"></div><div id="vz-table"></div></div>
<script type="application/json" id="vz-data">{data}</script>
<script>
(function () {{
  var data = JSON.parse(document.getElementById("vz-data").textContent);
  var n = data.panels.length, step = 0, view = data.view, timer = null;
  var $ = function (id) {{ return document.getElementById(id); }};
  var slider = $("vz-slider"); slider.max = n - 1;
  data.views.forEach(function (v) {{
    var b = document.createElement("button"); b.textContent = v; b.dataset.view = v;
    b.onclick = function () {{ view = v; show(); }}; $("vz-views").appendChild(b);
  }});
  function show() {{
    var frames = data.frames[view];
    $("vz-graph").innerHTML = frames.svg.replace("<!--vizad-style-->", "<style>" + frames.css[step] + "</style>");
    $("vz-panel").innerHTML = data.panels[step];
    $("vz-table").innerHTML = data.tables[step];
    slider.value = step; $("vz-label").textContent = "step " + (step + 1) + " of " + n;
    document.querySelectorAll("#vz-views button").forEach(function (b) {{
      b.setAttribute("aria-pressed", b.dataset.view === view); }});
    $("vz-prev").disabled = $("vz-first").disabled = step === 0;
    $("vz-next").disabled = $("vz-last").disabled = step === n - 1;
  }}
  function go(k) {{ step = Math.max(0, Math.min(n - 1, k)); show(); }}
  function stop() {{ if (timer) {{ clearInterval(timer); timer = null; }} $("vz-play").textContent = "▶ play"; }}
  $("vz-first").onclick = function () {{ go(0); }};
  $("vz-prev").onclick = function () {{ go(step - 1); }};
  $("vz-next").onclick = function () {{ go(step + 1); }};
  $("vz-last").onclick = function () {{ go(n - 1); }};
  slider.oninput = function () {{ go(parseInt(slider.value, 10)); }};
  $("vz-play").onclick = function () {{
    if (timer) {{ stop(); return; }}
    if (step === n - 1) go(0);
    $("vz-play").textContent = "⏸ pause";
    timer = setInterval(function () {{ go(step + 1); if (step >= n - 1) stop(); }},
                        1000 / Math.max(0.25, parseFloat($("vz-speed").value) || 1));
  }};
  document.addEventListener("keydown", function (e) {{
    if (e.key === "ArrowRight") go(step + 1); if (e.key === "ArrowLeft") go(step - 1); }});
  show();
}})();
</script>
</body></html>
"""


def export_html(
    target, path: str | Path, *, title: str | None = None, view: str | None = None
) -> Path:
    """Write ``target`` (a trace or a Stepper) as one self-contained HTML page with every
    frame and an inline stepper (buttons, slider, play, views). Returns the path."""
    if isinstance(target, Stepper):
        trace, failures = target.trace, dict(target.failures)
        view = target.view.value
    elif isinstance(target, Trace):
        trace = target
        failures = {}
        for failure in trace.check():
            failures.setdefault(failure.step, failure.message)
    else:
        raise ArgumentError(f"export_html takes a trace or a Stepper, got {type(target).__name__}")
    view = trace.view(view)
    n = len(trace.steps)
    if not n:
        raise ArgumentError(
            "this trace has no steps to export: the output does not depend on "
            "the inputs it was traced with respect to"
        )
    frames = {}
    for v in trace.views:
        layout = Layout(trace, v, failed=frozenset(failures))
        frames[v] = {"svg": layout.template, "css": [layout.css(k) for k in range(n)]}
    data = {
        "view": view,
        "views": list(trace.views),
        "frames": frames,
        "panels": [step_panel(trace, k, failures, math=False) for k in range(n)],
        "tables": [running_table(trace, k, failures) for k in range(n)],
    }
    what = trace.label(trace.output)
    title = title or f"vizad walkthrough of {what} ({trace.mode} mode, {n} steps)"
    page = _PAGE.format(
        title=escape(title),
        panel_css=PANEL_CSS,
        data=json.dumps(data, ensure_ascii=False).replace("</", "<\\/"),
    )
    path = Path(path)
    path.write_text(page, encoding="utf-8")
    return path
