"""Screenshots for the docs and the scripted walk at 1366 x 768 under a virtual X display."""
