"""The KDE test session itself (tests.capture.kde) for real: a headless KWin 5.27 whose script
reports the active window as a GTK window takes the focus and changes its title; the ScreenCast
portal asked by a program of the session's user (as the capture client will ask it), its KDE
dialog clicked: Share gives a stream per monitor chosen and a restore token, the token starts the
next share with no dialog, Cancel ends the request."""

import json
import subprocess

import pytest

from tests.capture.kde import Kde

# A portal caller, as the session's user: CreateSession, SelectSources (monitors, several, cursor
# hidden, persist until revoked; the restore token given as argv[1]), Start; prints Start's
# response code and results as JSON (the streams as [node, properties]).
PORTAL_START = r"""
import json, secrets, sys
from jeepney import DBusAddress, MatchRule, new_method_call
from jeepney.bus_messages import message_bus
from jeepney.io.blocking import open_dbus_connection

bus = open_dbus_connection(bus="SESSION")
sender = bus.unique_name[1:].replace(".", "_")
portal = DBusAddress("/org/freedesktop/portal/desktop", bus_name="org.freedesktop.portal.Desktop",
                     interface="org.freedesktop.portal.ScreenCast")


def request(method, signature, *body):
    token = "myrecall_" + secrets.token_hex(4)
    rule = MatchRule(type="signal", interface="org.freedesktop.portal.Request", member="Response",
                     path=f"/org/freedesktop/portal/desktop/request/{sender}/{token}")
    bus.send_and_get_reply(message_bus.AddMatch(rule))
    *head, options = body
    with bus.filter(rule) as responses:
        bus.send_and_get_reply(new_method_call(portal, method, signature, (*head, {**options, "handle_token": ("s", token)})))
        code, results = bus.recv_until_filtered(responses, timeout=120).body
    return code, {key: value for key, (_signature, value) in results.items()}


_, created = request("CreateSession", "a{sv}", {"session_handle_token": ("s", "myrecall_" + secrets.token_hex(4))})
session = created["session_handle"]
sources = {"types": ("u", 1), "multiple": ("b", True), "cursor_mode": ("u", 1), "persist_mode": ("u", 2)}
if sys.argv[1]:
    sources["restore_token"] = ("s", sys.argv[1])
request("SelectSources", "oa{sv}", session, sources)
code, started = request("Start", "osa{sv}", session, "", {})
streams = [[node, {key: value for key, (_signature, value) in properties.items()}] for node, properties in started.get("streams", [])]
print(json.dumps({"code": code, "restore_token": started.get("restore_token"), "streams": streams}), flush=True)
"""


def portal_start(kde: Kde, token: str = "") -> subprocess.Popen:
    return kde.python(["-c", PORTAL_START, token], stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True)


def started(proc: subprocess.Popen) -> dict:
    out, err = proc.communicate(timeout=90)
    assert proc.returncode == 0, err
    return json.loads(out)


@pytest.fixture(scope="module")
def kde():
    session = Kde()
    yield session
    session.close()


def test_a_window_takes_the_focus_and_the_screen_is_shared_once_then_restored_with_its_token(kde):
    kde.window("org.example.Notes", "Planning notes", "Zebracalm quorum notes")
    assert kde.active()["resourceClass"] == "org.example.Notes" and kde.active()["screen"] == 0
    kde.show("org.example.Notes", "Ferries", "Xylofern harbour schedule")
    kde.focus_wait("org.example.Notes", "Ferries")  # a caption change is reported too
    asking = portal_start(kde)
    kde.dialog_answer("share")
    first = started(asking)
    assert first["code"] == 0 and first["restore_token"], first
    assert [properties for _node, properties in first["streams"]] == [{"size": [1920, 1080], "source_type": 1}], first
    # The next start with the token: shared again with no dialog (nobody answers one here).
    again = started(portal_start(kde, first["restore_token"]))
    assert again["code"] == 0 and len(again["streams"]) == 1 and again["restore_token"], again
    assert kde.focus() == ("org.example.Notes", "Ferries")


def test_two_monitors_are_shared_in_the_dialog_and_cancel_shares_none():
    kde = Kde(monitors=2)
    try:
        kde.window("org.example.Notes", "Left screen", "Quillfather harbour chart")
        asking = portal_start(kde)
        kde.dialog_answer("cancel")
        assert started(asking) == {"code": 1, "restore_token": None, "streams": []}
        asking = portal_start(kde)
        kde.dialog_answer("share", monitors=2)
        shared = started(asking)
        assert shared["code"] == 0 and shared["restore_token"], shared
        assert [properties for _node, properties in shared["streams"]] == [{"size": [1920, 1080], "source_type": 1}] * 2, shared
    finally:
        kde.close()
