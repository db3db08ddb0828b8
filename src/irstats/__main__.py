"""``python -m irstats`` runs the command line."""

from irstats.cli.main import main

main()
