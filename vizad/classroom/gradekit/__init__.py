"""What runs inside a submission's jail: the course's cases and the small runner that feeds
them to the student's engine and sends back raw values.

This package imports only the standard library, numpy and itself (relative imports: it is
mounted alone in the jail's read-only root, where no other part of vizad
exists), so a submission can neither read vizad's reference engines nor patch the code that
decides its statuses: :mod:`vizad.classroom.grading.cases` judges what the runner sends, in
the grading process. tests/classroom/test_grade_jail.py checks that no import leaves it.
"""
