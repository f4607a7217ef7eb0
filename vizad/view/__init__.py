"""The view: what a person sees.

Graphviz scenes of a graph and of its extension (:mod:`vizad.view.render`), the one browser
component that shows a walkthrough (:mod:`vizad.view.widget`: the notebook widget, the saved
view, the exported page of :mod:`~vizad.view.export`), frames for slides
(:mod:`~vizad.view.frame_files`), the choice of output per front end
(:mod:`~vizad.view.frontends`), the component's files (:mod:`~vizad.view.assets`) and the
comparison of two traces (:mod:`~vizad.view.comparison`).

It renders the data a trace hands it: it imports the trace and engine wings, never the
bridges or the classroom.
"""
