"""The desktop app on a real X server: a private Xvfb started by the fixture below.

Qt picks its platform once per process, and this pytest process runs offscreen; so the
cases in ``ui_xvfb_cases.py`` run in a child pytest on the ``xcb`` platform against the
Xvfb display, and each case's result is checked here by name.
"""

from __future__ import annotations

import subprocess
import sys
import xml.etree.ElementTree as ET
from pathlib import Path

import pytest

from ui.shots.xvfb import display_env, virtual_display

ROOT = Path(__file__).resolve().parent.parent
CASES = Path(__file__).with_name("ui_xvfb_cases.py")
CASE_NAMES = ["test_qt_runs_on_the_x_server", "test_screenshot_from_the_x_server_shows_walls_and_agents",
              "test_human_key_presses_under_x", "test_record_reopen_seek_back_and_take_over_under_x",
              "test_receive_and_accept_feedback_under_x"]


@pytest.fixture(scope="module")
def xvfb_results(tmp_path_factory):
    out = tmp_path_factory.mktemp("xvfb")
    report = out / "report.xml"
    with virtual_display(1600, 1000, 24) as display:
        proc = subprocess.run(
            [sys.executable, "-m", "pytest", "-q", "-p", "no:cacheprovider", str(CASES),
             f"--junitxml={report}", f"--basetemp={out / 'tmp'}", "-o", "addopts="],
            cwd=ROOT, env=display_env(display), capture_output=True, text=True, timeout=900)
    assert report.exists(), f"the Xvfb cases did not run:\n{proc.stdout[-3000:]}\n{proc.stderr[-3000:]}"
    results = {}
    for case in ET.parse(report).getroot().iter("testcase"):
        failure = case.find("failure")
        if failure is None:
            failure = case.find("error")
        skipped = case.find("skipped")
        results[case.get("name")] = ("failed: " + (failure.get("message") or "") + "\n" + (failure.text or "")
                                     if failure is not None else "skipped" if skipped is not None else "passed")
    results["_output"] = proc.stdout[-3000:] + proc.stderr[-3000:]
    return results


@pytest.mark.slow
@pytest.mark.parametrize("case", CASE_NAMES)
def test_under_xvfb(xvfb_results, case):
    assert case in xvfb_results, f"{case} did not run:\n{xvfb_results['_output']}"
    assert xvfb_results[case] == "passed", xvfb_results[case]
