"""Deleting frames everywhere: real screenshots through the API, real OCR, the real embedder and
a real Chroma in the test's data dir, a real chat answer that quoted them; then every store is
checked for what is left of them, and an interrupted deletion is finished by a retry."""

import json
from time import sleep
from time import time as clock_time
from datetime import datetime, timedelta
from datetime import timezone as dt_timezone

import pytest
from django.db import connection
from django.utils import timezone

from agent_bridge.models import AgentToolCall, AgentTurn
from agent_bridge.services import ERASED_CALL
from chat.models import ChatMessage, Citation
from frames import services, storage
from frames.models import Frame, FrameDeletion, OcrResult
from frames.signals import frames_deleted
from search import vectors as vectors_store
from search.embeddings import embedder_info
from search.keyword_base import REGISTRY, VOCAB
from search.keyword_index import keyword_index
from search.models import FrameVectors
from search.vectors import vectors_release
from tests.conftest import files_holding, post_frame, render_text_image

pytestmark = pytest.mark.django_db(transaction=True)

T0 = datetime(2026, 11, 18, 9, 0, tzinfo=dt_timezone.utc)

SCREENS = [
    # (minutes after T0, app, window, lines): the first three are deleted, the last one stays
    (0, "Firefox", "Praxis Weber", ["Zahnarztpraxis Weber invoice 4411", "Quokkafernery payment due"]),
    (1, "Terminal", "deploy", ["kubectl rollout status", "Wombatquill deployment finished"]),
    (2, "Firefox", "Praxis Weber", ["Zahnarztpraxis appointment Friday", "bring insurance card"]),
    (90, "Editor", "notes.md", ["Grocery list", "oat milk and apples"]),
]


@pytest.fixture
def memory(api, immediate_ocr, django_user_model):
    """The screens posted, read, indexed by word and by meaning, each thumbnail made; returns their ids."""
    api.force_login(django_user_model.objects.create_user(username="viewer", password="p"))
    ids = []
    for minutes, app, window, lines in SCREENS:
        response = post_frame(
            api,
            render_text_image(lines, size=(1000, 140)),
            timestamp=(T0 + timedelta(minutes=minutes)).timestamp(),
            app_name=app,
            window_name=window,
        )
        assert response.status_code == 201, response.content
        ids.append(response.json()["frame_id"])
    for frame_id in ids:
        assert api.get(f"/frames/{frame_id}/thumb").status_code == 200
    assert FrameVectors.objects.filter(frame_id__in=ids, status="done").count() == len(ids)
    yield ids
    vectors_release()


def chat_answer(api, settings, *, start=T0, end=T0 + timedelta(hours=2)) -> dict:
    """An offline summary of the morning (or of start to end): it cites the frames with the snippets it quoted."""
    settings.LLM_BASE_URL = ""
    body = {"message": "What did I do?", "start_time": start.timestamp(), "end_time": end.timestamp()}
    response = api.post("/api/v1/chat", data=json.dumps(body), content_type="application/json")
    assert response.status_code == 200, response.content
    return response.json()


def keyword_ids(api, q: str) -> list[int]:
    window = {"start_time": (T0 - timedelta(hours=1)).timestamp(), "end_time": (T0 + timedelta(days=1)).timestamp()}
    response = api.get("/api/v1/search", {"q": q, "mode": "keyword", **window})
    assert response.status_code == 200
    return [item["content"]["frame_id"] for item in response.json()["data"]]


def fts_rows(frame_ids: list[int]) -> int:
    with connection.cursor() as cursor:
        cursor.execute(f"SELECT period FROM {REGISTRY}")
        tables = [keyword_index().partition_table(period) for (period,) in cursor.fetchall()]
        marks = ", ".join(["%s"] * len(frame_ids))
        return sum(
            cursor.execute(f"SELECT count(*) FROM {table} WHERE frame_id IN ({marks})", frame_ids).fetchone()[0]
            for table in tables
        )


