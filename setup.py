"""Build the optional compiled ingest path (everything else is declared in pyproject.toml).

``irstats._ingest`` turns a TREC run file into ranked grades in C (see
src/irstats/ingest.py). It is optional: without a C compiler the package installs and
evaluates the same runs through the pure-Python reader, only more slowly.
"""

from setuptools import Extension, setup

setup(ext_modules=[Extension("irstats._ingest", ["src/irstats/_ingest.c"], optional=True,
                             extra_compile_args=["-O2", "-std=c99"])])
