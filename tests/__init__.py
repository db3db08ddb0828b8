"""irstats' tests (a package, so that "tests" here wins over any installed package of that name:
ppi-python, a test dependency, installs a top-level "tests")."""