def vocabulary_has(word: str) -> bool:
    with connection.cursor() as cursor:
        if connection.vendor == "sqlite":
            from search.fts import VOCAB_TRIGRAMS

            # The trigram index matches its content table (a word left in it would fail the check).
            cursor.execute(f"INSERT INTO {VOCAB_TRIGRAMS} ({VOCAB_TRIGRAMS}) VALUES ('integrity-check')")
        return bool(cursor.execute(f"SELECT count(*) FROM {VOCAB} WHERE term = %s", [word]).fetchone()[0])


def vector_entries(frame_ids: list[int]) -> int:
    day = vectors_store.day_of(int(T0.timestamp() * 1000))
    key = embedder_info().key

    def count(client):
        name = vectors_store.collection_name(key, day)
        if name not in {getattr(c, "name", c) for c in client.list_collections()}:
            return 0
        collection = client.get_collection(name, embedding_function=None)
        return len(collection.get(where={"frame_id": {"$in": frame_ids}}, include=[])["ids"])

    return vectors_store._call("count", count)


def files_of(frame_ids: list[int]) -> list:
    return [
        storage.image_location(path)
        for frame in Frame.objects.filter(id__in=frame_ids)
        for path in storage.frame_relpaths(frame.id, frame.timestamp, frame.image_path)
    ]


def test_a_range_delete_leaves_no_trace_in_any_store(api, memory, settings):
    gone, kept = memory[:3], memory[3]
    answer = chat_answer(api, settings)
    cited = {item["frame_id"] for item in answer["evidence"]}
    assert cited & set(gone) and cited & {kept}, answer
    assert "Zahnarztpraxis" in answer["answer_md"] or "Praxis Weber" in answer["answer_md"], answer["answer_md"]
    kept_answer = chat_answer(api, settings, start=T0 + timedelta(minutes=80), end=T0 + timedelta(hours=2))
    assert [item["frame_id"] for item in kept_answer["evidence"]] == [kept], kept_answer
    assert Citation.objects.filter(frame_id__in=gone).exclude(snippet="").exists()
    turn = AgentTurn.objects.create(message=ChatMessage.objects.get(id=answer["message_id"]))
    call = AgentToolCall.objects.create(
        turn=turn, call_id="c1", tool="bash", command="curl search?q=Zahnarztpraxis", started_at=timezone.now(),
        result='{"data":[{"text":"Zahnarztpraxis Weber invoice 4411"}]}', frame_ids=[gone[0]],
    )
    other_call = AgentToolCall.objects.create(
        turn=turn, call_id="c2", tool="bash", command="curl search?q=oat", started_at=timezone.now(),
        result='{"data":[{"text":"oat milk"}]}', frame_ids=[kept],
    )
    files = files_of(gone)
    assert len(files) == 6 and all(path.exists() for path in files)
    assert keyword_ids(api, "Quokkafernery") == [gone[0]] and vocabulary_has("wombatquill")
    assert fts_rows(gone) == 3 and vector_entries(gone) >= 3

    job = services.frames_delete(start=T0 - timedelta(minutes=1), end=T0 + timedelta(minutes=30))

    assert job.status == FrameDeletion.Status.DONE and not job.pending
    assert job.removed["frames"] == 3 and job.removed["files"] == 6 and job.removed["fts_rows"] == 3
    assert job.removed["vectors"] >= 3 and job.removed["citation_snippets"] >= 1 and job.removed["ocr_texts"] == 3
    # rows, text and index debts
    assert not Frame.objects.filter(id__in=gone).exists() and not OcrResult.objects.filter(frame_id__in=gone).exists()
    assert not FrameVectors.objects.filter(frame_id__in=gone).exists()
    # image and thumbnail files, and the day folders they leave empty
    assert not any(path.exists() for path in files)
    # the keyword index, and the words only they held
    assert fts_rows(gone) == 0 and keyword_ids(api, "Zahnarztpraxis") == [] and keyword_ids(api, "Quokkafernery") == []
    assert not vocabulary_has("wombatquill") and not vocabulary_has("quokkafernery") and vocabulary_has("grocery")
    # the vector index
    assert vector_entries(gone) == 0 and vector_entries([kept]) >= 1
    # what chat answers quoted of them
    for citation in Citation.objects.filter(frame_id_cited__in=gone):
        assert citation.snippet == "" and citation.frame_deleted and citation.frame_id is None
    assert Citation.objects.filter(frame_id_cited=kept).exclude(snippet="").exists()
    message = ChatMessage.objects.get(id=answer["message_id"])
    assert message.evidence_deleted
    # the answer that drew on them is erased, with what its turn's tool calls kept; the question stays
    assert job.removed["answers_erased"] == 1 and job.removed["agent_tool_calls"] == 2
    erased = f"*This answer was erased: it drew on 3 screens deleted on {timezone.now():%a %d %b %Y}.*"
    assert message.content == erased and message.raw_content == "" and message.erased_at is not None
    for stored in (call, other_call):
        stored.refresh_from_db()
        assert stored.result == stored.command == ERASED_CALL and stored.frame_ids
    question, detail = api.get(f"/api/v1/chat/sessions/{answer['session_id']}").json()["messages"]
    assert question["content_md"] == "What did I do?" and detail["content_md"] == erased and detail["erased_at"]
    assert detail["evidence_deleted"] == len(cited & set(gone))
    assert [item["frame_id"] for item in detail["evidence"]] == [kept]
    # an answer that drew only on the frame kept is whole
    whole = ChatMessage.objects.get(id=kept_answer["message_id"])
    assert whole.erased_at is None and whole.content == kept_answer["answer_md"] and f"myrecall://frame/{kept}" in whole.content
    # the frame outside the range is whole
    assert keyword_ids(api, "apples") == [kept] and all(path.exists() for path in files_of([kept]))


