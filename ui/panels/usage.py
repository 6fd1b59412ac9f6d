"""The LLM usage panel: model calls and tokens per agent and module, as of the shown step."""

from __future__ import annotations

from collections import defaultdict

from PyQt6.QtCore import Qt
from PyQt6.QtGui import QFont
from PyQt6.QtWidgets import QTableWidget, QTableWidgetItem, QWidget

from sim.events import LLMCallEvent
from ui.panels.common import read_only_table
from ui.session.timeline import Timeline


class UsageTally:
    """Calls, tokens, faults and seconds per (agent, module), added to call by call."""

    def __init__(self) -> None:
        self.rows: dict[tuple[str, str], list[float]] = defaultdict(lambda: [0, 0, 0, 0, 0.0])

    def add(self, call: LLMCallEvent) -> None:
        row = self.rows[(call.agent, call.module)]
        row[0] += 1
        row[1] += call.prompt_tokens
        row[2] += call.completion_tokens
        row[3] += call.error is not None
        row[4] += call.seconds

    def table(self) -> list[tuple[str, str, int, int, int, int, float]]:
        """(agent, module, calls, prompt tokens, completion tokens, faults, seconds) per agent and
        module, then a total row (agent "all") when there are several."""
        table = [(agent, module, int(r[0]), int(r[1]), int(r[2]), int(r[3]), r[4])
                 for (agent, module), r in sorted(self.rows.items())]
        if len(table) > 1:
            table.append(("all", "", *(int(sum(r[i] for r in table)) for i in range(2, 6)),
                          sum(r[6] for r in table)))
        return table


def llm_usage(calls: list[LLMCallEvent]) -> list[tuple[str, str, int, int, int, int, float]]:
    """(agent, module, calls, prompt tokens, completion tokens, faults, seconds) per agent and module,
    then a total row (agent "all")."""
    tally = UsageTally()
    for call in calls:
        tally.add(call)
    return tally.table()


class LLMUsagePanel(QTableWidget):
    """Prompt and completion tokens per agent and module (planning, messaging, feedback...)."""

    COLUMNS = ("agent", "module", "calls", "prompt tokens", "completion tokens", "faults", "model time")

    def __init__(self, parent: QWidget | None = None) -> None:
        super().__init__(0, len(self.COLUMNS), parent)
        read_only_table(self, self.COLUMNS)
        self._timeline: Timeline | None = None
        self._tally, self._read = UsageTally(), 0
        self.rows: list[tuple] = []
        #: calls read by the last refresh (it adds only the calls it had not counted)
        self.visited = 0

    def show_at(self, timeline: Timeline | None, tick: int) -> None:
        count = timeline.count_of(LLMCallEvent, tick) if timeline is not None else 0
        self.visited = 0
        if timeline is not self._timeline or count < self._read:  # another episode, or looking back
            self._timeline, self._tally, self._read = timeline, UsageTally(), 0
            self.rows = []
            self.setRowCount(0)
        if count == self._read:
            return
        for call in timeline.of_type(LLMCallEvent)[self._read:count]:
            self._tally.add(call)
        self.visited, self._read = count - self._read, count
        self.rows = self._tally.table()
        self.setRowCount(len(self.rows))
        bold = QFont()
        bold.setBold(True)
        for i, (agent, module, n, prompt, completion, faults, seconds) in enumerate(self.rows):
            for j, value in enumerate((agent, module, n, prompt, completion, faults, f"{seconds:.1f} s")):
                item = QTableWidgetItem(str(value))
                if j >= 2:
                    item.setTextAlignment(Qt.AlignmentFlag.AlignRight | Qt.AlignmentFlag.AlignVCenter)
                if agent == "all":
                    item.setFont(bold)
                self.setItem(i, j, item)

    def totals(self) -> tuple[int, int]:
        """(prompt, completion) tokens over every shown call."""
        return (sum(r[3] for r in self.rows if r[0] != "all"), sum(r[4] for r in self.rows if r[0] != "all"))
