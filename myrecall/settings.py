"""MyRecall settings: everything comes from the environment (django-environ),
and every setting has a safe local default."""

import json
import os
import secrets
from pathlib import Path

import environ

import myrecall.sqlite  # noqa: F401  (first: the SQLite library every part of the process uses)
from django.core.exceptions import ImproperlyConfigured

BASE_DIR = Path(__file__).resolve().parent.parent

env = environ.Env(
    DEBUG=(bool, False),
    MYRECALL_DATA_DIR=(str, "~/.myrecall"),
    ALLOWED_HOSTS=(list, ["127.0.0.1", "localhost", "[::1]"]),
    MYRECALL_MAX_UPLOAD_MB=(float, 20.0),
    MYRECALL_DEDUP_MAX_DISTANCE=(int, 0),
    MYRECALL_IMAGE_QUALITY=(int, 80),
    MYRECALL_IMAGE_EXACT=(bool, False),
    MYRECALL_IMAGES_DIR=(str, ""),
    MYRECALL_IMAGES_STORAGE=(str, ""),
    MYRECALL_IMAGES_STORAGE_OPTIONS=(str, ""),
    MYRECALL_OCR_ENGINE=(str, "rapidocr"),
    MYRECALL_OCR_THREADS=(int, 2),
    MYRECALL_OCR_MAX_ATTEMPTS=(int, 3),
    MYRECALL_OCR_INCREMENTAL=(bool, True),
    MYRECALL_WARM_UP=(bool, True),
    MYRECALL_TIMESTAMP_MAX_FUTURE_S=(float, 86400.0),
    MYRECALL_WORKER_INTERVAL=(float, 0.2),
    MYRECALL_WORKER_HEARTBEAT_S=(float, 5.0),
    MYRECALL_WORKER_GRACE_S=(float, 60.0),
    MYRECALL_WORKER_SWEEP_S=(float, 60.0),
    MYRECALL_TASK_MAX_ATTEMPTS=(int, 3),
    MYRECALL_TASK_TURN_S=(float, 30.0),
    MYRECALL_CAPTURE_SILENT_MIN=(float, 5.0),
    MYRECALL_RETENTION_DAYS=(int, 0),
    MYRECALL_HOUSEKEEPING_CHECK_S=(float, 60.0),
    MYRECALL_WORKER_STOP_S=(float, 30.0),
    MYRECALL_STOP_GRACE_S=(float, 5.0),
    MYRECALL_SEARCH_RANK_MAX=(int, 4000),
    MYRECALL_SEARCH_FALLBACK_BELOW=(int, 20),
    EMBEDDINGS_BASE_URL=(str, ""),
    EMBEDDINGS_API_KEY=(str, ""),
    EMBEDDINGS_MODEL=(str, ""),
    EMBEDDINGS_TIMEOUT_S=(float, 10.0),
    EMBEDDINGS_MAX_RETRIES=(int, 1),
    EMBEDDINGS_BATCH_SIZE=(int, 32),
    EMBEDDINGS_CACHE_SIZE=(int, 1024),
    EMBEDDINGS_MAX_TOKENS=(int, 0),
    EMBEDDINGS_THREADS=(int, 1),
    CHROMA_URL=(str, ""),
    CHROMA_TOKEN=(str, ""),
    CHROMA_DATABASE=(str, "default_database"),
    MYRECALL_SEARCH_MODE=(str, "hybrid"),
    MYRECALL_SEMANTIC_MIN_SIMILARITY=(float, None),
    LLM_BASE_URL=(str, ""),
    LLM_API_KEY=(str, ""),
    LLM_MODEL=(str, ""),
    LLM_TIMEOUT_S=(float, 60.0),
    LLM_FIRST_CHUNK_TIMEOUT_S=(float, 20.0),
    LLM_MAX_RETRIES=(int, 1),
    LLM_CONTEXT_WINDOW=(int, 32000),
    LLM_MAX_TOKENS=(int, 4096),
    AGENT_PI_BINARY=(str, ""),
    AGENT_TURN_START_TIMEOUT_S=(float, 15.0),
    AGENT_TURN_TIMEOUT_S=(float, 180.0),
    AGENT_MAX_RESTARTS=(int, 5),
    AGENT_MODEL_RETRIES=(int, 3),
    AGENT_MODEL_RETRY_DELAY_S=(float, 2.0),
    AGENT_API_URL=(str, ""),
)
if (BASE_DIR / ".env").exists():
    environ.Env.read_env(BASE_DIR / ".env", overwrite=False)

