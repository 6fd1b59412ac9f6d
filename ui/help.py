"""Help pages: how to play each world (its rules from the world's plug-in, the keys of its view,
what the panels mean, who can take a seat), the keyboard shortcuts of the whole app, and where
the ideas come from (the papers).

One non-modal window with a list of pages and a scrolling text: it never runs off the screen
and the game goes on while it is open.
"""

from __future__ import annotations

import html
from typing import Any

from PyQt6.QtCore import Qt
from PyQt6.QtWidgets import QDialog, QHBoxLayout, QListWidget, QTextBrowser, QWidget

from sim.plugins import plugins

KEYS_PAGE = "Keyboard shortcuts"
PAPERS_PAGE = "About the papers"

#: what each panel shows, in plain words (the window's own panels and those registered by kind)
PANEL_HELP = [
    ("World view", "The map (or board). Each agent carries its name and colour; a line in its colour is its "
                   "current plan (V hides them). A blue arrow is a suggestion being carried out. With a seat of "
                   "yours to move, the cells you can go to glow green."),
    ("As X believes it", "View > As X believes it (B cycles) draws the world as one mind believes it: objects "
                         "where it thinks they are as see-through ghosts in its colour, a false belief crossed "
                         "out in red with a dashed red arrow to where the thing really is, places it has never "
                         "seen hatched grey. Also what one agent thinks another believes, ProToM's particles "
                         "(what it thinks a cook believes) and, in Doors, Keys and Gems, each agent's believed "
                         "goal (bars under the gems, the likeliest framed)."),
    ("Belief timeline", "Each agent's false beliefs: when each arose and why, how long it lasted and what ended "
                        "it (its own observation, a message, a facilitator's feedback). Click one to go to that "
                        "step."),
    ("Feedback history", "Every suggestion a facilitator made, to whom, and what became of it: sent, accepted, "
                         "Completed (done), Ignored, Not Executable (it could no longer be done)."),
    ("Event log", "Everything that happened, step by step: moves and what they caused, suggestions, messages, "
                  "model calls, errors."),
    ("Goal inference", "What the facilitator believes each agent wants: a bar per goal with its probability "
                       "now, and the history as stacked columns, one per step. It sharpens as agents move."),
    ("Feedback candidates", "The suggestions the facilitator weighed at its last decision. 'Time saved' (the "
                            "papers call it utility) is how many ticks the team would gain on average; "
                            "'change' (divergence) is how different the suggestion is from what the agent "
                            "would do anyway. It sends one only when it saves more than φ ticks and changes "
                            "more than ε; the one it sent is marked."),
    ("ToM values", "TradeCraft traders' values of items on a 0-10 scale: V0 is what an item is worth to the "
                   "trader itself, V1 what it believes the item is worth to the other player, V2 what it "
                   "believes the other player thinks it is worth to the trader. KL measures how far its V1 "
                   "is from the other's own V0 (0: a perfect guess; bigger: further off)."),
    ("Teams", "Who is in which team over the episode; each numbered mark is a (re)formation, listed with its "
              "reason; below, the share of team pairs that predict each other badly, against the threshold θ."),
    ("Alignment", "How well each agent predicted each other one (φ from -1, red, to +1, blue; row i predicted "
                  "column j; '?': not checked yet). Outlined cells are below the trust threshold ε; the bar "
                  "compares the team's share of such pairs with θ, above which the team re-forms."),
    ("Team stability", "The team's welfare and whether any group inside it would rather split off (stable), "
                       "how well members predict each other (BAS), the re-formation monitor, each agent's team, "
                       "ToM level and scores, and how long each team lasted and why it formed. The badges "
                       "k0/k1/k2 on the map are the agents' ToM levels, in their team's colour."),
    ("Messages", "Every message agents sent, with its words and what it cost."),
    ("LLM usage", "Calls to a language model: how many, tokens sent and received, failures and time."),
]


def page_title(family: str) -> str:
    """The How-to-play page's name: the world's title without its parenthesis."""
    return f"How to play: {plugins()[family].title.split(' (')[0]}"


