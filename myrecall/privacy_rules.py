"""What the privacy rules mean, in plain Python with no dependency, so that the server (every
capture source) and the capture client (so that an excluded screen never leaves the desktop)
apply exactly the same rules.

A rule is a pattern, compared without regard to letter case:
- with `*` (any text) or `?` (one character) it must match the whole value, as a shell glob:
  `*Private Browsing*`, `https://*.bank.example/*`;
- without them it matches when it appears anywhere in the value: `1password` excludes the app
  "1Password", `bank.example` every URL on that site. App rules without wildcards must be the
  whole app name instead ("Code" must not exclude "VS Codeium").

Secret redaction (optional, off by default) replaces, in OCR text, what looks like an e-mail
address, a payment card number (13-19 digits passing the Luhn check) or an API key or token
(well-known prefixes, or a long random-looking word) with a marker naming what it was."""

import fnmatch
import re
from dataclasses import dataclass

KINDS = ("app", "window", "url")
MAX_RULES = 200
MAX_RULE_CHARS = 300


@dataclass(frozen=True)
class PrivacyRules:
    apps: tuple[str, ...] = ()
    windows: tuple[str, ...] = ()
    urls: tuple[str, ...] = ()
    redact_secrets: bool = False
    capture_paused: bool = False

    @classmethod
    def from_json(cls, data: dict) -> "PrivacyRules":
        return cls(
            apps=tuple(data.get("excluded_apps") or ()),
            windows=tuple(data.get("excluded_windows") or ()),
            urls=tuple(data.get("excluded_urls") or ()),
            redact_secrets=bool(data.get("redact_secrets")),
            capture_paused=bool(data.get("capture_paused")),
        )

    def to_json(self) -> dict:
        return {
            "excluded_apps": list(self.apps),
            "excluded_windows": list(self.windows),
            "excluded_urls": list(self.urls),
            "redact_secrets": self.redact_secrets,
            "capture_paused": self.capture_paused,
        }


@dataclass(frozen=True)
class Exclusion:
    kind: str  # app | window | url
    pattern: str
    value: str

    @property
    def reason(self) -> str:
        what = {"app": "the app", "window": "the window title", "url": "the URL"}[self.kind]
        return f"{what} “{self.value}” matches the excluded {self.kind} pattern “{self.pattern}”"


def _has_wildcard(pattern: str) -> bool:
    return "*" in pattern or "?" in pattern


def pattern_matches(pattern: str, value: str, *, whole: bool = False) -> bool:
    pattern, value = pattern.strip().casefold(), value.casefold()
    if not pattern or not value:
        return False
    if _has_wildcard(pattern):
        # [ ] are literal: window titles and URLs have them, and nobody means a character class.
        return fnmatch.fnmatchcase(value, pattern.replace("[", "[[]"))
    return value == pattern if whole else pattern in value


def rules_clean(patterns, *, kind: str) -> tuple[str, ...]:
    """Patterns as stored: stripped, blank lines and repeats dropped. Raises ValueError with the
    reason when there are too many or one is too long."""
    cleaned = list(dict.fromkeys(p.strip() for p in patterns if p and p.strip()))
    if len(cleaned) > MAX_RULES:
        raise ValueError(f"at most {MAX_RULES} excluded {kind} patterns")
    for pattern in cleaned:
        if len(pattern) > MAX_RULE_CHARS:
            raise ValueError(f"an excluded {kind} pattern is longer than {MAX_RULE_CHARS} characters: {pattern[:40]}…")
    return tuple(cleaned)


def exclusion_find(rules: PrivacyRules, *, app_name: str = "", window_name: str = "", browser_url: str = "") -> Exclusion | None:
    """The first rule that excludes a frame with this context, or None."""
    for kind, patterns, value in (
        ("app", rules.apps, app_name or ""),
        ("window", rules.windows, window_name or ""),
        ("url", rules.urls, browser_url or ""),
    ):
        for pattern in patterns:
            if pattern_matches(pattern, value, whole=kind == "app"):
                return Exclusion(kind=kind, pattern=pattern, value=value)
    return None


_EMAIL = re.compile(r"\b[\w.+-]{1,64}@[\w-]{1,63}(?:\.[\w-]{1,63})*\.[A-Za-z]{2,24}\b")
_CARD = re.compile(r"(?<![\d-])(?:\d[ -]?){12,18}\d(?![\d-])")
_KEY_PREFIXED = re.compile(
    r"\b(?:sk|pk|rk)[-_](?:live|test|proj|ant)?[-_]?[A-Za-z0-9_-]{16,}"  # Stripe, OpenAI, Anthropic
    r"|\bgh[pousr]_[A-Za-z0-9]{30,}"  # GitHub
    r"|\bgithub_pat_[A-Za-z0-9_]{30,}"
    r"|\bxox[abposr]-[A-Za-z0-9-]{10,}"  # Slack
    r"|\bAKIA[0-9A-Z]{16}\b"  # AWS access key id
    r"|\bAIza[0-9A-Za-z_-]{35}"  # Google API key
    r"|\beyJ[A-Za-z0-9_-]{10,}\.[A-Za-z0-9_-]{10,}\.[A-Za-z0-9_-]{10,}"  # JWT
)
# A long word mixing lower case, upper case and digits, as generated keys and tokens do.
_KEY_RANDOM = re.compile(r"(?<![\w/.-])(?=[A-Za-z0-9_\-]*[a-z])(?=[A-Za-z0-9_\-]*[A-Z])(?=[A-Za-z0-9_\-]*\d)[A-Za-z0-9_\-]{32,}(?![\w/.-])")


def _luhn(digits: str) -> bool:
    total = 0
    for index, char in enumerate(reversed(digits)):
        value = int(char)
        if index % 2:
            value = value * 2 - 9 if value > 4 else value * 2
        total += value
    return total % 10 == 0


def _card(match: re.Match) -> str:
    digits = re.sub(r"\D", "", match.group())
    return "[card number]" if 13 <= len(digits) <= 19 and _luhn(digits) else match.group()


def secrets_redact(text: str) -> str:
    """The text with e-mail addresses, card numbers and API keys replaced by markers."""
    if not text:
        return text
    text = _KEY_PREFIXED.sub("[api key]", text)
    text = _KEY_RANDOM.sub("[api key]", text)
    text = _EMAIL.sub("[email]", text)
    return _CARD.sub(_card, text)
