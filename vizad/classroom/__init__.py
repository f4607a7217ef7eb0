"""The classroom: what courses, students and teaching assistants use.

The APIs of course assignments over vizad's engine (:mod:`vizad.classroom.courses`: CSE 599W's
``autodiff``, dlsys's ``needle``, micrograd), the diagnosis of a student's own engine
(:mod:`~vizad.classroom.diagnosis`), grading with a course's cases
(:mod:`~vizad.classroom.grading`) and the exercise notebooks' checks
(:mod:`~vizad.classroom.exercises`).

It may import the engine, the trace and the bridges, and the view's public front
(:mod:`vizad.view.render`, :mod:`vizad.view.widget`), not the view's internals.
"""