def test_an_interrupted_deletion_is_finished_by_a_retry(api, memory):
    gone = memory[:3]
    files = files_of(gone)
    job = services.frames_delete_begin(start=T0 - timedelta(minutes=1), end=T0 + timedelta(minutes=30))
    # The process dies right after the batch's rows are committed: files and vectors are owed.
    assert services._deletion_batch(job.id) == 3
    job.refresh_from_db()
    assert job.pending["files"] and all(path.exists() for path in files) and vector_entries(gone) >= 3
    assert not Frame.objects.filter(id__in=gone).exists()
    assert services.frames_deletions_finish() == 0  # a live job is not taken from its runner
    FrameDeletion.objects.filter(id=job.id).update(updated_at=timezone.now() - timedelta(minutes=5))
    assert services.frames_deletions_finish() == 1
    job.refresh_from_db()
    assert job.status == FrameDeletion.Status.DONE and job.removed["files"] == 6
    assert not any(path.exists() for path in files) and vector_entries(gone) == 0


def test_a_vector_index_that_is_down_leaves_the_vectors_owed_until_it_answers(api, memory):
    gone = memory[:3]

    def index_down(sender, **kwargs):
        raise vectors_store.VectorError("the vector server does not answer")

    frames_deleted.connect(index_down, dispatch_uid="test.index_down")
    try:
        job = services.frames_delete(start=T0 - timedelta(minutes=1), end=T0 + timedelta(minutes=30))
    finally:
        frames_deleted.disconnect(dispatch_uid="test.index_down")
    assert job.status == FrameDeletion.Status.RUNNING and "does not answer" in job.error
    assert not Frame.objects.filter(id__in=gone).exists() and job.pending["frames"]
    FrameDeletion.objects.filter(id=job.id).update(updated_at=timezone.now() - timedelta(minutes=5))
    assert services.frames_deletions_finish() == 1
    job.refresh_from_db()
    assert job.status == FrameDeletion.Status.DONE and vector_entries(gone) == 0 and job.removed["files"] == 6


def _twelve_frames(api, settings) -> None:
    settings.DEDUP_MAX_DISTANCE = -1
    for minute in range(12):
        lines = [f"Line {minute} {word} " * 6 for word in ("alpha", "bravo", "charlie", "delta", "echo")]
        post_frame(api, render_text_image(lines, size=(1200, 300)), timestamp=(T0 + timedelta(minutes=minute)).timestamp())


