"""One meaning for every filter: the time range, app, window, URL, focus and text length a search,
a browse, a page or a chat is narrowed by. `Filters` turns them into the SQL of the keyword
index and the ORM query of the chat's sampling, and `filters_parse` reads them from a request
in one place. A vector query is filtered by the frames `sql()` admits (their ids inside the
query, see search.semantic.semantic_ranked), so windows and URLs mean there what they mean
everywhere, and Chroma's own metadata filter, which cost 480 ms for a 1-day range at 1M
entries here, is not used.

The range includes both ends, as screenpipe's does; a chat's range excludes its end
(end_inclusive=False), so that back-to-back summaries never share a frame.
An app matches by its exact name in any letter case (any of `apps`, when several are given);
window and URL match as substrings in any letter case; text length counts the characters of
the frame's OCR text."""

import math
import time
from dataclasses import dataclass, field
from datetime import datetime
from datetime import timezone as dt_timezone

from django.db import connection
from django.db.models import Q, QuerySet, Value
from django.db.models.functions import Coalesce

from myrecall.errors import ApplicationError


def _like(value: str) -> str:
    return "%" + value.replace("\\", "\\\\").replace("%", "\\%").replace("_", "\\_") + "%"


def _fold(name: str) -> str:
    """ASCII letters lower-cased, like SQLite's NOCASE."""
    return name.translate(_ASCII_LOWER)


_ASCII_LOWER = str.maketrans("ABCDEFGHIJKLMNOPQRSTUVWXYZ", "abcdefghijklmnopqrstuvwxyz")


def _utc(epoch: float) -> datetime:
    return datetime.fromtimestamp(epoch, tz=dt_timezone.utc)


# What a query on frames_frame f joins when Filters.sql() says it needs the text table (its aliases by default).
TEXT_JOIN = " LEFT JOIN frames_ocrresult o ON o.frame_id = f.id"


def ids_in(column: str, ids: list[int]) -> tuple[str, list]:
    """SQL that `column` is one of ids, and its parameters: one array on PostgreSQL (a list of
    hundreds of placeholders there cost more to send and plan than the look-up itself: 10 ms for
    the admission of a day's nearest 1,000 frames), a placeholder each on SQLite (at most 32,766)."""
    if connection.vendor == "postgresql":
        return f"{column} = ANY(%s)", [list(ids)]
    return f"{column} IN ({', '.join(['%s'] * len(ids))})", list(ids)


