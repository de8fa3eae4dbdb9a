"""The one module that talks to the MyRecall server (requests): posting a frame or a report,
reading the privacy rules, asking whether a browser window's active tab may be captured. Every
answer is sorted into what the client does next."""

import enum
from dataclasses import dataclass

import requests

TIMEOUT_S = (5, 30)  # connect, read
TAB_TIMEOUT_S = (0.5, 1.0)  # asked before a screenshot: a slow server must not hold capture up


class Outcome(enum.Enum):
    STORED = "stored"  # created, already there (same client_frame_id), or a near-duplicate skipped
    REFUSED = "refused"  # the server will never take it (excluded by a privacy rule, bad image): drop it
    RETRY = "retry"  # the server is unreachable or failing: keep it and try again later
    BAD_TOKEN = "bad token"  # 401/403: nothing will work until the user fixes it
    NOT_MYRECALL = "not a MyRecall server"  # 404 on the API, or an answer that is not ours


@dataclass(frozen=True)
class Answer:
    outcome: Outcome
    detail: str
    frame_id: int | None = None


def _failure(exc: Exception) -> str:
    """A network error in a few words: "connection refused", "timed out"."""
    if isinstance(exc, requests.Timeout):
        return "timed out"
    text = str(exc)
    for known in ("Connection refused", "Name or service not known", "No route to host", "Connection reset"):
        if known in text:
            return known.lower()
    return type(exc).__name__


class Server:
    def __init__(self, base_url: str, token: str):
        self.base_url = base_url.rstrip("/")
        self.session = requests.Session()
        self.session.headers["Authorization"] = f"Bearer {token}"

    @staticmethod
    def _message(response) -> str:
        try:
            return response.json().get("message") or response.text[:200]
        except ValueError:
            return response.text[:200]

    def _sorted(self, response) -> Answer | None:
        if response.status_code in (401, 403):
            return Answer(Outcome.BAD_TOKEN, f"{response.status_code}: {self._message(response)}")
        if response.status_code == 404:
            return Answer(Outcome.NOT_MYRECALL, f"{response.url} answered 404")
        if response.status_code >= 500 or response.status_code in (408, 429):
            return Answer(Outcome.RETRY, f"the server answered {response.status_code}: {self._message(response)}")
        return None

    def frame_post(self, image: bytes, meta: dict) -> Answer:
        fields = {
            "timestamp": str(meta["timestamp_ns"] / 1e9),
            "app_name": meta.get("app_name", ""),
            "window_name": meta.get("window_name", ""),
            "browser_url": meta.get("browser_url", ""),
            "device_name": meta["device_name"],
            "client_frame_id": meta["client_frame_id"],
        }
        if meta.get("focused") is not None:
            fields["focused"] = "true" if meta["focused"] else "false"
        if meta.get("monitor"):  # only then: an older server takes no such field
            fields["monitor"] = meta["monitor"]
        try:
            response = self.session.post(
                f"{self.base_url}/api/v1/frames", data=fields, files={"image": ("frame.png", image, "image/png")}, timeout=TIMEOUT_S
            )
        except requests.RequestException as exc:
            return Answer(Outcome.RETRY, _failure(exc))
        if answer := self._sorted(response):
            return answer
        if response.status_code in (200, 201):
            try:
                body = response.json()
            except ValueError:
                return Answer(Outcome.NOT_MYRECALL, "the answer to a frame was not JSON")
            return Answer(Outcome.STORED, body.get("status", ""), body.get("frame_id"))
        return Answer(Outcome.REFUSED, f"{response.status_code}: {self._message(response)}")

    def report_post(self, report: dict, *, timeout=TIMEOUT_S) -> Answer:
        try:
            response = self.session.post(f"{self.base_url}/api/v1/capture/report", json=report, timeout=timeout)
        except requests.RequestException as exc:
            return Answer(Outcome.RETRY, _failure(exc))
        if answer := self._sorted(response):
            return answer
        if response.status_code == 200:
            return Answer(Outcome.STORED, "ok")
        return Answer(Outcome.REFUSED, f"{response.status_code}: {self._message(response)}")

    def privacy_get(self) -> tuple[Answer, dict | None]:
        try:
            response = self.session.get(f"{self.base_url}/api/v1/privacy", timeout=TIMEOUT_S)
        except requests.RequestException as exc:
            return Answer(Outcome.RETRY, _failure(exc)), None
        if answer := self._sorted(response):
            return answer, None
        try:
            body = response.json()
        except ValueError:
            return Answer(Outcome.NOT_MYRECALL, f"{response.url} did not answer JSON"), None
        if response.status_code != 200 or "excluded_apps" not in body:
            return Answer(Outcome.NOT_MYRECALL, f"{response.url} answered {response.status_code} without privacy rules"), None
        return Answer(Outcome.STORED, "ok"), body

    def browser_tab_get(self, *, app_name: str, window_name: str, at: float) -> dict | None:
        """What the server knows of the browser window's active tab at `at` (GET /api/v1/browser/tab:
        browser, extension_seen, excluded, browser_url); None when it cannot say (not reachable, an older server)."""
        try:
            response = self.session.get(
                f"{self.base_url}/api/v1/browser/tab",
                params={"app_name": app_name, "window_name": window_name, "at": f"{at:.3f}"},
                timeout=TAB_TIMEOUT_S,
            )
        except requests.RequestException:
            return None
        if response.status_code != 200:
            return None
        try:
            body = response.json()
        except ValueError:
            return None
        return body if isinstance(body, dict) and "excluded" in body else None
