"""Settings of the desktop app, remembered between runs (QSettings), and their dialog.

The dialog is not modal (``show()``, never ``exec()``): the game goes on while it is open.
Its pages: General (recording, folder, default scenario), Playback (speed, animation,
pop-ups) and LLM (the LLM layer's own settings, read and written through
``agents.llm.config`` when that layer is installed).
"""

from __future__ import annotations

import sys
from html import escape as html_escape
from pathlib import Path
from typing import Any

from PyQt6.QtCore import QProcess, QSettings, QStandardPaths, Qt, pyqtSignal
from PyQt6.QtWidgets import (
    QCheckBox,
    QComboBox,
    QDialog,
    QDialogButtonBox,
    QDoubleSpinBox,
    QFileDialog,
    QFormLayout,
    QHBoxLayout,
    QLabel,
    QLineEdit,
    QPushButton,
    QSpinBox,
    QTabWidget,
    QVBoxLayout,
    QWidget,
)

ORGANIZATION = "tom-arena"
APPLICATION = "ToM Arena"
MAX_RECENT = 10


def default_recordings_dir() -> str:
    base = QStandardPaths.writableLocation(QStandardPaths.StandardLocation.AppLocalDataLocation)
    return str(Path(base or Path.home() / ".local" / "share" / "tom-arena") / "recordings")


class AppSettings:
    """Typed access to the QSettings store, with defaults."""

    DEFAULTS: dict[str, Any] = {
        "record": True,
        "recordings_dir": "",            # empty: default_recordings_dir()
        "compress": False,
        "default_scenario": "",          # empty: the first shipped scenario that needs feedback
        "speed": 4.0,                    # steps per second
        "animate": True,
        "show_plans": True,
        "toast_seconds": 6.0,
        "panel_hz": 10,
        "recent_files": [],
        "welcomed": False,               # the first-run card was shown
    }

    def __init__(self, store: QSettings | None = None) -> None:
        self.store = store if store is not None else QSettings(ORGANIZATION, APPLICATION)

    @classmethod
    def at(cls, path: str | Path) -> "AppSettings":
        """Settings kept in one INI file (tests, portable installs)."""
        return cls(QSettings(str(path), QSettings.Format.IniFormat))

    def get(self, key: str) -> Any:
        default = self.DEFAULTS[key]
        value = self.store.value(key, default)
        if isinstance(default, bool):
            return value if isinstance(value, bool) else str(value).lower() in ("1", "true", "yes")
        if isinstance(default, float):
            try:
                return float(value)
            except (TypeError, ValueError):
                return default
        if isinstance(default, int):
            try:
                return int(value)
            except (TypeError, ValueError):
                return default
        if isinstance(default, list):
            if value in (None, ""):
                return []
            return [str(v) for v in (value if isinstance(value, list) else [value])]
        return "" if value is None else str(value)

    def set(self, key: str, value: Any) -> None:
        if key not in self.DEFAULTS:
            raise KeyError(f"unknown setting {key!r}")
        self.store.setValue(key, value)

    def sync(self) -> None:
        self.store.sync()

    @property
    def recordings_dir(self) -> Path:
        return Path(self.get("recordings_dir") or default_recordings_dir())

    def recent_files(self) -> list[str]:
        return self.get("recent_files")

    def add_recent(self, path: str | Path) -> list[str]:
        path = str(Path(path).resolve())
        files = [path] + [f for f in self.recent_files() if f != path]
        self.set("recent_files", files[:MAX_RECENT])
        return files[:MAX_RECENT]

    def clear_recent(self) -> None:
        self.set("recent_files", [])


ROOT = Path(__file__).resolve().parent.parent


