from datetime import datetime

import pytest


pytestmark = pytest.mark.django_db

T0 = 1_750_000_000.0  # a fixed moment; every frame and range here is relative to it


def search(api, q="", **params):
    params = {"q": q, "start_time": T0 - 3600, "end_time": T0 + 3600, **params}
    return api.get("/api/v1/search", {k: v for k, v in params.items() if v is not None})


def found(api, q="", **params) -> list[int]:
    resp = search(api, q, **params)
    assert resp.status_code == 200, resp.content
    return [item["content"]["frame_id"] for item in resp.json()["data"]]


def assert_400(resp, *words: str):
    assert resp.status_code == 400, resp.content
    body = resp.json()
    assert set(body) == {"message", "extra"}
    assert isinstance(body["extra"], dict)
    for word in words:
        assert word in body["message"], body["message"]


def test_english_word_and_phrase(api, frame_make):
    review = frame_make("Quarterly budget review with finance", at=T0)
    other = frame_make("review of the quarterly plan; budget later", at=T0 + 10)
    frame_make("nothing to see here", at=T0 + 20)
    assert sorted(found(api, "budget")) == sorted([review, other])
    assert found(api, '"budget review"') == [review]
    assert sorted(found(api, "Budget REVIEW")) == sorted([review, other])
    assert found(api, "marketing") == []


def test_result_shape(api, frame_make):
    frame_id = frame_make("deploy the server", at=T0, app_name="Terminal", window_name="bash", browser_url="")
    body = search(api, "deploy").json()
    assert body["pagination"] == {"limit": 20, "offset": 0, "total": 1}
    item = body["data"][0]
    assert item["type"] == "OCR"
    content = item["content"]
    assert content["frame_id"] == frame_id
    assert content["text"] == "deploy the server"
    assert content["app_name"] == "Terminal"
    assert content["window_name"] == "bash"
    assert content["browser_url"] == ""
    assert content["focused"] is True
    assert content["frame_url"] == f"/api/v1/frames/{frame_id}"
    assert content["score"] > 0
    assert datetime.fromisoformat(content["timestamp"].replace("Z", "+00:00")).timestamp() == T0


def test_chinese_two_and_three_character_words_are_found_inside_sentences(api, frame_make):
    meeting = frame_make("今天下午讨论机器学习项目的进度", at=T0)
    notes = frame_make("明天上午整理会议记录", at=T0 + 5)
    assert found(api, "学习") == [meeting]
    assert found(api, "讨论") == [meeting]
    assert found(api, "机器学") == [meeting]
    assert found(api, "会议") == [notes]
    assert found(api, "习机") == []
    assert found(api, "学习 进度") == [meeting]


def test_text_with_the_word_many_times_ranks_first(api, frame_make):
    once = frame_make("the release notes mention the deploy once among many other words here", at=T0 + 30)
    many = frame_make("deploy deploy deploy: deploy checklist before deploy", at=T0)
    twice = frame_make("deploy today, deploy again tomorrow with other words around", at=T0 + 60)
    body = search(api, "deploy").json()
    assert [item["content"]["frame_id"] for item in body["data"]] == [many, twice, once]
    scores = [item["content"]["score"] for item in body["data"]]
    assert scores == sorted(scores, reverse=True)


def test_filters_app_window_url_focused(api, frame_make):
    docs = frame_make("invoice 42", at=T0, app_name="Firefox", window_name="Invoices - Mail", browser_url="https://mail.example.com/inbox")
    code = frame_make("invoice 42", at=T0 + 1, app_name="Code", window_name="billing.py - project", focused=False)
    chat = frame_make("invoice 42", at=T0 + 2, app_name="Firefox Developer", window_name="Team chat", browser_url="https://chat.example.org/c/7")
    assert found(api, "invoice", app_name="firefox") == [docs]  # exact, any case
    assert found(api, "invoice", app_name="Fire") == []
    assert found(api, "invoice", window_name="invoices") == [docs]  # substring, any case
    assert found(api, "invoice", window_name="%") == []
    assert sorted(found(api, "invoice", browser_url="example")) == sorted([docs, chat])
    assert found(api, "invoice", browser_url="chat.example.org/c/") == [chat]
    assert found(api, "invoice", focused="false") == [code]
    assert sorted(found(api, "invoice", focused="true")) == sorted([docs, chat])
    assert found(api, "", app_name="CODE") == [code]


def test_metadata_is_searchable_too(api, frame_make):
    frame_id = frame_make("nothing special", at=T0, window_name="Quarterly roadmap - Docs")
    assert found(api, "roadmap") == [frame_id]


def test_time_range_edges_are_inclusive_and_a_frame_just_outside_is_not_found(api, frame_make):
    start, end = T0, T0 + 3600
    before = frame_make("edge marker", at=start - 0.0002)
    first = frame_make("edge marker", at=start)
    middle = frame_make("edge marker", at=start + 1800)
    last = frame_make("edge marker", at=end)
    after = frame_make("edge marker", at=end + 0.0002)
    frame_make("edge marker", at=end + 1)
    assert sorted(found(api, "edge", start_time=start, end_time=end)) == sorted([first, middle, last])
    assert sorted(found(api, "", start_time=start, end_time=end)) == sorted([first, middle, last])
    assert found(api, "edge", start_time=start - 0.0002, end_time=start - 0.0002) == [before]
    assert found(api, "edge", start_time=end + 0.0002, end_time=end + 0.0002) == [after]
    assert found(api, "edge", start_time=start + 0.0001, end_time=end - 0.0001) == [middle]