DEBUG = env("DEBUG")
DATA_DIR = Path(env("MYRECALL_DATA_DIR")).expanduser().resolve()
DATA_DIR.mkdir(mode=0o700, parents=True, exist_ok=True)


def _secret_key() -> str:
    """SECRET_KEY from the environment, else one generated once and kept (0600) in the data dir."""
    if os.environ.get("SECRET_KEY"):
        return os.environ["SECRET_KEY"]
    path = DATA_DIR / "secret_key"
    if not path.exists():
        # Written whole under a name of its own, then linked in: processes starting at once (the
        # web server and the worker) all read the one key that won, never a half-written file.
        part = DATA_DIR / f"secret_key.{os.getpid()}.part"
        fd = os.open(part, os.O_WRONLY | os.O_CREAT | os.O_TRUNC, 0o600)
        with os.fdopen(fd, "w") as fh:
            fh.write(secrets.token_urlsafe(50))
        try:
            os.link(part, path)
        except FileExistsError:
            pass
        finally:
            part.unlink()
    return path.read_text().strip()


SECRET_KEY = _secret_key()
ALLOWED_HOSTS = env("ALLOWED_HOSTS")

INSTALLED_APPS = [
    "django.contrib.admin",
    "django.contrib.auth",
    "django.contrib.contenttypes",
    "django.contrib.sessions",
    "django.contrib.messages",
    "django.contrib.staticfiles",
    "ninja",  # serves the API docs from static files, not a CDN
    "template_partials",
    "django_tasks",
    "django_tasks_db",
    "channels",
    "myrecall",
    "frames",
    "search",
    "chat",
    "agent_bridge",
]

MIDDLEWARE = [
    "django.middleware.security.SecurityMiddleware",
    "whitenoise.middleware.WhiteNoiseMiddleware",
    "myrecall.middleware.UploadSizeLimitMiddleware",
    "django.contrib.sessions.middleware.SessionMiddleware",
    "django.middleware.common.CommonMiddleware",
    "django.middleware.csrf.CsrfViewMiddleware",
    "django.contrib.auth.middleware.AuthenticationMiddleware",
    "myrecall.middleware.CrossOrigin",
    "myrecall.middleware.LoginRequired",
    "myrecall.middleware.TimezoneMiddleware",
    "django.contrib.messages.middleware.MessageMiddleware",
    "django.middleware.clickjacking.XFrameOptionsMiddleware",
]

ROOT_URLCONF = "myrecall.urls"
ASGI_APPLICATION = "myrecall.asgi.application"
LOGIN_URL = "login"
LOGIN_REDIRECT_URL = "timeline"
LOGOUT_REDIRECT_URL = "login"

TEMPLATES = [
    {
        "BACKEND": "django.template.backends.django.DjangoTemplates",
        "DIRS": [BASE_DIR / "templates"],
        "APP_DIRS": True,
        "OPTIONS": {
            "context_processors": [
                "django.template.context_processors.request",
                "django.contrib.auth.context_processors.auth",
                "django.contrib.messages.context_processors.messages",
                "myrecall.context_processors.timezone",
            ],
        },
    },
]

# SQLite in WAL mode: the web server and the worker write concurrently. Incremental auto-vacuum
# (takes effect when the database is created; migration frames 0004 converts an older one) lets a
# deletion give its pages back to the file system. secure_delete: what a deletion frees (rows, index
# entries, pages) is overwritten with zeros, so a deleted screen's text does not stay in the file.
DATABASES = {
    "default": env.db(
        "DATABASE_URL", default=f"sqlite:///{DATA_DIR / 'myrecall.sqlite3'}"
    )
}
if DATABASES["default"]["ENGINE"] == "django.db.backends.sqlite3":
    DATABASES["default"]["OPTIONS"] = {
        "transaction_mode": "IMMEDIATE",
        "timeout": 30,
        "init_command": (
            # auto_vacuum first: it only takes effect before the file is written (WAL mode writes it).
            "PRAGMA auto_vacuum=INCREMENTAL; PRAGMA journal_mode=WAL; PRAGMA synchronous=NORMAL; "
            "PRAGMA busy_timeout=30000; PRAGMA secure_delete=ON;"
        ),
    }

DEFAULT_AUTO_FIELD = "django.db.models.BigAutoField"