@pytest.mark.sqlite_only  # SQLite's pages and free list; the same promise on PostgreSQL: the next test
def test_a_deletion_gives_the_database_space_back(api, immediate_ocr_keyword, settings):
    _twelve_frames(api, settings)

    def pages() -> tuple[int, int]:
        with connection.cursor() as cursor:
            assert cursor.execute("PRAGMA auto_vacuum").fetchone()[0] == 2  # incremental
            return cursor.execute("PRAGMA page_count").fetchone()[0], cursor.execute("PRAGMA freelist_count").fetchone()[0]

    before, _ = pages()
    services.frames_delete(end=T0 + timedelta(hours=1))
    after, free = pages()
    assert free == 0 and after < before


@pytest.mark.postgresql_only  # SQLite's: the test before
def test_a_deletion_gives_the_space_of_the_frames_tables_back_on_postgresql(api, immediate_ocr_keyword, settings):
    """The deleted rows are vacuumed at once: the frames' and OCR tables (with their TOAST tables),
    emptied by the deletion, give their pages back to the file system."""
    _twelve_frames(api, settings)

    def heap_bytes() -> int:
        """The rows' pages: the main files of the two tables and of their TOAST tables (not their free-space maps)."""
        with connection.cursor() as cursor:
            cursor.execute(
                "SELECT sum(pg_relation_size(c.oid)) FROM pg_class c, pg_class t WHERE t.relname = ANY(%s)"
                " AND c.oid IN (t.oid, t.reltoastrelid)",
                [[Frame._meta.db_table, OcrResult._meta.db_table]],
            )
            return cursor.fetchone()[0]

    before = heap_bytes()
    services.frames_delete(end=T0 + timedelta(hours=1))
    assert not Frame.objects.exists() and heap_bytes() < before  # without a vacuum, the dead rows keep every page


def test_the_api_deletes_a_range_of_one_app_and_reports_it(api, memory):
    window = {"start_time": (T0 - timedelta(minutes=1)).timestamp(), "end_time": (T0 + timedelta(hours=3)).timestamp()}
    response = api.delete(f"/api/v1/frames?start_time={window['start_time']}&end_time={window['end_time']}&app_name=firefox")
    assert response.status_code == 200, response.content
    body = response.json()
    assert body["status"] == "done" and body["removed"]["frames"] == 2 and body["message"] == "Deleted 2 frames."
    assert sorted(Frame.objects.values_list("app_name", flat=True)) == ["Editor", "Terminal"]


@pytest.mark.parametrize(
    "query, message",
    [
        ("start_time=-5&end_time=50", "start_time: Input should be greater than or equal to 0"),
        ("start_time=nan&end_time=50", "start_time"),
        ("end_time=50", "start_time"),
    ],
)
def test_a_bad_range_is_a_400_and_deletes_nothing(api, frame_make, query, message):
    frame_make("keep me", at=T0.timestamp())
    response = api.delete(f"/api/v1/frames?{query}")
    assert response.status_code == 400 and message in response.json()["message"], response.content
    assert Frame.objects.count() == 1


def test_a_range_that_ends_before_it_starts_deletes_nothing(api, frame_make):
    frame_make("keep me", at=T0.timestamp())
    start = T0.timestamp() + 10
    response = api.delete(f"/api/v1/frames?start_time={start}&end_time={start - 20}")
    assert response.status_code == 200 and response.json()["message"] == "Deleted 0 frames.", response.content
    assert Frame.objects.count() == 1


def test_a_read_only_token_cannot_delete(client, frame_make):
    from myrecall.services import api_token_create

    frame_make("keep me", at=T0.timestamp())
    _, raw = api_token_create(name="agent", read_only=True)
    response = client.delete("/api/v1/frames?start_time=0&end_time=9999999999", HTTP_AUTHORIZATION=f"Bearer {raw}")
    assert response.status_code == 403 and Frame.objects.count() == 1


