"""Move a memory from one machine's embedded data dir into the database this process is configured
with (PostgreSQL, for several machines): `manage.py copy_from_sqlite OLD_DATA_DIR`.

Every table the apps' models own is copied row by row through the ORM (so each field is written in
the target database's own form: packed text as bytea, times as timestamptz), in the order their
foreign keys need, in batches of BATCH rows, each batch in one transaction. The copy can be stopped
and started again: a table goes on after the highest key already copied. Content types and
permissions are made by the target's migrations; rows that point to them are given the target's
ids. Then the apps finish through the `memory_moved` signal (images into the image storage, the
keyword index built, the vector index copied), each in a way that can be run again.

The old data dir is read only, apart from bringing its database to the code's migrations first
(what starting this version of MyRecall on it would do). MyRecall must be stopped on it.
"""

import json
import sqlite3
from collections.abc import Callable
from dataclasses import dataclass, field
from pathlib import Path

from django.apps import apps
from django.conf import settings
from django.core.files import File
from django.core.management import call_command
from django.core.management.color import no_style
from django.db import connection, connections, models, transaction
from django.dispatch import Signal

from myrecall.archive import files_listed, files_storage
from myrecall.errors import ApplicationError

SOURCE = "move_source"
DB_NAME = "myrecall.sqlite3"
STATE_NAME = "copy_from_sqlite.json"
BATCH = 2000

# Sent once every table is copied: source_dir (the old data dir, a Path) and progress (a function
# progress(what, total) returning an object with update(n) and close(), like tqdm).
memory_moved = Signal()

Progress = Callable[[str, int], object]


@dataclass
class MoveReport:
    tables: dict[str, int] = field(default_factory=dict)  # rows copied now, per table
    skipped: dict[str, int] = field(default_factory=dict)  # rows already there (an earlier run)
    finished: dict[str, object] = field(default_factory=dict)  # what the apps' receivers said
    files: int = 0  # copied into the image storage now
    files_there: int = 0  # already there (an earlier run, or the same folder)
    files_missing: list[str] = field(default_factory=list)  # listed by a row, not in the old data dir


def _source_open(source_dir: Path) -> None:
    path = source_dir / DB_NAME
    if not path.is_file():
        raise ApplicationError(f"{source_dir} holds no MyRecall database ({DB_NAME} is not there).")
    try:
        with sqlite3.connect(f"file:{path}?mode=ro", uri=True) as probe:
            probe.execute("SELECT count(*) FROM django_migrations").fetchone()
    except sqlite3.Error as exc:
        raise ApplicationError(f"{path} cannot be read as a MyRecall database: {exc}.") from exc
    base = dict(settings.DATABASES["default"]) if connection.vendor == "sqlite" else {}
    options = {"timeout": 30, "init_command": "PRAGMA busy_timeout=30000;"}
    source = {**base, "ENGINE": "django.db.backends.sqlite3", "NAME": str(path), "OPTIONS": options}
    connections.settings[SOURCE] = connections.configure_settings(
        {"default": dict(connections.settings["default"]), SOURCE: source}
    )[SOURCE]


def _models_in_order() -> list[type[models.Model]]:
    """Every concrete model with a table (many-to-many tables included), each after the models its
    foreign keys point to; content types and permissions are left to the target's migrations."""
    skip = {("contenttypes", "contenttype"), ("auth", "permission")}
    found = [
        m for m in apps.get_models(include_auto_created=True)
        if m._meta.managed and not m._meta.proxy and (m._meta.app_label, m._meta.model_name) not in skip
    ]
    ordered: list[type[models.Model]] = []
    done: set = set()

    def visit(model, path=()):
        if model in done or model in path:
            return
        for f in model._meta.concrete_fields:
            target = f.remote_field.model if f.is_relation and f.remote_field else None
            if target is not None and target is not model and target in found:
                visit(target, (*path, model))
        done.add(model)
        ordered.append(model)

    for model in found:
        visit(model)
    return ordered


def _id_maps() -> dict[type[models.Model], dict]:
    """Source ids of content types and permissions -> the target's (by their natural keys)."""
    ContentType = apps.get_model("contenttypes", "ContentType")
    Permission = apps.get_model("auth", "Permission")
    target_types = {(ct.app_label, ct.model): ct.id for ct in ContentType.objects.using("default").all()}
    types = {
        ct.id: target_types.get((ct.app_label, ct.model)) for ct in ContentType.objects.using(SOURCE).all()
    }
    source_types = {ct.id: (ct.app_label, ct.model) for ct in ContentType.objects.using(SOURCE).all()}
    target_perms = {
        (p.content_type_id, p.codename): p.id for p in Permission.objects.using("default").all()
    }
    perms = {}
    for p in Permission.objects.using(SOURCE).all():
        key = source_types.get(p.content_type_id)
        perms[p.id] = target_perms.get((target_types.get(key), p.codename))
    return {ContentType: types, Permission: perms}


# Rows of these are history, not memory: only the tasks still to run (or running) are copied.
_TASKS_LEFT = {"django_tasks_db.DBTaskResult": {"status__in": ["READY", "RUNNING"]}}


