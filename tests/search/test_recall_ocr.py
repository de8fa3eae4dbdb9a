"""Keyword recall end to end: documentation-like screens rendered with real fonts, read by
the real OCR engine, indexed by the worker's path, and searched through the API."""

import time

import pytest

from tests.conftest import post_frame, render_text_image

pytestmark = pytest.mark.django_db(transaction=True)  # OCR is queued on commit

CHINESE_DOC = [
    "Linux 内核最初由Linus Torvalds编写",
    "1993年Ian Murdock建立了Debian项目",
    "在服务器上使用Docker部署服务",
]
PACKAGE_LOG = [
    "Unpacking libdouble-conversion3:amd64 (3.2.1-1) ...",
    "Setting up python3-requests (2.28.1) ...",
    "Paths are resolved relative to the project root",
]
CAMEL_CODE = [
    "maintainer = LinusTorvalds",
    "response = client.getHTTPResponse(url)",
]


CASES = [
    # (query, screen, what OCR must have read for the query to be fair)
    ("Torvalds", "chinese", "Torvalds编写"),  # English glued to Chinese
    ("Murdock", "chinese", "Murdock建立"),
    ("docker", "chinese", "Docker部署"),
    ("内核", "chinese", "内核"),  # the Chinese bigrams still work
    ("conversion", "log", "conversion3"),  # inside a longer token
    ("amd64", "log", "amd64"),
    ("relativ", "log", "relative"),  # typed in part
    ("torvalds", "code", "LinusTorvalds"),  # camel case glued by the page (or by OCR)
    ("response", "code", "getHTTPResponse"),
]


def found(api, start: float, q: str) -> list[int]:
    resp = api.get("/api/v1/search", {"q": q, "start_time": start, "mode": "keyword"})
    assert resp.status_code == 200, resp.content
    return [item["content"]["frame_id"] for item in resp.json()["data"]]


def test_words_read_by_ocr_are_found_exact_words_first(api, immediate_ocr_keyword):
    start = time.time() - 60
    ids, texts = {}, {}
    for name, lines in (("chinese", CHINESE_DOC), ("log", PACKAGE_LOG), ("code", CAMEL_CODE)):
        resp = post_frame(api, render_text_image(lines, size=(1100, 60)), app_name="Firefox", window_name=name)
        assert resp.status_code == 201, resp.content
        ids[name] = resp.json()["frame_id"]
        texts[name] = api.get(f"/api/v1/frames/{ids[name]}/ocr").json()["text"]
    misread = [(screen, on_screen) for _, screen, on_screen in CASES if on_screen not in texts[screen]]
    assert not misread, f"OCR did not read {misread}: {texts}"  # else the search would be judged unfairly
    missed = [q for q, screen, _ in CASES if ids[screen] not in found(api, start, q)]
    assert not missed, f"not found: {missed}"
    assert found(api, start, "Torvalds") == [ids["chinese"], ids["code"]]  # a word, then a part of one