def test_the_timeline_page_shows_what_a_range_delete_takes_then_deletes_it(client, django_user_model, frame_make):
    client.force_login(django_user_model.objects.create_user(username="u", password="p"))
    client.cookies["tz"] = "UTC"
    ids = [frame_make(f"screen {i}", at=(T0 + timedelta(minutes=i)).timestamp(), app_name=app) for i, app in enumerate(["Firefox", "Terminal", "Firefox"])]
    late = frame_make("afternoon", at=(T0 + timedelta(hours=5)).timestamp(), app_name="Firefox")
    form = {"date": "2026-11-18", "from": "09:00", "to": "09:01", "app_name": ""}
    preview = client.post("/timeline/delete", form, HTTP_HX_REQUEST="true")
    assert preview.status_code == 200
    page = preview.content.decode()
    assert "This deletes <strong>2 frames</strong>" in page and "Delete 2 frames" in page
    assert Frame.objects.count() == 4  # nothing yet
    done = client.post("/timeline/delete", {**form, "confirm": "yes"}, HTTP_HX_REQUEST="true")
    assert done.status_code == 200 and "Deleted 2 frames" in done.content.decode()
    assert sorted(Frame.objects.values_list("id", flat=True)) == sorted([ids[2], late])
    bad = client.post("/timeline/delete", {**form, "from": "10:00", "to": "09:00"}, HTTP_HX_REQUEST="true")
    assert bad.status_code == 400 and "must not be before" in bad.content.decode()
    bad = client.post("/timeline/delete", {**form, "app_name": "Fire\x00fox", "confirm": "yes"}, HTTP_HX_REQUEST="true")
    assert bad.status_code == 400 and "NUL character" in bad.content.decode()
    assert Frame.objects.count() == 2


def test_retention_deletes_what_is_older_and_prune_does_it_on_demand(frame_make, settings, capsys):
    from django.core.management import call_command
    from django.core.management.base import CommandError

    now = timezone.now()
    old = [frame_make(f"old {i}", at=(now - timedelta(days=40 + i)).timestamp()) for i in range(3)]
    recent = frame_make("recent", at=(now - timedelta(days=2)).timestamp())
    with pytest.raises(CommandError, match="--days"):
        call_command("prune")
    settings.RETENTION_DAYS = 30
    from frames.tasks import frames_housekeeping

    assert "retention removed 3 frame(s)" in frames_housekeeping.call()
    assert list(Frame.objects.values_list("id", flat=True)) == [recent] and old
    call_command("prune", "--days", "1")
    assert "frames 1" in capsys.readouterr().out and not Frame.objects.exists()


@pytest.fixture
def embedded_vectors(settings):
    """The vector index in the data dir, the embedded default, also where CHROMA_URL names a server
    (bash scripts/test.sh --scale): the tests that take it look at the index's own files."""
    settings.CHROMA_URL = ""


def test_the_vector_index_gives_back_the_files_of_dropped_days_when_it_next_starts(embedded_vectors, api, memory):
    from search.vectors import vectors_compact, vectors_dir

    day_folders = lambda: {p.name for p in (vectors_dir() / "db").iterdir() if p.is_dir()}  # noqa: E731
    before = day_folders()
    services.frames_delete(start=T0 - timedelta(hours=1), end=T0 + timedelta(hours=3))  # the whole day: its collection goes
    vectors_release()  # as when the vector server stops
    removed, freed = vectors_compact()
    assert removed == 1 and freed > 0 and len(day_folders()) == len(before) - 1
    assert vectors_compact() == (0, 0)


def test_a_running_worker_applies_the_retention_by_itself(tmp_path):
    import time as clock

    from tests.server import LiveServer

    with LiveServer(tmp_path / "live", env={"MYRECALL_RETENTION_DAYS": "30", "MYRECALL_DEDUP_MAX_DISTANCE": "-1", "MYRECALL_WORKER_HEARTBEAT_S": "1", "MYRECALL_HOUSEKEEPING_CHECK_S": "1"}) as server:
        def post(lines, days_ago):
            response = server.session.post(
                f"{server.url}/api/v1/frames", timeout=60,
                files={"image": ("f.png", render_text_image(lines), "image/png")},
                data={"timestamp": clock.time() - days_ago * 86400, "app_name": "Editor"},
            )
            assert response.status_code == 201, response.text
            return response.json()["frame_id"]

        old, recent = post(["an old screen"], 45), post(["a recent screen"], 1)
        deadline = clock.time() + 120
        while clock.time() < deadline:
            if server.session.get(f"{server.url}/api/v1/frames/{old}/metadata", timeout=30).status_code == 404:
                break
            clock.sleep(0.5)
        assert server.session.get(f"{server.url}/api/v1/frames/{old}/metadata", timeout=30).status_code == 404
        assert server.session.get(f"{server.url}/api/v1/frames/{recent}/metadata", timeout=30).status_code == 200