TASKS = {"default": {"BACKEND": "django_tasks_db.DatabaseBackend", "QUEUES": ["default", "ocr", "embed"]}}

# In-memory inside one web process; Redis when several processes must share live events.
REDIS_URL = env.str("REDIS_URL", default="")
if REDIS_URL:
    # redis-py 8 reads with a 5 s socket timeout by default, the length of channels-redis's blocking
    # receive (BZPOPMIN, 5 s): an idle socket would fail every 5 s. 30 s still notices a dead Redis.
    _redis_host = {"address": REDIS_URL, "socket_timeout": 30}
    CHANNEL_LAYERS = {"default": {"BACKEND": "channels_redis.core.RedisChannelLayer", "CONFIG": {"hosts": [_redis_host]}}}
else:
    CHANNEL_LAYERS = {"default": {"BACKEND": "channels.layers.InMemoryChannelLayer"}}

AUTH_PASSWORD_VALIDATORS = [
    {"NAME": "django.contrib.auth.password_validation.MinimumLengthValidator"},
]

LANGUAGE_CODE = "en-us"
TIME_ZONE = "UTC"
USE_I18N = True
USE_TZ = True

STATIC_URL = "static/"
STATICFILES_DIRS = [
    BASE_DIR / "static",
    # Pinned in package.json / package-lock.json, installed by scripts/setup.sh.
    ("vendor/htmx", BASE_DIR / "node_modules" / "htmx.org" / "dist"),
    ("vendor/htmx-ext-ws", BASE_DIR / "node_modules" / "htmx-ext-ws"),
]
# Served straight from the source folders: no collectstatic step for a local app.
WHITENOISE_USE_FINDERS = True
# Files browsers ask for at the root (/favicon.ico, on every page and the API's docs).
WHITENOISE_ROOT = BASE_DIR / "static" / "root"

# Where frame images and thumbnails live, for every web server and worker: the data dir by default;
# a folder every machine mounts (MYRECALL_IMAGES_DIR), or any Django storage class with its options
# (MYRECALL_IMAGES_STORAGE, MYRECALL_IMAGES_STORAGE_OPTIONS as JSON). Names in it are Frame.image_path.
IMAGES_DIR = Path(env("MYRECALL_IMAGES_DIR")).expanduser().resolve() if env("MYRECALL_IMAGES_DIR") else DATA_DIR
if not IMAGES_DIR.is_dir():
    raise ImproperlyConfigured(f"MYRECALL_IMAGES_DIR={IMAGES_DIR} is not a folder: mount the shared folder there or create it.")
try:
    _images_options = json.loads(env("MYRECALL_IMAGES_STORAGE_OPTIONS") or "{}")
except ValueError as exc:
    raise ImproperlyConfigured(f"MYRECALL_IMAGES_STORAGE_OPTIONS is not a JSON object: {exc}") from None
if not isinstance(_images_options, dict):
    raise ImproperlyConfigured("MYRECALL_IMAGES_STORAGE_OPTIONS must be a JSON object of the storage's options.")
STORAGES = {
    "default": {"BACKEND": "django.core.files.storage.FileSystemStorage"},
    "staticfiles": {"BACKEND": "django.contrib.staticfiles.storage.StaticFilesStorage"},
    "frames": (
        {"BACKEND": env("MYRECALL_IMAGES_STORAGE"), "OPTIONS": _images_options}
        if env("MYRECALL_IMAGES_STORAGE")
        else {"BACKEND": "myrecall.file_storage.AtomicFileSystemStorage", "OPTIONS": {"location": str(IMAGES_DIR), **_images_options}}
    ),
}

SESSION_COOKIE_HTTPONLY = True
SESSION_COOKIE_SAMESITE = "Lax"
CSRF_COOKIE_SAMESITE = "Lax"

