"""Bridges to the tools researchers already use (optional extras).

- :mod:`irstats.integrations.ir_measures`: irstats as an ir_measures provider (and so in
  PyTerrier's ``pt.Experiment``); ``pip install "irstats[ir_measures]"``.
"""
