"""trec_eval emulation: ``irstats trec_eval`` takes trec_eval 10's command line and prints its
output byte for byte, computing every value with irstats' engine.

- :mod:`irstats.trec_eval.table` — trec_eval's measures in its print order, with their
  parameters, nicknames (``official``, ``all_trec``, ``set``), output formats and the irstats
  measure behind each printed name;
- :mod:`irstats.trec_eval.output` — evaluation and the printed lines.
"""
