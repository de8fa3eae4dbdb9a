"""Which windows are a browser's, and whether a window shows a given tab, in plain Python with no
dependency: the server pairs the browser extension's reports of the active tab with frames of that
browser's windows by these rules, and the capture client uses them to know a browser window when it
has the focus.

A browser is named by a key. Its windows are known by their X11 class (the capture client's
app_name, any letter case) and its window titles are "<page title> - Chromium",
"<page title> — Mozilla Firefox" (then " Private Browsing"), "<page title> - Google Chrome" and so
on. The extension names its browser as the browser says ("Chromium 140", "Google Chrome",
"Firefox"); a Chromium-based browser that calls itself just "Chromium" (Vivaldi does) is
taken for any browser of the Chromium family."""

import re
from dataclasses import dataclass


@dataclass(frozen=True)
class Browser:
    key: str
    family: str  # chromium | firefox
    names: tuple[str, ...]  # how it names itself, and what its window titles end with
    classes: tuple[str, ...]  # X11 WM_CLASS class names of its windows, lower case


BROWSERS = (
    Browser("chromium", "chromium", ("Chromium",), ("chromium", "chromium-browser")),
    Browser("chrome", "chromium", ("Google Chrome",), ("google-chrome", "google-chrome-stable", "google-chrome-beta", "google-chrome-unstable")),
    Browser("edge", "chromium", ("Microsoft Edge", "Microsoft\u200b Edge"), ("microsoft-edge", "microsoft-edge-beta", "microsoft-edge-dev")),
    Browser("brave", "chromium", ("Brave",), ("brave-browser",)),
    Browser("vivaldi", "chromium", ("Vivaldi",), ("vivaldi-stable", "vivaldi")),
    Browser("opera", "chromium", ("Opera",), ("opera",)),
    Browser("firefox", "firefox", ("Mozilla Firefox", "Firefox"), ("firefox", "firefox-esr", "navigator", "firefox-developer-edition", "firefox-nightly")),
    Browser("librewolf", "firefox", ("LibreWolf",), ("librewolf",)),
)
BY_KEY = {browser.key: browser for browser in BROWSERS}
_BY_CLASS = {cls: browser for browser in BROWSERS for cls in browser.classes}
# What separates a page title from the browser's name in a window title.
_SEPARATORS = (" - ", " — ", " – ")
_SPACES = re.compile(r"\s+")


def browser_of_app(app_name: str) -> Browser | None:
    """The browser whose windows have this X11 class, or None."""
    return _BY_CLASS.get((app_name or "").strip().casefold())


def _name_key(name: str) -> str:
    return _SPACES.sub(" ", (name or "").replace("\u200b", "")).casefold()


def browser_of_name(name: str) -> Browser | None:
    """The browser an extension's report names ("Chromium 140.0", "Google Chrome", "Firefox"), or
    None. The longest name found in it wins: "Google Chrome" before a "Chromium" beside it."""
    said = _name_key(name)
    found = [(len(known), browser) for browser in BROWSERS for known in browser.names if _name_key(known) in said]
    return max(found, key=lambda pair: pair[0])[1] if found else None


def browser_name_pattern() -> str:
    """A regular expression (JSON Schema's, unanchored) that a name browser_of_name knows holds."""
    names = sorted({_name_key(known) for browser in BROWSERS for known in browser.names}, key=len, reverse=True)
    return "|".join("".join(f"[{c}{c.upper()}]" if c.isalpha() else c for c in name) for name in names)  # letters and spaces


def report_keys_for_app(app_name: str) -> tuple[str, ...]:
    """The keys whose reports may describe a window of this app: its own browser's, and for a
    Chromium-based browser also "chromium" (a browser that names itself by its engine); () for an
    app that is not a known browser."""
    browser = browser_of_app(app_name)
    if browser is None:
        return ()
    if browser.family == "chromium" and browser.key != "chromium":
        return (browser.key, "chromium")
    return (browser.key,)


def app_classes_for_report(key: str) -> tuple[str, ...]:
    """The X11 classes (lower case) of the windows a report of this browser key may describe."""
    browser = BY_KEY.get(key)
    if browser is None:
        return ()
    if key == "chromium":
        return tuple(cls for other in BROWSERS if other.family == "chromium" for cls in other.classes)
    return browser.classes


def _normal(text: str) -> str:
    return _SPACES.sub(" ", (text or "").replace("\u200b", "")).strip()


def window_shows_tab(window_name: str, tab_title: str) -> bool:
    """Whether a browser window titled `window_name` shows the tab titled `tab_title`: the window
    title is the tab's, alone or followed by a separator and the browser's name (and what a browser
    adds after it, such as Firefox's "Private Browsing")."""
    window, title = _normal(window_name), _normal(tab_title)
    if not title or not window:
        return False
    if window == title:
        return True
    for separator in _SEPARATORS:
        if window.startswith(title + separator):
            rest = window[len(title) + len(separator):].casefold()
            return any(rest.startswith(_normal(name).casefold()) for browser in BROWSERS for name in browser.names)
    return False