# Frames and OCR
MAX_UPLOAD_BYTES = int(env("MYRECALL_MAX_UPLOAD_MB") * 1024 * 1024)
# Files bigger than this never reach the view: the limit plus multipart overhead.
DATA_UPLOAD_MAX_MEMORY_SIZE = 2 * 1024 * 1024
FILE_UPLOAD_MAX_MEMORY_SIZE = 4 * 1024 * 1024
DEDUP_MAX_DISTANCE = env("MYRECALL_DEDUP_MAX_DISTANCE")
IMAGE_QUALITY = env("MYRECALL_IMAGE_QUALITY")
# Every screen stored exactly, a screen of photos or video too (else those are stored lossy at IMAGE_QUALITY).
IMAGE_EXACT = env("MYRECALL_IMAGE_EXACT")
OCR_ENGINE = env("MYRECALL_OCR_ENGINE")
OCR_THREADS = env("MYRECALL_OCR_THREADS")
OCR_MAX_ATTEMPTS = env("MYRECALL_OCR_MAX_ATTEMPTS")
OCR_INCREMENTAL = env("MYRECALL_OCR_INCREMENTAL")
# Load what search by meaning needs when the web server and the worker start (the embedding model
# in the web server, the recent days of vectors, the everyday questions and the second model in
# both: about 5 s of CPU a start), so that neither the first search nor a new memory's first frames
# wait for it; false: each when first needed.
WARM_UP = env("MYRECALL_WARM_UP")
TIMESTAMP_MAX_FUTURE_S = env("MYRECALL_TIMESTAMP_MAX_FUTURE_S")
# Keep only the last N days of frames (0: keep everything). The worker looks every HOUSEKEEPING_CHECK_S
# for frames past it (and for deletions cut short) and deletes them, every copy; `manage.py prune`
# does it on demand.
RETENTION_DAYS = env("MYRECALL_RETENTION_DAYS")
HOUSEKEEPING_CHECK_S = env("MYRECALL_HOUSEKEEPING_CHECK_S")
WORKER_INTERVAL = env("MYRECALL_WORKER_INTERVAL")

# Background work survives a crash: a task left running by a worker that is gone (its process, on this
# machine; silent past the grace, elsewhere) is taken again, up to the attempts.
WORKER_HEARTBEAT_S = env("MYRECALL_WORKER_HEARTBEAT_S")
WORKER_GRACE_S = env("MYRECALL_WORKER_GRACE_S")
WORKER_SWEEP_S = env("MYRECALL_WORKER_SWEEP_S")
TASK_MAX_ATTEMPTS = env("MYRECALL_TASK_MAX_ATTEMPTS")
# Live frames are read first (myrecall/priorities.py); work of a lower priority that waited this long
# without a turn gets one, so a backlog still drains while frames come faster than they are read.
TASK_TURN_S = env("MYRECALL_TASK_TURN_S")
# The timeline warns when a device that captured today has neither sent a frame nor had its capture client report for this long.
CAPTURE_SILENT_S = env("MYRECALL_CAPTURE_SILENT_MIN") * 60
# How long a stopping worker (Ctrl-C, SIGTERM, serve gone) may finish its task in flight; past it the
# task is interrupted and goes back to the queue.
WORKER_STOP_S = env("MYRECALL_WORKER_STOP_S")
# On a stop the web server answers the requests in flight for up to this long, and an interrupted
# worker puts its task back within it; then the process exits whatever it is doing (myrecall.shutdown).
STOP_GRACE_S = env("MYRECALL_STOP_GRACE_S")

# Keyword search. bm25 costs about 1.5 us a match (bench/search_keyword.py): past this many matches of
# a tier in the range only the newest are ranked, so a word on most screens still answers fast; 0
# ranks every match. The last word is also taken as a prefix when exact and part matches are fewer.
SEARCH_RANK_MAX = env("MYRECALL_SEARCH_RANK_MAX")
SEARCH_FALLBACK_BELOW = env("MYRECALL_SEARCH_FALLBACK_BELOW")

