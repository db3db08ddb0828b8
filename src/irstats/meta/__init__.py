"""Meta-evaluation: how far conclusions drawn from scores can be trusted (METHODS.md §5)."""
