"""The timeline's shapes (app segments, 5-minute buckets, active minutes, colours) and
the viewer's highlight boxes, on plain rows and OCR lines."""

import subprocess
import sys
from datetime import datetime
from pathlib import Path
from zoneinfo import ZoneInfo

from frames.highlight import boxes_matching
from frames.timeline import DAY_BUCKET_S, SEGMENT_GAP_S, active_minutes, app_color, app_segments, buckets

SHANGHAI = ZoneInfo("Asia/Shanghai")
# 2024-05-06 09:00:00 in Shanghai.
T0 = datetime(2024, 5, 6, 9, 0, tzinfo=SHANGHAI).timestamp()


def rows(*specs: tuple[float, str]) -> list[dict]:
    """Timeline rows from (seconds after T0, app) pairs, ids in order."""
    return [
        {"id": i, "ts": T0 + offset, "app_name": app, "window_name": f"{app} window"}
        for i, (offset, app) in enumerate(specs, start=1)
    ]


def test_frames_of_one_app_close_together_are_one_segment():
    day = rows((0, "Code"), (3, "Code"), (60, "Code"), (SEGMENT_GAP_S + 60, "Code"))
    [seg] = app_segments(rows=day, start=T0, end=T0 + 3600)
    assert (seg.app_name, seg.first_frame_id, seg.frames) == ("Code", 1, 4)
    assert seg.start == T0 and seg.end == T0 + SEGMENT_GAP_S + 60
    assert seg.left_pct == 0
    # Six minutes and a capture interval of a one-hour axis.
    assert 10 < seg.width_pct < 10.5


def test_segments_split_at_an_app_change_and_at_a_gap():
    day = rows((0, "Code"), (10, "Code"), (20, "Firefox"), (30, "Code"), (30 + SEGMENT_GAP_S + 1, "Code"))
    segs = app_segments(rows=day, start=T0, end=T0 + 3600)
    assert [(s.app_name, s.first_frame_id, s.frames) for s in segs] == [
        ("Code", 1, 2),
        ("Firefox", 3, 1),
        ("Code", 4, 1),
        ("Code", 5, 1),
    ]
    # Placed left to right on the axis, each in its app's colour, a lone frame still visible.
    assert [s.left_pct for s in segs] == sorted(s.left_pct for s in segs)
    assert segs[3].left_pct > 8
    assert all(s.width_pct > 0 for s in segs)
    assert segs[1].color == app_color("Firefox") != segs[0].color


def test_no_frames_no_segments_and_no_buckets():
    assert app_segments(rows=[], start=T0, end=T0 + 86400) == []
    assert buckets(rows=[], start=T0, bucket_s=DAY_BUCKET_S) == []


def test_buckets_show_the_first_frame_of_each_five_minutes_and_count_the_rest():
    day = rows((0, "Code"), (100, "Firefox"), (299, "Code"), (300, "Slack"), (1800, "Code"))
    out = buckets(rows=day, start=T0, bucket_s=DAY_BUCKET_S)
    assert [(b.start - T0, b.frame_id, b.frames, b.apps) for b in out] == [
        (0, 1, 3, ["Code", "Firefox"]),
        (300, 4, 1, ["Slack"]),
        (1800, 5, 1, ["Code"]),
    ]
    assert out[0].frame_ts == T0 and out[2].frame_ts == T0 + 1800
    assert out[0].window_name == "Code window"


