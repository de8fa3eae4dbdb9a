from django.apps import AppConfig
from django.conf import settings


class SearchConfig(AppConfig):
    name = "search"

    def ready(self):
        from frames.signals import frame_text_ready, frames_context_changed, frames_deleted, frames_deleting, frames_erasing
        from myrecall.worker_hooks import task_abandoned_register, web_startup_register, worker_startup_register
        from search import checks, tasks  # noqa: F401 (checks registers itself)
        from search.embeddings import embedder_load_async
        from myrecall.sidecars import Sidecar, sidecar_register
        from frames.timeline import timeline_notice_register
        from search.status import index_lag_notice, index_layout_note, vectors_migration_notice, vectors_note
        from search.vectors import vector_server_answering, vector_server_command
        from myrecall.archive import memory_restored
        from myrecall.moving import memory_moved
        from search.services import (
            indexes_build_on_moved,
            frame_index_on_text_ready,
            frames_reindex_on_context_changed,
            frames_unindex_on_deleting,
            frames_vectors_on_deleted,
            keyword_index_erase_on_erasing,
            vectors_owed_on_restore,
        )

        frame_text_ready.connect(frame_index_on_text_ready, dispatch_uid="search.frame_index")
        frames_context_changed.connect(frames_reindex_on_context_changed, dispatch_uid="search.frames_reindex")
        frames_deleting.connect(frames_unindex_on_deleting, dispatch_uid="search.frames_unindex")
        frames_deleted.connect(frames_vectors_on_deleted, dispatch_uid="search.frames_vectors_remove")
        frames_erasing.connect(keyword_index_erase_on_erasing, dispatch_uid="search.keyword_index_erase")
        memory_restored.connect(vectors_owed_on_restore, dispatch_uid="search.vectors_owed_on_restore")
        memory_moved.connect(indexes_build_on_moved, dispatch_uid="search.indexes_build_on_moved")
        worker_startup_register(index_layout_note)
        worker_startup_register(tasks.embedder_ready_line)
        worker_startup_register(tasks.vectors_lost_requeue)
        worker_startup_register(vectors_note)
        worker_startup_register(tasks.vectors_migration_start)
        timeline_notice_register(index_lag_notice)
        timeline_notice_register(vectors_migration_notice)
        task_abandoned_register(tasks.vectors_embed, tasks.vectors_embed_abandoned)
        if settings.WARM_UP:  # else each loads when first needed
            web_startup_register(embedder_load_async)
            web_startup_register(tasks.vectors_warm_in_background)
        sidecar_register(
            Sidecar(name="vectors", command=vector_server_command, ready=vector_server_answering)
        )

        # The app's read tools, offered through the REST API, MCP and the agent's skill.
        from search.tools import SEARCH
        from myrecall.tools import tool_register

        tool_register(SEARCH)

        from myrecall.space import space_part_register
        from search.status import vectors_space

        space_part_register("vectors", "Search-by-meaning index", vectors_space)

        # Weeks of the keyword index in an older layout are rebuilt in the current one.
        from myrecall.space import Compaction, compaction_register
        from search.services import keyword_layout_upgrade
        from search.status import keyword_layout_outdated, keyword_layout_outdated_frames

        compaction_register(
            Compaction(
                name="keyword_index", label="keyword index rebuilt in its current layout",
                remaining=keyword_layout_outdated_frames, pending=keyword_layout_outdated, step=keyword_layout_upgrade,
            )
        )