# Made-up words, each on the screens of one side only: where the text is read, the window title,
# the URL and the app name (the vector index keeps an app's name with its entries).
ERASED = {"text": "Quillibrastic", "window": "Vorpenhallow", "url": "snarfwidget", "app": "Glimmerquaz"}
KEPT = {"text": "Tomblewhisker", "window": "Frandiloquent", "url": "plonkerdash", "app": "Brizzlehopper"}


def test_a_deleted_screen_leaves_none_of_its_words_in_any_file_of_the_data_dir(tmp_path):
    from tests.live import login
    from tests.server import LiveServer, ocr_wait

    start = T0.timestamp()
    with LiveServer(tmp_path / "live", env={"MYRECALL_DEDUP_MAX_DISTANCE": "-1", "LLM_BASE_URL": ""}) as server:
        def post(words, minute, extra):
            response = server.session.post(
                f"{server.url}/api/v1/frames", timeout=60,
                files={"image": ("f.png", render_text_image([f"{words['text']} {extra}", "weekly budget review"], size=(1000, 140)), "image/png")},
                data={"timestamp": start + minute * 60, "app_name": words["app"], "window_name": f"{words['window']} notes",
                      "browser_url": f"https://{words['url']}.example/page", "focused": "true"},
            )
            assert response.status_code == 201, response.text
            return response.json()["frame_id"]

        gone = [post(ERASED, minute, f"invoice {minute}") for minute in range(3)]
        kept = [post(KEPT, 60 + minute, f"invoice {minute}") for minute in range(2)]
        ocr_wait(server=server, frame_ids=gone + kept)
        # Not in the scan: serve.log, where the test keeps what serve prints to its terminal (a request's URL, with a search's words).

        def found(word):
            response = server.session.get(
                f"{server.url}/api/v1/search", timeout=60,
                params={"q": word, "mode": "keyword", "start_time": start - 3600, "end_time": start + 86400},
            )
            return sorted(item["content"]["frame_id"] for item in response.json()["data"])

        def vectors_written():
            status = server.session.get(f"{server.url}/api/v1/status", timeout=60).json()
            return status["semantic"]["waiting"]["frames"] == 0

        deadline = clock_time() + 600
        while not vectors_written() and clock_time() < deadline:
            sleep(0.5)
        assert vectors_written(), server.session.get(f"{server.url}/api/v1/status", timeout=60).text
        assert found(ERASED["text"]) == gone and found(KEPT["text"]) == kept

        def summary(minutes_from, minutes_to):
            body = {"message": "What did I do?", "start_time": start + minutes_from * 60, "end_time": start + minutes_to * 60}
            response = server.session.post(f"{server.url}/api/v1/chat", json=body, timeout=120)
            assert response.status_code == 200, response.text
            return response.json()

        # The offline summary of both stretches writes the deleted screens' app and window into its answer.
        both = summary(-1, 120)
        assert ERASED["app"] in both["answer_md"] and KEPT["app"] in both["answer_md"], both["answer_md"]
        kept_only = summary(55, 120)
        assert ERASED["app"] not in kept_only["answer_md"] and KEPT["app"] in kept_only["answer_md"], kept_only["answer_md"]
        # Before: every word is kept (so the check below can see them).
        assert set(server.words_kept(ERASED.values())) == set(ERASED.values())

        response = server.session.delete(
            f"{server.url}/api/v1/frames", timeout=120, params={"start_time": start - 60, "end_time": start + 30 * 60}
        )
        assert response.status_code == 200 and response.json()["removed"]["frames"] == 3, response.text
        assert response.json()["removed"]["answers_erased"] == 1, response.text

        left = server.words_kept(ERASED.values())
        assert left == {}, left
        assert found(KEPT["text"]) == kept and found(KEPT["window"]) == kept
        assert set(server.words_kept(KEPT.values())) == set(KEPT.values())

        # The answer that drew on them says it was erased, under its question; the other is whole.
        def answer(reply):
            chat = server.session.get(f"{server.url}/api/v1/chat/sessions/{reply['session_id']}", timeout=60).json()
            return [message["content_md"] for message in chat["messages"]]

        question, erased = answer(both)
        assert question == "What did I do?" and erased.startswith("*This answer was erased: it drew on 3 screens deleted on"), erased
        assert answer(kept_only) == ["What did I do?", kept_only["answer_md"]]
        page = login(server).get(f"{server.url}/chat", params={"session": both["session_id"]}, timeout=60).text
        assert "This answer was erased: it drew on 3 screens deleted on" in page and "What did I do?" in page


