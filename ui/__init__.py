"""The ToM Arena desktop app: a PyQt6 shell with pygame-drawn worlds (docs/gui.md).

The shell, at this level: ui.app (start-up), ui.mainwindow (the window), ui.menus, ui.episodes
(what the window says when an episode starts or ends), ui.playback, ui.human_input, ui.toast,
ui.dialogs, ui.help, ui.settings, ui.errors. Beneath it:

- ui.session: the Qt-free app model, the controllers (threads, timers), the Session runner, the
  Timeline the views read (live or replayed) and the catalog of choices;
- ui.render: one pygame renderer per world family and the zero-copy world view;
- ui.beliefs: the believed world on the map, the belief timeline, belief words, particles;
- ui.panels: the panel host and the side panels (posteriors, events, set-up, teams, usage);
- ui.tradecraft, ui.teamroom: the board and views of those worlds;
- ui.net: the two-computer study (host, client, protocol, guard);
- ui.export: clips for slides;
- ui.shots: the docs' screenshots and the scripted walk at 1366 x 768.
"""
