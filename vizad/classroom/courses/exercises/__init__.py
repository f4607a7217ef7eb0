"""vizad's answers to the exercise notebooks (``notebooks/exercises/solutions/``), one module an
exercise, holding the names the notebook's cells define (``AddOp``, ``gradients``, ``Dual`` …)
and the handout they import (``ad``, ``vz``): the reference the grader compares a student's
notebook with, by the cases of :mod:`vizad.classroom.gradekit.exercises`. Imported by the
grading process (and by the notebook's check cells, in the student's kernel)."""