def test_the_vector_server_erases_the_app_names_an_older_index_kept(data_dir, embedded_vectors):
    """An index written before entries held numbers only kept each entry's app name, also in
    Chroma's log and in the bytes of entries deleted since: at the vector server's start it goes."""
    from search.vectors import vectors_compact

    key, day = embedder_info().key, vectors_store.day_of(int(T0.timestamp() * 1000))
    apps = [(1, "glimmerquaz"), (2, "glimmerquaz"), (3, "brizzlehopper")]

    def write_as_before(client):  # entries as that index wrote them: the app's name among their metadata
        collection = vectors_store._collection(client, key, day, create=True, model="test", dimensions=3)
        collection.add(
            ids=[f"{frame_id}:0" for frame_id, _ in apps],
            embeddings=[[1.0, float(frame_id), 0.5] for frame_id, _ in apps],
            metadatas=[{"app": app, "frame_id": frame_id, "focused": 1, "chars": 10, "chunk": 0} for frame_id, app in apps],
        )

    vectors_store._call("write", write_as_before, write=True)
    assert vectors_store.frames_remove(day=day, frame_ids=[1, 2]) == 2
    vectors_release()  # as when the vector server stops
    assert set(files_holding(data_dir, ["glimmerquaz", "brizzlehopper"])) == {"glimmerquaz", "brizzlehopper"}
    vectors_compact()
    # Not in Chroma's database nor its log. Its vector graph files (*.bin) hold vectors, not metadata,
    # but the process that saves them may write stray bytes of its own memory into their unused room
    # (seen once in a full run, where this process had held the names): a process that never held a
    # name (every MyRecall since entries keep their frame id alone) writes none; an index written by
    # an older one is rewritten clean by `manage.py reindex --vectors`.
    left = {word: [f for f in files if not f.endswith(".bin")] for word, files in files_holding(data_dir, ["glimmerquaz", "brizzlehopper"]).items()}
    assert {word: files for word, files in left.items() if files} == {}
    hits = vectors_store.day_query(embedder_key=key, day=day, embedding=[1.0, 3.0, 0.5], n=5).hits
    assert [hit.frame_id for hit in hits] == [3]


def test_an_erase_that_fails_leaves_the_deletion_running_until_the_retry_erases(frame_make):
    from frames.signals import frames_erasing

    for minute in range(3):
        frame_make(f"Quillibrastic {minute}", at=(T0 + timedelta(minutes=minute)).timestamp())
    erased = []

    def erase_fails(sender, **kwargs):
        raise RuntimeError("database is locked")

    frames_erasing.connect(erase_fails, dispatch_uid="test.erase_fails")
    try:
        job = services.frames_delete(end=T0 + timedelta(hours=1))
    finally:
        frames_erasing.disconnect(dispatch_uid="test.erase_fails")
    assert job.status == FrameDeletion.Status.RUNNING and "database is locked" in job.error
    assert not Frame.objects.exists() and not job.pending
    frames_erasing.connect(lambda sender, **kwargs: erased.append(kwargs["end"]), dispatch_uid="test.erased", weak=False)
    try:
        FrameDeletion.objects.filter(id=job.id).update(updated_at=timezone.now() - timedelta(minutes=5))
        assert services.frames_deletions_finish() == 1
    finally:
        frames_erasing.disconnect(dispatch_uid="test.erased")
    job.refresh_from_db()
    assert job.status == FrameDeletion.Status.DONE and job.error == "" and erased == [T0 + timedelta(hours=1)]
    assert job.removed["frames"] == 3 and job.removed["fts_rows"] == 3