def world_page(family: str, renderer: Any = None) -> str:
    """The How-to-play page of a world family, as HTML."""
    from ui.session import catalog

    plugin = plugins()[family]
    parts = [f"<h2>How to play: {html.escape(plugin.title)}</h2>",
             f"<p>{html.escape(plugin.rules_text)}</p>"]
    bindings = renderer.key_bindings() if renderer is not None else world_keys(family)
    if bindings:
        rows = "".join(f"<tr><td><b>{html.escape(b.keys)}</b>&nbsp;&nbsp;</td><td>{html.escape(b.action)}</td></tr>"
                       for b in bindings)
        parts.append(f"<h3>Keys when you play a seat</h3><table>{rows}</table>"
                     "<p>Keys go to the map: click it if another part of the window took them. When two of you "
                     "play at once, the second seat uses W A S D (move), Q (wait) and E (interact); F6 swaps.</p>")
    seats = catalog.agent_choices(family)
    if seats:
        rows = "".join(f"<li><b>{html.escape(k)}</b>: {html.escape(catalog.PLAIN_KINDS.get(k, s))}</li>"
                       for k, s in seats)
        parts.append(f"<h3>Who can take a seat</h3><ul>{rows}</ul>")
    mechanisms = catalog.mechanism_choices("facilitator", family)
    if mechanisms:
        rows = "".join(f"<li><b>{html.escape(k)}</b>: {html.escape(catalog.PLAIN_MECHANISMS.get(k, s))}</li>"
                       for k, s in mechanisms)
        parts.append(f"<h3>Who can watch and suggest</h3><ul>{rows}</ul>"
                     "<p>A suggestion to a seat you play pops up in blue: <b>Accept</b> (Enter) or <b>Ignore</b> "
                     "(Esc). An ignored suggestion is not shown again until something happens in the world "
                     "(an item picked up or handed over, a door opened...). <i>No more pop-ups</i> turns them off "
                     "for the episode.</p>")
    rows = "".join(f"<li><b>{html.escape(t)}</b>: {html.escape(d)}</li>" for t, d in PANEL_HELP)
    parts.append(f"<h3>What the panels mean</h3><ul>{rows}</ul>")
    return "\n".join(parts)


def world_keys(family: str) -> list[Any]:
    """The human-seat keys of a family's view, from a renderer of its first scenario."""
    from sim.registry import load_scenario
    from ui.render import renderer_for
    from ui.session import catalog

    info = next((i for i in catalog.scenarios() if i.family == family), None)
    if info is None:
        return []
    try:
        world, _ = load_scenario(str(info.path))
        return list(renderer_for(world).key_bindings())
    except Exception:  # a view that cannot be built here: the page still has the rules
        return []


def keys_page(actions: list[tuple[str, str]]) -> str:
    rows = "".join(f"<tr><td><b>{html.escape(k)}</b>&nbsp;&nbsp;</td><td>{html.escape(t)}</td></tr>" for k, t in actions)
    parts = [f"<h2>{KEYS_PAGE}</h2><h3>The app</h3><table>{rows}</table>"]
    from ui.session import catalog

    for family in sorted({i.family for i in catalog.scenarios()}):
        bindings = world_keys(family)
        if bindings:
            rows = "".join(f"<tr><td><b>{html.escape(b.keys)}</b>&nbsp;&nbsp;</td><td>{html.escape(b.action)}</td></tr>"
                           for b in bindings)
            parts.append(f"<h3>Playing a seat in {html.escape(plugins()[family].title)}</h3><table>{rows}</table>")
    parts.append("<p>Two people at one keyboard: the second seat uses W A S D (move), Q (wait), E (interact); "
                 "F6 gives the main keys to the other seat.</p>")
    return "\n".join(parts)