@dataclass(frozen=True)
class Filters:
    start_time: float
    end_time: float
    app_name: str | None = None
    window_name: str | None = None
    browser_url: str | None = None
    focused: bool | None = None
    min_length: int | None = None
    max_length: int | None = None
    # Any of these apps (the screenpipe adapter resolves "Chrome" to "Google Chrome" here); with
    # app_name, a frame must match both.
    apps: tuple[str, ...] | None = field(default=None)
    end_inclusive: bool = True

    @property
    def start(self) -> datetime:
        return _utc(self.start_time)

    @property
    def end(self) -> datetime:
        return _utc(self.end_time)

    @property
    def start_ms(self) -> int:
        """The range in the whole milliseconds the vector index stores (ts), rounded so that no
        frame of the range is left out; search.vectors checks the exact timestamps after."""
        return math.floor(self.start_time * 1000)

    @property
    def end_ms(self) -> int:
        return math.ceil(self.end_time * 1000)

    def app_names(self) -> list[str] | None:
        """The app names a frame may have, None for any; empty for none at all. Letter case is
        folded the way SQLite's NOCASE does (ASCII): "code" and "Code" are one app."""
        names = None if self.apps is None else {_fold(app): app for app in self.apps}
        if self.app_name:
            names = {_fold(self.app_name): self.app_name} if names is None else {
                key: app for key, app in names.items() if key == _fold(self.app_name)
            }
        return None if names is None else [names[key] for key in sorted(names)]

    def narrowed(self) -> bool:
        """Whether anything beyond the time range narrows the frames."""
        return self.app_names() is not None or any(
            value is not None
            for value in (self.window_name or None, self.browser_url or None, self.focused, self.min_length, self.max_length)
        )

    def with_range(self, start_time: float, end_time: float) -> "Filters":
        return Filters(**{**self.__dict__, "start_time": start_time, "end_time": end_time})

    def sql(self, frame: str = "f", text: str = "o") -> tuple[list[str], list, bool]:
        """WHERE clauses on frames_frame `frame` (and frames_ocrresult `text`), their params, and
        whether the text table is needed. The first two clauses are the time range."""
        adapt = connection.ops.adapt_datetimefield_value
        postgres = connection.vendor == "postgresql"
        where = [f"{frame}.timestamp >= %s", f"{frame}.timestamp {'<=' if self.end_inclusive else '<'} %s"]
        params: list = [adapt(self.start), adapt(self.end)]
        names = self.app_names()
        if names is not None:
            if names and postgres:  # SQLite's NOCASE folds ASCII letters; lower() folds them too
                where.append(f"lower({frame}.app_name) IN ({', '.join(['lower(%s)'] * len(names))})")
                params += names
            elif names:
                where.append(f"{frame}.app_name COLLATE NOCASE IN ({', '.join(['%s'] * len(names))})")
                params += names
            else:
                where.append("1 = 0")
        # SQLite's LIKE ignores the case of ASCII letters; PostgreSQL's ILIKE does that (and more).
        like = "ILIKE" if postgres else "LIKE"
        if self.window_name:
            where.append(f"{frame}.window_name {like} %s ESCAPE '\\'")
            params.append(_like(self.window_name))
        if self.browser_url:
            where.append(f"{frame}.browser_url {like} %s ESCAPE '\\'")
            params.append(_like(self.browser_url))
        if self.focused is not None:
            where.append(f"{frame}.focused = %s")
            params.append(self.focused)
        needs_text = False
        if self.min_length is not None:
            where.append(f"coalesce({text}.text_length, 0) >= %s")
            params.append(self.min_length)
            needs_text = True
        if self.max_length is not None:
            where.append(f"coalesce({text}.text_length, 0) <= %s")
            params.append(self.max_length)
            needs_text = True
        return where, params, needs_text

    def frames(self, frames: QuerySet) -> QuerySet:
        """The ORM query: `frames` (a Frame queryset) narrowed by every filter."""
        query = Q(timestamp__gte=self.start) & (
            Q(timestamp__lte=self.end) if self.end_inclusive else Q(timestamp__lt=self.end)
        )
        names = self.app_names()
        if names is not None:
            any_app = Q(pk__in=[])
            for name in names:
                any_app |= Q(app_name__iexact=name)
            query &= any_app
        if self.window_name:
            query &= Q(window_name__icontains=self.window_name)
        if self.browser_url:
            query &= Q(browser_url__icontains=self.browser_url)
        if self.focused is not None:
            query &= Q(focused=self.focused)
        if self.min_length is not None or self.max_length is not None:
            frames = frames.annotate(text_length=Coalesce("ocr__text_length", Value(0)))
            if self.min_length is not None:
                query &= Q(text_length__gte=self.min_length)
            if self.max_length is not None:
                query &= Q(text_length__lte=self.max_length)
        return frames.filter(query)


def _epoch(name: str, value: float) -> float:
    if value is None or not math.isfinite(value) or value < 0:
        raise ApplicationError(f"{name} must be epoch seconds.", extra={"field": name})
    try:
        _utc(value)
    except (OverflowError, OSError, ValueError):
        raise ApplicationError(f"{name} is out of range.", extra={"field": name}) from None
    return value


def filters_parse(
    *,
    start_time: float,
    end_time: float | None = None,
    app_name: str | None = None,
    window_name: str | None = None,
    browser_url: str | None = None,
    focused: bool | None = None,
    min_length: int | None = None,
    max_length: int | None = None,
    apps: list[str] | tuple[str, ...] | None = None,
    allow_empty: bool = True,
    end_inclusive: bool = True,
) -> Filters:
    """Filters from a request's values: epoch seconds, end_time now by default; blank names mean
    no filter. A range that ends before it starts is empty; with allow_empty=False an empty range
    raises ApplicationError (400, one error shape), as does a time that is not epoch seconds."""
    start = _epoch("start_time", start_time)
    end = _epoch("end_time", end_time if end_time is not None else time.time())
    if not allow_empty and end <= start:
        raise ApplicationError("end_time must be after start_time.", extra={"start_time": start, "end_time": end})
    if end < start:  # a range that ends before it starts holds no frames
        end, end_inclusive = start, False
    for name, value in (("app_name", app_name), ("window_name", window_name), ("browser_url", browser_url)):
        if value and "\x00" in value:  # no database matches it (PostgreSQL refuses it in text)
            raise ApplicationError(f"{name} must not contain the NUL character (U+0000).", extra={"field": name})
    if apps is not None and any("\x00" in app for app in apps):
        raise ApplicationError("app_name must not contain the NUL character (U+0000).", extra={"field": "app_name"})
    for name, value in (("min_length", min_length), ("max_length", max_length)):
        if value is not None and value < 0:
            raise ApplicationError(f"{name} must be 0 or more.", extra={"field": name})
    return Filters(
        start_time=start,
        end_time=end,
        app_name=(app_name or "").strip() or None,
        window_name=(window_name or "").strip() or None,
        browser_url=(browser_url or "").strip() or None,
        focused=focused,
        min_length=min_length,
        max_length=max_length,
        apps=tuple(apps) if apps is not None else None,
        end_inclusive=end_inclusive,
    )
