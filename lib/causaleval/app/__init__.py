"""The face of the kit: the command line (:mod:`~causaleval.app.cli`), the report site
(:mod:`~causaleval.app.book`, from :mod:`~causaleval.app.site`'s facts), ``new`` (:mod:`~causaleval.app.scaffold`) and
JupyterLab (:mod:`~causaleval.app.lab`). Nothing below this package imports it."""
