"""The picture chosen for the reader's frame (issue 36) in a real JupyterLab: the live stepper's
page reports its graph's frame, and the kernel draws the picture readable there. The README's
MLP (adjoint view): in JupyterLab at 1024×768 with the file browser open no picture of it is
readable, and it is drawn in full (25 boxes); at 1920×1080 with the file browser closed its
scopes collapsed are (9 boxes): each the picture that vizad.view.render.summary.scene_for chooses
for the frame the page has. Not while presenting (a picture drawn anew would leave the whole
screen). Screenshots: artifacts/reader-frame-*.png."""

from __future__ import annotations

import vizad as vz
from conftest import artifact, write_notebook
from test_jupyterlab import ROOT, _delete_sessions
from test_room import _open
from vizad.view.render.summary import scene_for
from vizad.view.widget.stepper import FRAME_STEP

#: The graph's frame, the presentation scale and the boxes drawn, as the page has them.
FRAME = """() => {
  const root = document.querySelector('.vizad-stepper');
  const v = root.querySelector('.vz-viewport');
  return { w: v.clientWidth, h: v.clientHeight,
           scale: parseFloat(getComputedStyle(root).getPropertyValue('--vz-scale')) || 1,
           boxes: root.querySelectorAll('.vz-stage svg g.node').length,
           note: root.querySelector('.vz-stage svg g.graph > text:last-of-type')?.textContent };
}"""


def _chosen(frame: dict) -> int:
    """The boxes of the picture chosen for the page's frame (as the Stepper takes it)."""
    size = tuple(
        max(FRAME_STEP, FRAME_STEP * round(frame[k] / frame["scale"] / FRAME_STEP))
        for k in ("w", "h")
    )
    return len(scene_for(vz.examples.mlp(), "adjoint", 3, frame=size).items)


def _settled(page, boxes: int) -> dict:
    """The page's frame once the stepper draws ``boxes`` boxes (the report is debounced, the
    kernel answers with the views drawn anew)."""
    page.wait_for_function(
        "(n) => document.querySelectorAll('.vizad-stepper .vz-stage svg g.node').length === n",
        arg=boxes,
        timeout=60_000,
    )
    page.wait_for_timeout(1200)  # a later report (the frame settling) changes nothing more
    return page.evaluate(FRAME)


def test_the_picture_is_chosen_for_the_frame_the_reader_has(browser, jupyterlab, page_errors):
    url, root = jupyterlab
    write_notebook(root / "frame.ipynb", ["import vizad as vz\nvz.Stepper(vz.examples.mlp())"])
    _delete_sessions(url)
    context = browser.new_context(viewport={"width": 1024, "height": 768})
    page = page_errors(context.new_page())
    _open(page, url, "frame.ipynb")
    page.wait_for_timeout(1500)
    small = page.evaluate(FRAME)
    small = _settled(page, _chosen(small))
    print(f"\n1024x768, file browser open: {small}")
    assert small["boxes"] == _chosen(small) == 25  # in full
    page.screenshot(path=artifact("reader-frame-1024x768.png"))
    # a large screen, the file browser closed: the frame grows, the scopes' boxes readable
    page.set_viewport_size({"width": 1920, "height": 1080})
    page.locator(".jp-SideBar .lm-TabBar-tab[data-id='filebrowser']").click()
    page.wait_for_selector(".jp-FileBrowser", state="hidden")
    page.wait_for_timeout(1500)
    large = _settled(page, _chosen(page.evaluate(FRAME)))
    print(f"1920x1080, file browser closed: {large}")
    assert large["boxes"] == _chosen(large) == 9, large  # its layers collapsed
    assert large["w"] > small["w"]
    page.screenshot(path=artifact("reader-frame-1920x1080.png"))
    # presenting: the picture stays (drawn anew, it would leave the whole screen)
    page.locator(f"{ROOT} .vz-counter").first.click()
    page.keyboard.press("f")
    page.wait_for_selector(f"{ROOT}.vz-present")
    page.wait_for_timeout(1500)
    assert page.evaluate(FRAME)["boxes"] == 9
    page.screenshot(path=artifact("reader-frame-present-1920x1080.png"))
    page.keyboard.press("Escape")
    page.wait_for_selector(f"{ROOT}.vz-present", state="detached")
    # back to the small window: drawn in full again
    page.set_viewport_size({"width": 1024, "height": 768})
    page.locator(".jp-SideBar .lm-TabBar-tab[data-id='filebrowser']").click()
    page.wait_for_selector(".jp-FileBrowser", state="visible")
    again = _settled(page, 25)
    assert again["boxes"] == _chosen(again) == 25
    context.close()
    assert not page_errors.errors, "\n".join(page_errors.errors)
