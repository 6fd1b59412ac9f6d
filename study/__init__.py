"""The human study's data model, without Qt: the study file (conditions, tutorial,
questionnaires, the reveal), the order of a pair's trials, and the data files a study writes.
The study host and seat windows (``ui/net/``) run it; ``experiments/study_cli.py`` and
``experiments/study_analysis.py`` read what it wrote (docs/study.md)."""