PAPERS = f"""<h2>{PAPERS_PAGE}</h2>
<p>ToM Arena puts into practice ideas from five research papers about <i>theory of mind</i>: the ability to
think about what others want, know and believe, and to act on it. Each part of the app follows its paper's
algorithms, parameters and measures; where a paper leaves something open, the project's docs say what was
chosen and why.</p>
<h3>A facilitator that helps people help each other (ProToM)</h3>
<p>In <b>Doors, Keys and Gems</b> each agent wants one gem, some behind locked doors. A facilitator watches,
works out from how each agent moves which gem it is probably after (Bayesian inverse planning over a few
guesses of what each agent has seen), and estimates for every possible piece of help — unlock a door, hand
over a key — how much time it would save the team. It only speaks when the help saves enough time and asks
for something the agent would not do anyway, and it explains why ("I believe Alice is trying to get gem1,
and without your help..."). The same facilitator runs in a partially observable kitchen.</p>
<h3>Trading and crafting (TradeCraft)</h3>
<p>Two players each hold items and a secret target to craft. They take turns proposing trades, then craft.
The paper asks whether players reason about each other implicitly: traders report how much they value each
item for themselves (V0), for the other (V1) and what they think the other thinks (V2); the app compares
these guesses with the truth (the KL measure), plots what was offered against what was asked, and fits
how decisions weigh one's own gain against the other's.</p>
<h3>A shared picture of beliefs (CoBel-World)</h3>
<p>In household tasks two agents carry objects to their places. Each keeps a symbolic picture of who
believes what (including what the partner believes), updates it from what it sees and hears, predicts the
partner's intentions, and talks only when plans clash. Rule-based, planning and message-passing partners
from earlier work play the same tasks for comparison.</p>
<h3>Teams that understand each other (belief-aligned team formation)</h3>
<p>Two papers form teams of agents that predict each other well: how closely what one expects the other to
do matches what it does (alignment), which teams no member would rather leave (stability), and re-forming
teams when predictions stop matching. In the app this runs as a <b>Teams</b> mechanism beside any world.</p>
"""


class HelpDialog(QDialog):
    """Help pages in one window: a list on the left, the page on the right."""

    def __init__(self, window: Any, parent: QWidget | None = None) -> None:
        super().__init__(parent)
        self.setWindowTitle("ToM Arena help")
        self.setModal(False)
        self.window_ = window
        self.pages: dict[str, str] = {}
        self.index = QListWidget()
        self.index.setMaximumWidth(250)
        self.index.setWordWrap(True)
        self.text = QTextBrowser()
        self.text.setOpenExternalLinks(False)
        layout = QHBoxLayout(self)
        layout.addWidget(self.index)
        layout.addWidget(self.text, 1)
        self.index.currentTextChanged.connect(self._show)
        self._build()
        screen = self.screen().availableGeometry() if self.screen() is not None else None
        width, height = 900, 640
        if screen is not None:  # never larger than the screen: the text scrolls instead
            width, height = min(width, screen.width() - 40), min(height, screen.height() - 80)
        self.resize(width, height)

    def _build(self) -> None:
        from ui.session import catalog

        renderer = getattr(self.window_, "renderer", None)
        timeline = self.window_.model.timeline
        shown = timeline.world.family if timeline is not None else None
        families = sorted({i.family for i in catalog.scenarios()}, key=lambda f: plugins()[f].title)
        for family in families:
            title = page_title(family)
            self.pages[title] = "" if family != shown else world_page(family, renderer)
            self._families = getattr(self, "_families", {})
            self._families[title] = family
        actions = [(a.shortcut().toString(), a.text().replace("&", ""))
                   for a in self.window_.actions_by_name.values() if a.shortcut().toString()]
        self.pages[KEYS_PAGE] = keys_page(actions)
        self.pages[PAPERS_PAGE] = PAPERS
        self.index.addItems(list(self.pages))

    def _show(self, title: str) -> None:
        if not title:
            return
        if not self.pages.get(title):  # world pages are built when first read
            self.pages[title] = world_page(self._families[title])
        self.text.setHtml(self.pages[title])

    def open_page(self, title: str) -> None:
        items = self.index.findItems(title, Qt.MatchFlag.MatchExactly)
        if items:
            self.index.setCurrentItem(items[0])
        self.show()
        self.raise_()
        self.activateWindow()

    def rules_page(self, family: str | None) -> str:
        """The page of how to play ``family``'s world (the first page when it has none)."""
        if family and plugins().get(family) is not None:
            return page_title(family)
        return self.index.item(0).text() if self.index.count() else ""

    def page_text(self) -> str:
        return self.text.toPlainText()
