"""trec_eval emulation: ``irstats trec_eval`` takes trec_eval 10's command line and prints its
output byte for byte, computing every value with irstats' engine.

- :mod:`irstats.trec_eval.command` — the command line;
- :mod:`irstats.trec_eval.table` — trec_eval's measures in its print order, with their
  parameters, nicknames (``official``, ``all_trec``, ``set``), output kinds and the irstats
  measure behind each printed name;
- :mod:`irstats.trec_eval.kinds` — the output kinds: how each measure prints (its ``-q``
  columns, its ``all`` lines, a value's text);
- :mod:`irstats.trec_eval.formats` — the ``-R`` formats, each a reader that evaluates a run
  against its judgments;
- :mod:`irstats.trec_eval.output` — evaluation and the printed lines, laid out by
  :mod:`irstats.trec_eval.printer`;
- :mod:`irstats.trec_eval.read` — trec_eval's ``-q`` output read back into score matrices.
"""
