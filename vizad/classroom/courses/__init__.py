"""The course APIs, over vizad's engine: CSE 599W assignment 1's ``autodiff``
(:mod:`~vizad.classroom.courses.autodiff`), dlsys homework 1's ``needle`` and Karpathy's
``micrograd``, each a vizad graph that the drawings and the stepper show; and the readers of
students' own engines' nodes (:mod:`~vizad.classroom.courses.foreign`,
:mod:`~vizad.classroom.courses.foreign_eager`)."""