# Embeddings (search/embeddings.py): a model packaged with MyRecall on this machine,
# multilingual-e5-small (the default, when EMBEDDINGS_MODEL is empty) or all-MiniLM-L6-v2 (English),
# or any OpenAI-compatible /embeddings endpoint when EMBEDDINGS_BASE_URL is set (EMBEDDINGS_MODEL
# then names its model). After a change the worker re-embeds every frame with it by itself.
# Texts are embedded in batches, de-duplicated inside a batch, and cached in memory (never on disk).
# EMBEDDINGS_MAX_TOKENS: the piece of a screen embedded, in tokens (0: the model's own, 128 for MiniLM,
# the length it was trained on, at most 256; 256 for e5, at most 512; 512 for an endpoint).
EMBEDDINGS_BASE_URL = env("EMBEDDINGS_BASE_URL")
EMBEDDINGS_API_KEY = env("EMBEDDINGS_API_KEY")
EMBEDDINGS_MODEL = env("EMBEDDINGS_MODEL")
EMBEDDINGS_TIMEOUT_S = env("EMBEDDINGS_TIMEOUT_S")
EMBEDDINGS_MAX_RETRIES = env("EMBEDDINGS_MAX_RETRIES")
EMBEDDINGS_BATCH_SIZE = env("EMBEDDINGS_BATCH_SIZE")
EMBEDDINGS_CACHE_SIZE = env("EMBEDDINGS_CACHE_SIZE")
EMBEDDINGS_MAX_TOKENS = env("EMBEDDINGS_MAX_TOKENS")
# CPU threads of the local model in each process (1 keeps a query fast while OCR runs on the other core).
EMBEDDINGS_THREADS = env("EMBEDDINGS_THREADS")
# Vector index (search/vectors.py): Chroma in the data dir, or a Chroma server when CHROMA_URL is set.
CHROMA_URL = env("CHROMA_URL")
# The key that server asks for, sent as "Authorization: Bearer <key>" (empty: none). The embedded
# server's key is made for it and kept in DATA_DIR/chroma/server.key.
CHROMA_TOKEN = env("CHROMA_TOKEN")
# The database of the Chroma server (CHROMA_URL) that holds this memory's vectors: made there when
# missing, so that several memories can share one server without seeing each other's vectors.
CHROMA_DATABASE = env("CHROMA_DATABASE")
# What /api/v1/search does when no mode is given: hybrid, keyword or semantic.
SEARCH_MODE = env("MYRECALL_SEARCH_MODE")
# A frame is a semantic match when its text is at least this similar to the query (cosine, -1 to 1):
# below it, the nearest frames of a range are only the least unrelated ones. Unset: the model's own
# (search.embeddings: 0.2 for MiniLM; e5's similarities crowd into 0.7-0.9, so its bar is higher).
SEMANTIC_MAX_DISTANCE = None if env("MYRECALL_SEMANTIC_MIN_SIMILARITY") is None else 1 - env("MYRECALL_SEMANTIC_MIN_SIMILARITY")

# Chat LLM: any OpenAI-compatible endpoint; an empty base URL means none is configured.
LLM_BASE_URL = env("LLM_BASE_URL")
LLM_API_KEY = env("LLM_API_KEY")
LLM_MODEL = env("LLM_MODEL")
LLM_TIMEOUT_S = env("LLM_TIMEOUT_S")
LLM_FIRST_CHUNK_TIMEOUT_S = env("LLM_FIRST_CHUNK_TIMEOUT_S")
LLM_MAX_RETRIES = env("LLM_MAX_RETRIES")
# The agent (Pi, agent mode of the chat) talks to the same LLM; the model's window and answer size for Pi.
LLM_CONTEXT_WINDOW = env("LLM_CONTEXT_WINDOW")
LLM_MAX_TOKENS = env("LLM_MAX_TOKENS")
# The Pi binary: the project's pinned one (node_modules/.bin/pi) unless a path or command is given.
AGENT_PI_BINARY = env("AGENT_PI_BINARY")
# Watchdogs of an agent turn: no event this long after the question, or the whole turn this long.
AGENT_TURN_START_TIMEOUT_S = env("AGENT_TURN_START_TIMEOUT_S")
AGENT_TURN_TIMEOUT_S = env("AGENT_TURN_TIMEOUT_S")
# Restarts in a row after Pi exits (with backoff 1, 2, 4, 8, 16 s); any event from Pi resets the count.
AGENT_MAX_RESTARTS = env("AGENT_MAX_RESTARTS")
# When the model fails (an error answer, no connection), Pi tries again this many times, waiting
# this long before the first retry and twice as long before each next one.
AGENT_MODEL_RETRIES = env("AGENT_MODEL_RETRIES")
AGENT_MODEL_RETRY_DELAY_S = env("AGENT_MODEL_RETRY_DELAY_S")
# Where the agent's skills reach MyRecall's API; by default the address the question came in on.
AGENT_API_URL = env("AGENT_API_URL")

LOGGING = {
    "version": 1,
    "disable_existing_loggers": False,
    "handlers": {"console": {"class": "logging.StreamHandler"}},
    "root": {"handlers": ["console"], "level": "WARNING"},
    "loggers": {
        "myrecall": {"level": "INFO"},
        "frames": {"level": "INFO"},
        "search": {"level": "INFO"},
    },
}