class LLMPage(QWidget):
    """The LLM layer's settings (endpoint, model, key...), kept in its own config file, and a
    "Test connection" button that runs the layer's own check (``main.py llm check``) in a
    separate process, so the window never waits for a model."""

    #: (exit code, what the check printed) when a connection test ends
    check_finished = pyqtSignal(int, str)

    def __init__(self, parent: QWidget | None = None) -> None:
        super().__init__(parent)
        layout = QVBoxLayout(self)
        self.fields: dict[str, QWidget] = {}
        self.status = QLabel()
        self.status.setWordWrap(True)
        self.check_process: QProcess | None = None
        self.check_output = ""
        try:
            from agents.llm import config as llm_config
        except ImportError as exc:
            self.config = None
            layout.addWidget(QLabel(f"The LLM layer is not installed ({exc})."))
            layout.addStretch(1)
            return
        self.config = llm_config
        try:
            current = llm_config.load_settings()
        except llm_config.LLMConfigError as exc:
            current = llm_config.LLMSettings()
            self.status.setText(f"Could not read the current settings: {exc}")
        intro = QLabel("Settings of LLM seats and LLM facilitators. Leave the base URL empty to use the "
                       f"embedded model. Saved to {llm_config.config_path() or llm_config.config_dir() / 'llm.toml'}; "
                       "environment variables (OPENAI_BASE_URL, OPENAI_API_KEY, ...) still win over the file.")
        intro.setWordWrap(True)
        layout.addWidget(intro)
        form = QFormLayout()
        for name, info in llm_config.LLMSettings.model_fields.items():
            if name == "embedded":
                continue
            value = getattr(current, name)
            widget = self._editor(name, info, value)
            widget.setToolTip(info.description or "")
            self.fields[name] = widget
            form.addRow(name.replace("_", " "), widget)
        self.save_key = QCheckBox("save the API key in the file (readable only by you)")
        form.addRow("", self.save_key)
        layout.addLayout(form)
        test_row = QHBoxLayout()
        self.test_button = QPushButton("Test connection")
        self.test_button.setToolTip("Ask the model for one small answer with the settings shown (python main.py "
                                    "llm check); the embedded model may take a minute to start")
        self.test_button.clicked.connect(self.test_connection)
        self.availability = QLabel()
        self.availability.setWordWrap(True)
        test_row.addWidget(self.test_button)
        test_row.addWidget(self.availability, 1)
        layout.addLayout(test_row)
        self.check_view = QLabel()
        self.check_view.setWordWrap(True)
        self.check_view.setTextInteractionFlags(self.check_view.textInteractionFlags()
                                                | Qt.TextInteractionFlag.TextSelectableByMouse)
        layout.addWidget(self.check_view)
        layout.addWidget(self.status)
        layout.addStretch(1)
        from ui.session.catalog import llm_availability

        problem = llm_availability()
        self.availability.setText("LLM seats can run here." if problem is None else f"LLM seats cannot run here: {problem}")

    def _editor(self, name: str, info: Any, value: Any) -> QWidget:
        annotation = str(info.annotation)
        if name == "api_key":
            edit = QLineEdit()
            edit.setEchoMode(QLineEdit.EchoMode.Password)
            edit.setPlaceholderText("(set)" if value is not None else "(none)")
            return edit
        if "Literal" in annotation:
            box = QComboBox()
            for option in info.annotation.__args__:
                box.addItem(str(option))
            box.setCurrentText(str(value))
            return box
        if isinstance(value, bool):
            check = QCheckBox()
            check.setChecked(value)
            return check
        if isinstance(value, float):
            spin = QDoubleSpinBox()
            spin.setDecimals(2)
            spin.setRange(0.0, 10_000.0)
            spin.setValue(value)
            return spin
        if isinstance(value, int):
            spin = QSpinBox()
            spin.setRange(0, 1_000_000)
            spin.setValue(value)
            return spin
        edit = QLineEdit("" if value is None else str(value))
        return edit

    def values(self) -> dict[str, Any]:
        out: dict[str, Any] = {}
        for name, widget in self.fields.items():
            if isinstance(widget, QLineEdit):
                text = widget.text().strip()
                if name == "api_key" and not text:
                    continue  # keep the key as it is
                out[name] = text or None
            elif isinstance(widget, QComboBox):
                out[name] = widget.currentText()
            elif isinstance(widget, QCheckBox):
                out[name] = widget.isChecked()
            elif isinstance(widget, (QSpinBox, QDoubleSpinBox)):
                out[name] = widget.value()
        return out

    def test_connection(self) -> None:
        """Run ``main.py llm check`` with the endpoint and model shown (saved or not)."""
        if self.check_process is not None:
            return
        args = [str(ROOT / "main.py"), "llm", "check"]
        for name, option in (("base_url", "--base-url"), ("model", "--model")):
            widget = self.fields.get(name)
            value = widget.text().strip() if isinstance(widget, QLineEdit) else ""
            if value:
                args += [option, value]
        process = QProcess(self)
        process.setProcessChannelMode(QProcess.ProcessChannelMode.MergedChannels)
        process.setWorkingDirectory(str(ROOT))
        key = self.fields.get("api_key")
        if isinstance(key, QLineEdit) and key.text().strip():  # an unsaved key is tried through the environment
            from PyQt6.QtCore import QProcessEnvironment

            env = QProcessEnvironment.systemEnvironment()
            env.insert("OPENAI_API_KEY", key.text().strip())
            process.setProcessEnvironment(env)
        process.finished.connect(self._check_done)
        self.check_process = process
        self.check_output = ""
        self.test_button.setEnabled(False)
        self.check_view.setText("testing…")
        process.start(sys.executable, args)

    def _check_done(self, code: int, _status: Any = None) -> None:
        process = self.check_process
        self.check_process = None
        self.test_button.setEnabled(True)
        output = bytes(process.readAll()).decode(errors="replace") if process is not None else ""
        self.check_output = output
        last = [line for line in output.splitlines() if line.strip()][-3:]
        verdict = "Connection works." if code == 0 else "The test call failed."
        self.check_view.setText(f"<b>{verdict}</b><br>" + "<br>".join(html_escape(line) for line in last))
        if process is not None:
            process.deleteLater()
        self.check_finished.emit(int(code), output)

    def stop_check(self) -> None:
        if self.check_process is not None:
            self.check_process.kill()
            self.check_process.waitForFinished(3000)

    def save(self) -> Path | None:
        if self.config is None:
            return None
        try:
            current = self.config.load_settings()
            settings = current.with_overrides(**self.values())
            if settings == current and not self.save_key.isChecked():
                return None  # nothing changed: leave the user's file alone
            path = self.config.save_settings(settings, self.config.config_path(),
                                             include_api_key=self.save_key.isChecked())
        except (self.config.LLMConfigError, OSError) as exc:
            self.status.setText(f"Not saved: {exc}")
            return None
        self.status.setText(f"Saved to {path}.")
        return path


