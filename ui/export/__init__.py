"""Clips for slides: `main.py export` and File > Export clip."""
