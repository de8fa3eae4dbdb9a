"""Django system checks of the search settings: a server must not start with an embedding
model it cannot run (every frame would fail to embed, every search degrade)."""

from django.conf import settings
from django.core.checks import Error, register


@register()
def embeddings_model_check(app_configs, **kwargs) -> list[Error]:
    from search.embeddings import BUILTIN

    if settings.EMBEDDINGS_BASE_URL or not settings.EMBEDDINGS_MODEL or settings.EMBEDDINGS_MODEL in BUILTIN:
        return []
    return [
        Error(
            f"EMBEDDINGS_MODEL={settings.EMBEDDINGS_MODEL!r} is not a model packaged with MyRecall.",
            hint=f"Choose one of {', '.join(BUILTIN)}, or set EMBEDDINGS_BASE_URL to an OpenAI-compatible endpoint that serves it.",
            id="search.E001",
        )
    ]
