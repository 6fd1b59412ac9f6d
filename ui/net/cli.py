"""The command line of human studies:

    python main.py study host STUDY [--port P] [--listen ADDRESS] [--out DIR] [--codes A B]
                              [--cert FILE --key FILE]            host one pair (a window, or headless)
    python main.py study check STUDY [--pairs N]                     validate; print the drawn orders
    python main.py study analyze DIR [--out DIR]                     the analysis (experiments/study_analysis.py)
    python main.py join [wss://]HOST:PORT --code CODE [--ca FILE] [--log-received FILE]   a participant's window
    python main.py gui --host PORT [--study STUDY]                   the same as 'study host'
"""

from __future__ import annotations

import argparse
import sys
from pathlib import Path
from typing import Any

DEFAULT_STUDY = "protom-kitchen-human"
DEFAULT_PORT = 8765


def _fail(message: str) -> int:
    print(f"error: {message}", file=sys.stderr)
    return 2


def add_parser(sub: argparse._SubParsersAction) -> argparse._SubParsersAction:
    """Add ``study`` (host, check) and ``join``; returns ``study``'s actions, for ``study analyze``
    (``experiments.study_analysis.add_parser``)."""
    study = sub.add_parser("study", help="run a human study: host a pair, check a study file, analyse a study",
                           description="Human studies (docs/study.md): two people on two computers play the "
                                       "kitchen's trials under the study's facilitator conditions, answer its "
                                       "questionnaire, and the folder is analysed by pairs and participants.")
    actions = study.add_subparsers(dest="study_command", metavar="ACTION", required=True)
    host = actions.add_parser("host", help="host one pair of participants (prints their join codes)",
                              description="Host one pair: listen on --port, show the join codes, walk both "
                                          "participants through consent, instructions, the tutorial, the trials "
                                          "in the pair's drawn order, the reveals and questionnaires. Every "
                                          "episode is recorded into --out/recordings/pair-NN/; answers go to "
                                          "--out/answers.csv.")
    host.add_argument("study", nargs="?", default=DEFAULT_STUDY,
                      help=f"a study file or a shipped study's name (default {DEFAULT_STUDY})")
    host.add_argument("--port", type=int, default=DEFAULT_PORT, metavar="P", help=f"TCP port (default {DEFAULT_PORT})")
    host.add_argument("--listen", metavar="ADDRESS",
                      help="listen on this address of the host only (default: every network interface)")
    host.add_argument("--out", metavar="DIR", help="the study folder (default runs/studies/<study>)")
    host.add_argument("--codes", nargs=2, metavar="CODE",
                      help="the two join codes, 8 letters and digits each, e.g. 7KQM-X4PA (default: drawn at random)")
    host.add_argument("--cert", metavar="FILE",
                      help="serve wss:// (encrypted) with this PEM certificate (chain); needs --key (docs/study.md)")
    host.add_argument("--key", metavar="FILE", help="the certificate's private key (PEM, without a pass phrase)")
    host.set_defaults(func=cmd_study_host)
    check = actions.add_parser("check", help="validate a study file and print each pair's drawn trials",
                               description="Read a study file as strictly as 'study host' does and print the trial "
                                           "order of the first --pairs pairs.")
    check.add_argument("study", help="a study file or a shipped study's name")
    check.add_argument("--pairs", type=int, default=4, metavar="N", help="pairs to show (default 4)")
    check.set_defaults(func=cmd_study_check)
    join = sub.add_parser("join", help="join a hosted study as a participant",
                          description="Open a participant's window connected to a study host on the network. "
                                      "It shows only what the host sends for this seat.")
    join.add_argument("address", metavar="HOST:PORT",
                      help="the host's address, e.g. 192.168.1.20:8765, or wss://192.168.1.20:8765 for a host "
                           "serving wss://")
    join.add_argument("--code", required=True,
                      help="your join code (the host window shows it; case and dashes do not matter)")
    join.add_argument("--ca", metavar="FILE",
                      help="with wss://: trust only this certificate (the host's own, or its authority's) instead "
                           "of the system's authorities")
    join.add_argument("--log-received", metavar="FILE",
                      help="append every message received from the host to FILE as it arrives (one JSON object a "
                           "line, secrets scrubbed): an audit of what this computer was told")
    join.set_defaults(func=cmd_join)
    return actions


def cmd_study_check(args: argparse.Namespace) -> int:
    from study.design import StudyError, draw_trials, find_study, load_study

    if not 1 <= args.pairs <= 1000:
        return _fail(f"--pairs must be between 1 and 1000, got {args.pairs}")
    try:
        path = find_study(args.study)
        study = load_study(path)
    except StudyError as exc:
        return _fail(str(exc))
    from study.design import model_lines

    print(f"{path}: {study.title}: {len(study.conditions)} conditions x {study.trials_per_condition} trials, "
          f"order {study.order.draw} (seed {study.order.seed})")
    for line in model_lines(study):
        print(line)
    for pair in range(1, args.pairs + 1):
        trials = draw_trials(study, pair)
        print(f"pair-{pair:02d}: " + ", ".join(f"{t.condition}@{t.scenario.rsplit('/', 1)[-1]}" for t in trials))
    return 0


def _quit_on_signals(app: Any) -> Any:
    """Ctrl+C (SIGINT) and ``kill`` (SIGTERM) quit the event loop, so the caller's clean-up runs
    (a running episode's recording gets its footer). Returns the timer that lets Python run signal
    handlers while Qt's loop runs in C++; keep it."""
    import signal

    from PyQt6.QtCore import QTimer

    for sig in (signal.SIGINT, signal.SIGTERM):
        signal.signal(sig, lambda *_: QTimer.singleShot(0, app.quit))
    wake = QTimer()
    wake.timeout.connect(lambda: None)
    wake.start(200)
    return wake