class SettingsDialog(QDialog):
    changed = pyqtSignal()

    def __init__(self, settings: AppSettings, scenarios: list[str], parent: QWidget | None = None) -> None:
        super().__init__(parent)
        self.setWindowTitle("ToM Arena settings")
        self.setModal(False)
        self.settings = settings
        tabs = QTabWidget()

        general = QWidget()
        form = QFormLayout(general)
        self.record = QCheckBox("record every live session")
        form.addRow("Recording", self.record)
        self.compress = QCheckBox("compress recordings (.jsonl.gz)")
        form.addRow("", self.compress)
        folder_row = QHBoxLayout()
        self.folder = QLineEdit()
        browse = QPushButton("Browse…")
        browse.clicked.connect(self._browse)
        folder_row.addWidget(self.folder, 1)
        folder_row.addWidget(browse)
        form.addRow("Recordings folder", folder_row)
        self.default_scenario = QComboBox()
        self.default_scenario.addItem("(automatic)", "")
        for name in scenarios:
            self.default_scenario.addItem(name, name)
        form.addRow("Default scenario", self.default_scenario)
        tabs.addTab(general, "General")

        playback = QWidget()
        form = QFormLayout(playback)
        self.speed = QDoubleSpinBox()
        self.speed.setRange(0.5, 64.0)
        self.speed.setSuffix(" steps/s")
        form.addRow("Speed", self.speed)
        self.animate = QCheckBox("animate moves")
        form.addRow("", self.animate)
        self.show_plans = QCheckBox("draw agents' plans on the map")
        form.addRow("", self.show_plans)
        self.toast_seconds = QDoubleSpinBox()
        self.toast_seconds.setRange(0.0, 120.0)
        self.toast_seconds.setSuffix(" s")
        form.addRow("Feedback pop-up shows for", self.toast_seconds)
        self.panel_hz = QSpinBox()
        self.panel_hz.setRange(10, 60)
        self.panel_hz.setSuffix(" Hz")
        form.addRow("Panel refresh", self.panel_hz)
        tabs.addTab(playback, "Playback")

        # The LLM layer's page: its own settings file, written through agents.llm.config.
        self.llm_page = LLMPage()
        tabs.addTab(self.llm_page, "LLM")

        buttons = QDialogButtonBox(QDialogButtonBox.StandardButton.Save | QDialogButtonBox.StandardButton.Close)
        buttons.accepted.connect(self.save)
        buttons.rejected.connect(self.close)
        self.finished.connect(lambda _r: self.llm_page.stop_check() if hasattr(self.llm_page, "stop_check") else None)
        layout = QVBoxLayout(self)
        layout.addWidget(tabs)
        layout.addWidget(buttons)
        self.tabs = tabs
        self.load()

    def load(self) -> None:
        s = self.settings
        self.record.setChecked(s.get("record"))
        self.compress.setChecked(s.get("compress"))
        self.folder.setText(str(s.recordings_dir))
        i = self.default_scenario.findData(s.get("default_scenario"))
        self.default_scenario.setCurrentIndex(max(0, i))
        self.speed.setValue(s.get("speed"))
        self.animate.setChecked(s.get("animate"))
        self.show_plans.setChecked(s.get("show_plans"))
        self.toast_seconds.setValue(s.get("toast_seconds"))
        self.panel_hz.setValue(s.get("panel_hz"))

    def _browse(self) -> None:
        folder = QFileDialog.getExistingDirectory(self, "Recordings folder", self.folder.text())
        if folder:
            self.folder.setText(folder)

    def save(self) -> None:
        s = self.settings
        s.set("record", self.record.isChecked())
        s.set("compress", self.compress.isChecked())
        folder = self.folder.text().strip()
        s.set("recordings_dir", "" if folder == default_recordings_dir() else folder)
        s.set("default_scenario", self.default_scenario.currentData() or "")
        s.set("speed", float(self.speed.value()))
        s.set("animate", self.animate.isChecked())
        s.set("show_plans", self.show_plans.isChecked())
        s.set("toast_seconds", float(self.toast_seconds.value()))
        s.set("panel_hz", int(self.panel_hz.value()))
        s.sync()
        self.llm_page.save()
        self.changed.emit()