def test_a_day_of_frames_every_three_seconds_is_288_buckets():
    day = [{"id": i, "ts": T0 + i * 3, "app_name": "Code", "window_name": ""} for i in range(86400 // 3)]
    out = buckets(rows=day, start=T0, bucket_s=DAY_BUCKET_S)
    assert len(out) == 288
    assert sum(b.frames for b in out) == len(day)


def test_active_minutes_count_distinct_local_minutes_per_hour_per_app():
    day = rows(
        (0, "Code"), (20, "Code"), (61, "Code"),  # 09:00 twice and 09:01
        (3600 + 5, "Firefox"),  # 10:00
        (3600 + 125, "Code"),  # 10:02
    )
    chart = active_minutes(rows=day, zone=SHANGHAI)
    assert list(chart) == ["Code", "Firefox"]  # the busiest app first
    assert chart["Code"][9] == 2 and chart["Code"][10] == 1
    assert chart["Firefox"][10] == 1
    assert sum(chart["Code"]) == 3 and sum(chart["Firefox"]) == 1
    # The same instants read in UTC fall into other hours: hours are the viewer's local hours.
    utc = active_minutes(rows=day, zone=ZoneInfo("UTC"))
    assert utc["Code"][1] == 2 and utc["Code"][9] == 0


def test_app_colours_are_stable_across_processes_and_differ_between_apps():
    names = ["Code", "Firefox", "Slack", ""]
    here = [app_color(name) for name in names]
    # Another interpreter with another str hash seed: a restart must not repaint the timeline.
    script = f"from frames.timeline import app_color; print('|'.join(app_color(n) for n in {names!r}))"
    there = subprocess.run(
        [sys.executable, "-c", script], capture_output=True, text=True, check=True, env={"PYTHONHASHSEED": "12345"},
        cwd=Path(__file__).resolve().parents[2],
    ).stdout.strip().split("|")
    assert here == there
    assert len(set(here)) == len(names)
    assert all(c.startswith("hsl(") for c in here)


# Boxes as RapidOCR reports them: word boxes for English, one box per Chinese character.
LINES = [
    {
        "t": "Quarterly budget review zorbluk",
        "b": [18, 23, 425, 34],
        "w": [
            ["Quarterly", 25, 23, 121, 34], ["budget", 154, 23, 89, 34], ["review", 250, 23, 83, 34], ["zorbluk", 341, 23, 100, 34]
        ],
    },
    {
        "t": "今天下午讨论向日葵项目",
        "b": [19, 71, 308, 34],
        "w": [[ch, 25 + 28 * i, 71, 27, 34] for i, ch in enumerate("今天下午讨论向日葵项目")],
    },
    {"t": "Budget approved, no word boxes", "b": [18, 120, 400, 30], "w": []},
]


def test_an_english_word_is_boxed_where_it_is_case_insensitive():
    assert boxes_matching(lines=LINES, q="zorbluk") == [[341, 23, 100, 34]]
    # Twice on screen: the word box, and the whole line where the engine gave no word boxes.
    assert boxes_matching(lines=LINES, q="BUDGET") == [[154, 23, 89, 34], [18, 120, 400, 30]]


def test_a_two_character_chinese_word_is_boxed_over_both_characters():
    # 向日葵 starts at character 6: 日 and 葵 are characters 7 and 8.
    assert boxes_matching(lines=LINES, q="日葵") == [[25 + 28 * 7, 71, 28 + 27, 34]]


def test_a_quoted_phrase_is_one_box_and_separate_words_are_one_box_each():
    assert boxes_matching(lines=LINES, q='"budget review"') == [[154, 23, 250 + 83 - 154, 34]]
    assert boxes_matching(lines=LINES, q="review zorbluk") == [[250, 23, 83, 34], [341, 23, 100, 34]]


def test_no_match_no_boxes():
    assert boxes_matching(lines=LINES, q="invoice") == []
    assert boxes_matching(lines=LINES, q="") == []
    # Three letters inside a word are not the word (search does not look for them there); "天气" is not on screen.
    assert boxes_matching(lines=LINES, q="iew") == []
    assert boxes_matching(lines=LINES, q="天气") == []


def test_an_english_word_written_against_chinese_or_after_an_underscore_is_boxed():
    # The keyword index finds "python" in "使用Python开发" and "budget" in "my_budget": the viewer must mark them.
    mixed = [
        {
            "t": "我们使用Python开发",
            "b": [18, 20, 267, 38],
            "w": [[ch, 22 + 20 * i, 20, 19, 38] for i, ch in enumerate("我们使用Python开发")],
        },
        {
            "t": "see my_budget file",
            "b": [17, 72, 251, 38],
            "w": [["see", 19, 72, 46, 38], ["my_budget", 76, 72, 148, 38], ["file", 229, 72, 39, 38]],
        },
    ]
    assert boxes_matching(lines=mixed, q="python") == [[22 + 20 * 4, 20, 20 * 5 + 19, 38]]
    assert boxes_matching(lines=mixed, q="budget") == [[76, 72, 148, 38]]
    assert boxes_matching(lines=mixed, q="yth") == []


def test_a_part_of_a_compound_token_is_boxed_as_the_index_finds_it():
    # The index finds "torvalds" in "LinusTorvalds" and "conversion" in "conversion3"; "nus" is no part.
    line = {
        "t": "by LinusTorvalds libdouble-conversion3:amd64",
        "b": [0, 0, 600, 30],
        "w": [["by", 0, 0, 30, 30], ["LinusTorvalds", 40, 0, 200, 30], ["libdouble-conversion3:amd64", 250, 0, 350, 30]],
    }
    assert boxes_matching(lines=[line], q="torvalds") == [[40, 0, 200, 30]]
    assert boxes_matching(lines=[line], q="conversion") == [[250, 0, 350, 30]]
    assert boxes_matching(lines=[line], q="64") == [[250, 0, 350, 30]]
    assert boxes_matching(lines=[line], q="nus") == []


def test_a_word_found_only_inside_a_longer_word_is_boxed_there():
    line = {"t": "Unpacking libdouble-conversion3", "b": [0, 0, 400, 30], "w": [["Unpacking", 0, 0, 100, 30], ["libdouble-conversion3", 110, 0, 290, 30]]}
    assert boxes_matching(lines=[line], q="double") == [[110, 0, 290, 30]]
    assert boxes_matching(lines=[line, {"t": "double", "b": [0, 40, 60, 30], "w": []}], q="double") == [[0, 40, 60, 30]]
    assert boxes_matching(lines=[line], q="ouble") == [[110, 0, 290, 30]]
    assert boxes_matching(lines=[line], q="ack") == []  # too short to be looked for inside words
