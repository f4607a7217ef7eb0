"""One drawing-options object: vz.render.DrawOptions, taken whole (``options=``) or field by
field by keyword, with one list of fields and defaults for every function that draws."""

import inspect

import pytest

import vizad as vz
from vizad.view.render.options import DRAW_OPTIONS, DrawOptions

DRAWERS = [vz.draw, vz.step, vz.Stepper, vz.export_html, vz.export_frames]


@pytest.mark.parametrize("function", DRAWERS, ids=lambda f: f.__name__)
def test_every_drawer_shows_the_options_in_its_signature(function):
    parameters = inspect.signature(function).parameters
    assert list(parameters).count("decimals") == 1
    assert "drawing" not in parameters  # the **drawing that receives them is not shown
    for name in DRAW_OPTIONS:
        shown = parameters[name]
        assert shown.kind is shown.KEYWORD_ONLY
        assert shown.default == DrawOptions.__dataclass_fields__[name].default
    assert parameters["options"].default is None


def test_keywords_and_the_object_draw_the_same_and_keywords_win():
    trace = vz.examples.mlp()
    by_keyword = vz.draw(trace, detail=True, reads=True, decimals=2).source
    whole = vz.draw(trace, options=DrawOptions(detail=True, reads=True, decimals=2)).source
    assert by_keyword == whole
    mixed = vz.draw(trace, options=DrawOptions(detail=False, reads=True, decimals=2), detail=True)
    assert mixed.source == whole
    assert vz.draw(trace).source != whole  # the options change the picture


def test_export_frames_takes_the_options_object(tmp_path):
    trace = vz.examples.lecture()
    options = DrawOptions(decimals=1, reads=True)
    (first, *_) = vz.export_frames(trace, tmp_path / "a", options=options)
    (again, *_) = vz.export_frames(trace, tmp_path / "b", decimals=1, reads=True)
    assert first.read_text() == again.read_text()
    (plain, *_) = vz.export_frames(trace, tmp_path / "c")
    assert plain.read_text() != first.read_text()  # the options reached the frames


def test_a_misspelt_option_names_the_fields():
    with pytest.raises(TypeError, match=r"'detial' \(its drawing options are decimals, max_boxes"):
        vz.draw(vz.examples.lecture(), detial=True)
    with pytest.raises(
        vz.errors.ArgumentTypeError, match="options must be a vz.render.DrawOptions"
    ):
        vz.draw(vz.examples.lecture(), options={"detail": True})


def test_the_options_object_is_frozen_and_says_what_differs():
    options = DrawOptions(detail=True, collapse="repeats")
    with pytest.raises(AttributeError):
        options.detail = False
    assert options.given() == ["collapse=", "detail="]
    assert DrawOptions().given() == []


def test_a_stepper_and_its_page_take_the_options_object(tmp_path):
    from vizad.view.export import page_html

    trace = vz.examples.mlp()
    options = DrawOptions(detail=True, reads=True, decimals=2)
    stepper = vz.Stepper(trace, options=options)
    assert stepper.options == options and stepper.decimals == 2
    by_keyword = vz.step(trace, detail=True, reads=True, decimals=2)
    assert by_keyword.options == options
    assert page_html(trace, options=options) != page_html(trace)
    with pytest.raises(vz.errors.ArgumentError, match="detail="):
        vz.export_html(stepper, tmp_path / "p.html", detail=True)  # the Stepper drew its views
    stepper.close()
    by_keyword.close()


def test_the_command_line_draws_with_reads(tmp_path):
    from vizad.cli import main

    args = ["walkthrough", "log(x1) + x1*x2 - sin(x2)", "--at", "x1=2", "x2=5"]
    assert main([*args, "-o", str(tmp_path / "a.html")]) == 0
    assert main([*args, "--reads", "-o", str(tmp_path / "b.html")]) == 0
    assert (tmp_path / "a.html").read_text() != (tmp_path / "b.html").read_text()