def _copy_model(model, id_maps, report: MoveReport, progress: Progress | None) -> None:
    """Copy a table's rows the target has not got: after the highest key copied when keys are
    numbers (the copy goes in key order), else every row not already there (small tables)."""
    label = model._meta.label
    source = model._base_manager.using(SOURCE).filter(**_TASKS_LEFT.get(label, {})).order_by("pk")
    target = model._base_manager.using("default")
    numbered = isinstance(model._meta.pk.target_field if model._meta.pk.is_relation else model._meta.pk, models.AutoField | models.IntegerField)
    last = target.order_by("-pk").values_list("pk", flat=True).first() if numbered else None
    total = source.count()
    done = source.filter(pk__lte=last).count() if last is not None else 0
    report.skipped[label] = done
    remapped = [
        f for f in model._meta.concrete_fields
        if f.is_relation and f.remote_field and f.remote_field.model in id_maps
    ]
    # auto_now fields keep the source's times (bulk_create would stamp them with now).
    stamped = [f for f in model._meta.concrete_fields if getattr(f, "auto_now", False) or getattr(f, "auto_now_add", False)]
    saved = [(f, f.auto_now, f.auto_now_add) for f in stamped]
    bar = progress(f"copy {label}", total) if progress and total else None
    if bar is not None and done:
        bar.update(done)
    copied = 0
    try:
        for f in stamped:
            f.auto_now = f.auto_now_add = False
        rows = source.iterator(chunk_size=BATCH) if not numbered else None
        while True:
            if numbered:
                batch = list((source if last is None else source.filter(pk__gt=last))[:BATCH])
            else:
                batch = [obj for _, obj in zip(range(BATCH), rows)]
            if not batch:
                break
            last = batch[-1].pk if numbered else None
            for obj in batch:
                for f in remapped:
                    value = getattr(obj, f.attname)
                    if value is not None:
                        setattr(obj, f.attname, id_maps[f.remote_field.model].get(value))
            # A row pointing to a content type or permission the target has not got goes.
            kept = [obj for obj in batch if all(getattr(obj, f.attname) is not None or f.null for f in remapped)]
            with transaction.atomic(using="default"):
                target.bulk_create(kept, batch_size=500, ignore_conflicts=not numbered)
            copied += len(kept)
            if bar is not None:
                bar.update(len(batch))
    finally:
        for f, auto_now, auto_now_add in saved:
            f.auto_now, f.auto_now_add = auto_now, auto_now_add
        if bar is not None:
            bar.close()
    report.tables[label] = copied


def _files_copy(source_dir: Path, images_dir: Path, report: MoveReport, progress: Progress | None) -> None:
    """Copy the files the old database's rows point to (the apps list them for export too:
    myrecall.archive.archive_files_register) from the old images folder into the image storage
    configured now (MYRECALL_IMAGES_DIR, or another storage), each under its own name; a file
    already there is left as it is."""
    with sqlite3.connect(f"file:{source_dir / DB_NAME}?mode=ro", uri=True) as snapshot:
        relpaths = files_listed(snapshot)
    store = files_storage()
    bar = progress("copy the images", len(relpaths)) if progress and relpaths else None
    try:
        for relpath in relpaths:
            if store.exists(relpath):
                report.files_there += 1
            else:
                path = images_dir / relpath
                if not path.is_file():
                    report.files_missing.append(relpath)
                else:
                    with open(path, "rb") as handle:
                        saved = store.save(relpath, File(handle, name=relpath))
                    if saved != relpath:
                        store.delete(saved)
                        raise ApplicationError(f"{relpath} could not be stored under its name (the storage named it {saved}).")
                    report.files += 1
            if bar is not None:
                bar.update(1)
    finally:
        if bar is not None:
            bar.close()


def memory_move(*, source_dir: Path, images_dir: Path | None = None, progress: Progress | None = None) -> MoveReport:
    """Copy the memory of an embedded data dir into this process's database (see the module
    docstring); the images are read from `images_dir` (the old MYRECALL_IMAGES_DIR; the old data dir
    by default). Raises ApplicationError when the source is not a MyRecall data dir, is this
    process's own database, or when the target already holds another memory's frames."""
    source_dir = Path(source_dir).expanduser().resolve()
    if connection.vendor == "sqlite" and Path(settings.DATABASES["default"]["NAME"]).resolve() == source_dir / DB_NAME:
        raise ApplicationError("That is this MyRecall's own database: set DATABASE_URL to the PostgreSQL database to copy it into.")
    _source_open(source_dir)
    state_path = Path(settings.DATA_DIR) / STATE_NAME
    state = json.loads(state_path.read_text()) if state_path.exists() else {}
    try:
        call_command("migrate", database=SOURCE, verbosity=0)  # the old dir at this version's schema
        call_command("migrate", verbosity=0)
        Frame = apps.get_model("frames", "Frame")
        if state.get("source") != str(source_dir) and Frame.objects.using("default").exists():
            raise ApplicationError(
                "The target database already holds frames that were not copied from "
                f"{source_dir}: copying into it would mix two memories. Use an empty database."
            )
        state_path.write_text(json.dumps({"source": str(source_dir), "tables": "copying"}))
        report = MoveReport()
        id_maps = _id_maps()
        ordered = _models_in_order()
        for model in ordered:
            _copy_model(model, id_maps, report, progress)
        with connection.cursor() as cursor:
            for statement in connection.ops.sequence_reset_sql(no_style(), ordered):
                cursor.execute(statement)
        state_path.write_text(json.dumps({"source": str(source_dir), "tables": "copied"}))
        _files_copy(source_dir, Path(images_dir).expanduser().resolve() if images_dir else source_dir, report, progress)
        for receiver, result in memory_moved.send(sender=None, source_dir=source_dir, progress=progress):
            if isinstance(result, dict):
                report.finished.update(result)
        state_path.write_text(json.dumps({"source": str(source_dir), "tables": "copied", "finished": True}))
        return report
    finally:
        connections[SOURCE].close()
