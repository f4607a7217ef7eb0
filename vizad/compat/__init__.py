"""Compatibility layers: the APIs of course assignments, over vizad's engine."""