def test_end_time_defaults_to_now(api, frame_make):
    frame_id = frame_make("recent work", at=T0)
    assert found(api, "recent", start_time=T0 - 1, end_time=None) == [frame_id]


def test_browse_is_newest_first_with_total(api, frame_make):
    ids = [frame_make(f"screen number {i}", at=T0 + i) for i in range(5)]
    frame_make("outside the range", at=T0 + 7200)
    body = search(api, "", limit=2).json()
    assert [item["content"]["frame_id"] for item in body["data"]] == [ids[4], ids[3]]
    assert body["pagination"] == {"limit": 2, "offset": 0, "total": 5}
    assert body["data"][0]["content"]["score"] is None
    body = search(api, "", limit=2, offset=4).json()
    assert [item["content"]["frame_id"] for item in body["data"]] == [ids[0]]
    assert body["pagination"]["total"] == 5


def test_keyword_pagination_total_and_pages(api, frame_make):
    ids = [frame_make(f"report page {i}", at=T0 + i) for i in range(7)]
    body = search(api, "report", limit=3).json()
    assert body["pagination"] == {"limit": 3, "offset": 0, "total": 7}
    seen = [item["content"]["frame_id"] for item in body["data"]]
    for offset in (3, 6):
        page = search(api, "report", limit=3, offset=offset).json()
        assert page["pagination"]["total"] == 7
        seen += [item["content"]["frame_id"] for item in page["data"]]
    assert sorted(seen) == sorted(ids)
    past = search(api, "report", limit=3, offset=10).json()
    assert past["data"] == [] and past["pagination"]["total"] == 7


def test_many_matches_rank_the_newest_and_keep_an_exact_total(api, settings, frame_make):
    settings.SEARCH_RANK_MAX = 3
    strong = frame_make("alert alert alert alert", at=T0)  # the best, but older than the ranked window
    ids = [frame_make(f"alert number {i} with a few more words", at=T0 + 10 + i) for i in range(5)]
    body = search(api, "alert", limit=2).json()
    assert body["pagination"]["total"] == 6
    assert {item["content"]["frame_id"] for item in body["data"]} <= set(ids[-3:])
    everything = search(api, "alert", limit=10).json()
    assert sorted(item["content"]["frame_id"] for item in everything["data"]) == sorted([strong, *ids])
    assert everything["data"][0]["content"]["frame_id"] == strong


def test_min_and_max_length(api, frame_make):
    short = frame_make("tiny note", at=T0)
    long = frame_make("note " + "with many more words " * 10, at=T0 + 1)
    assert found(api, "note", min_length=50) == [long]
    assert found(api, "note", max_length=50) == [short]
    assert found(api, "", max_length=9) == [short]
    assert found(api, "note", min_length=10, max_length=20) == []


@pytest.mark.parametrize(
    "params, words",
    [
        ({"limit": 0}, ["limit"]),
        ({"limit": 101}, ["limit"]),
        ({"limit": "many"}, ["limit"]),
        ({"offset": -1}, ["offset"]),
        ({"start_time": None}, ["start_time"]),
        ({"start_time": "the day before"}, ["start_time", "not a time"]),
        ({"start_time": -1}, ["start_time", "greater than or equal to 0"]),
        ({"focused": "1"}, ["focused", "true or false"]),
        ({"app": "Firefox"}, ["app", "unknown query parameter"]),
        ({"limit": [5, 6]}, ["limit", "more than once"]),
        ({"mode": "fuzzy"}, ["mode"]),
        ({"content_type": "audio"}, ["audio"]),
        ({"min_length": -1}, ["min_length"]),
    ],
)
def test_bad_requests_are_400_in_the_one_error_shape(api, params, words):
    assert_400(search(api, **{"q": "budget", **params}), *words)


def test_a_query_of_punctuation_alone_matches_nothing(api, frame_make):
    frame_make("budget", at=T0)
    for mode in ("keyword", "hybrid"):
        response = search(api, '" * - ( )', mode=mode)
        assert response.status_code == 200 and response.json()["data"] == [], mode


def test_a_range_that_ends_before_it_starts_holds_no_frames(api, frame_make):
    frame_make("budget", at=T0)
    assert found(api, "budget", start_time=T0 - 60, end_time=T0 + 60) != []
    response = search(api, "budget", start_time=T0 + 60, end_time=T0 - 60)
    assert response.status_code == 200 and response.json()["data"] == [] and response.json()["pagination"]["total"] == 0
    assert found(api, "", start_time=T0, end_time=T0 - 1) == []


def test_mode_keyword_and_content_type_ocr_are_accepted(api, frame_make):
    frame_id = frame_make("budget", at=T0)
    assert found(api, "budget", mode="keyword", content_type="ocr") == [frame_id]


def test_fts_syntax_in_the_query_never_breaks_the_search(api, frame_make):
    frame_make("C++ build (release) - 100% done", at=T0)
    for q in ['"', "C++", "NEAR(build", "build AND", "build OR", "-release", "a:b", "^build", "(release)", "100%"]:
        resp = search(api, q)
        assert resp.status_code == 200, (q, resp.content)