def cmd_study_host(args: argparse.Namespace) -> int:
    return host_study(args.study, args.port, args.out, tuple(args.codes) if args.codes else None,
                      listen=args.listen, cert=args.cert, key=args.key)


def host_study(name: str, port: int, out: str | None, codes: tuple[str, ...] | None, *,
               listen: str | None = None, cert: str | None = None, key: str | None = None) -> int:
    from study.design import StudyError, find_study, load_study
    from ui.net.protocol import read_join_code

    if not 1 <= port <= 65535:
        return _fail(f"--port must be between 1 and 65535, got {port}")
    if codes is not None:
        keys = [read_join_code(c) for c in codes]
        if None in keys or len(set(keys)) != 2:
            return _fail(f"--codes: expected two different join codes of 8 letters and digits (Crockford's base32, "
                         f"e.g. 7KQM-X4PA), got {' '.join(repr(c)[:40] for c in codes)}")
    if (cert is None) != (key is None):
        return _fail("--cert and --key go together: the certificate file and its private key")
    try:
        path = find_study(name)
        study = load_study(path)
    except StudyError as exc:
        return _fail(str(exc))
    folder = Path(out) if out else Path("runs") / "studies" / study.study
    from PyQt6.QtNetwork import QAbstractSocket, QHostAddress, QNetworkInterface

    address = None
    if listen is not None:
        address = QHostAddress()
        if not address.setAddress(listen.strip()):
            return _fail(f"--listen: {listen!r:.80} is not an IP address of this computer; expected e.g. 192.168.1.20")
    tls = None
    if cert is not None and key is not None:
        from ui.net.tls import TLSError, host_tls

        try:
            tls = host_tls(cert, key)
        except TLSError as exc:
            return _fail(f"--cert/--key: {exc}")

    from ui.app import display_available

    if display_available():
        from ui.app import application

        app = application()
    else:
        from PyQt6.QtCore import QCoreApplication

        app = QCoreApplication.instance() or QCoreApplication([sys.argv[0]])
    from ui.net.host import StudyHost

    try:
        host = StudyHost(study, path, folder, port=port, codes=codes, address=address, tls=tls)
    except (StudyError, OSError) as exc:
        return _fail(str(exc))
    addresses = [a.toString() for a in QNetworkInterface.allAddresses()
                 if a.protocol() == QAbstractSocket.NetworkLayerProtocol.IPv4Protocol and not a.isLoopback()]
    if address is not None and not address.isEqual(QHostAddress(QHostAddress.SpecialAddress.AnyIPv4)):
        addresses = [address.toString()]
    where = addresses[0] if addresses else "THIS-COMPUTER"
    from study.design import model_lines

    print(f"hosting {study.title} for {host.pair_name} on port {host.port} ({host.scheme}://); study folder {folder}",
          flush=True)
    for line in model_lines(study):
        print(line, flush=True)
    for k, slot in enumerate(host.slots):
        if tls is None:
            print(f"participant {k + 1}: python main.py join {where}:{host.port} --code {slot.code}", flush=True)
        else:
            print(f"participant {k + 1}: python main.py join wss://{where}:{host.port} --code {slot.code} "
                  f"--ca {Path(str(cert)).name}", flush=True)
    host.logged.connect(lambda line: print(line, flush=True))
    from study.design import start_embedded_model

    start_embedded_model(study, lambda line: print(line, flush=True))
    window = None
    if display_available():
        from ui.net.windows import HostWindow

        window = HostWindow(host)
        window.show()
    else:
        host.ended.connect(app.quit)
    wake = _quit_on_signals(app)
    try:
        return int(app.exec())
    finally:
        host.shutdown()
        wake.stop()
        del window


def cmd_join(args: argparse.Namespace) -> int:
    from ui.app import display_available
    from ui.net.client import parse_url
    from ui.net.protocol import read_join_code, show_join_code

    try:
        secure, address, port = parse_url(args.address)
    except ValueError as exc:
        return _fail(str(exc))
    code = read_join_code(args.code)
    if code is None:
        return _fail(f"--code: {args.code!r:.40} is not a join code; expected the 8 letters and digits the host "
                     "shows, e.g. 7KQM-X4PA")
    if args.ca is not None and not secure:
        return _fail("--ca is for a host serving wss://: give the address as wss://HOST:PORT")
    tls = None
    if secure:
        from ui.net.tls import TLSError, seat_tls

        try:
            tls = seat_tls(args.ca)
        except TLSError as exc:
            return _fail(f"--ca: {exc}" if args.ca else str(exc))
    if not display_available():
        return _fail("no display to open the participant's window on (set DISPLAY, or run under xvfb-run)")
    log = Path(args.log_received) if args.log_received else None
    if log is not None:
        try:
            with open(log, "a", encoding="utf-8"):
                pass
        except OSError as exc:
            return _fail(f"--log-received: cannot write {log}: {exc.strerror or exc}")
    from ui.app import application
    from ui.net.client import SeatClient
    from ui.net.windows import SeatWindow

    app = application()
    client = SeatClient(address, port, show_join_code(code), log_path=log, tls=tls)
    window = SeatWindow(client)
    window.show()
    client.open()
    wake = _quit_on_signals(app)
    try:
        return int(app.exec())
    finally:
        wake.stop()
        client.drop()
        client.close_log()
