"""The ToM Arena desktop app: a PyQt6 shell with pygame-drawn worlds (docs/gui.md).

ui.app (start-up), ui.model (the Qt-free app model), ui.controllers (sessions, recordings,
playback clock), ui.mainwindow (the window; ui.menus, ui.panel_host, ui.episodes), ui.worldview (the zero-copy world view),
ui.render (one renderer per world family), ui.timeline (what the views read, live or
replayed), ui.runner (the Session in a worker thread), ui.panels, ui.toast, ui.playback,
ui.setup_panel, ui.settings, ui.catalog, ui.errors, ui.xvfb, ui.walk (the scripted walk at 1366 x 768
that takes the screenshots), ui.shots.
"""
