"""Networked seats: one app hosts a Session, others join one seat each over a WebSocket.

- ``protocol``: the JSON messages both sides exchange (versioned, size-capped, read strictly);
- ``seat_view``: what one seat may see (its observation, never the hidden state), as a message;
- ``host``: the hosting side (Qt's QWebSocketServer), running a study's pages and episodes;
- ``client``: the joining side (QWebSocket), which keeps every message it received;
- ``windows``: the host's status window and the participant's window.

Only ``windows`` holds widgets; the rest use Qt's networking and timers but no widget.
"""
