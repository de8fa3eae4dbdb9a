from django.apps import AppConfig


class FramesConfig(AppConfig):
    name = "frames"

    def ready(self):
        from django.core import checks

        from frames import storage, tasks
        from frames.selectors import archive_images
        from myrecall.archive import archive_files_register
        from django.conf import settings

        from myrecall.worker_hooks import task_abandoned_register, worker_periodic_register, worker_startup_register

        worker_startup_register(tasks.ocr_lost_requeue)
        worker_startup_register(tasks.ocr_engine_warm_up)
        task_abandoned_register(tasks.frame_ocr, tasks.frame_ocr_abandoned)
        worker_periodic_register(tasks.housekeeping_enqueue, every_s=lambda: settings.HOUSEKEEPING_CHECK_S)
        archive_files_register(archive_images, storage=storage.files)
        # The storage of frame images that settings name can be made (said at start, not at the first frame).
        checks.register(storage.storage_check)

        # What the frames' files take on disk (the settings page, GET /api/v1/status).
        from frames.selectors import images_space, thumbnails_space
        from myrecall.space import space_part_register

        space_part_register("images", "Screen images", images_space)
        space_part_register("thumbnails", "Thumbnails", thumbnails_space)

        # Rows written in an older, larger form, rewritten in place (`manage.py compact`, and the
        # worker in the background).
        from frames.selectors import ocr_lines_old, ocr_text_old
        from frames.services import ocr_lines_compact, ocr_text_compact
        from myrecall.space import Compaction, compaction_register

        compaction_register(
            Compaction(
                name="ocr_lines", label="OCR lines packed", remaining=lambda: ocr_lines_old().count(),
                pending=lambda: ocr_lines_old().exists(), step=ocr_lines_compact,
            )
        )
        compaction_register(
            Compaction(
                name="ocr_text", label="OCR text compressed", remaining=lambda: ocr_text_old().count(),
                pending=lambda: ocr_text_old().exists(), step=ocr_text_compact,
            )
        )
        # Images stored in an older form, stored again in today's: only when asked (`manage.py
        # compact`): it decodes and encodes every such frame, about 0.2 s of CPU each.
        from django.utils import timezone

        from frames.selectors import images_old
        from frames.services import IMAGE_BASE_SPAN, images_compact

        compaction_register(
            Compaction(
                name="images", label="Images stored again", unit="frame", background=False,
                remaining=lambda: images_old(before=timezone.now() - IMAGE_BASE_SPAN).count(),
                pending=lambda: images_old(before=timezone.now() - IMAGE_BASE_SPAN).exists(), step=images_compact,
            )
        )
        worker_startup_register(tasks.storage_compact_start)

        # The app's read tools, offered through the REST API, MCP and the agent's skill.
        from frames.tools import ACTIVITY, FRAME_IMAGE, FRAME_TEXT, FRAMES_AROUND
        from myrecall.tools import tool_register

        for tool in (FRAME_TEXT, FRAMES_AROUND, FRAME_IMAGE, ACTIVITY):
            tool_register(tool)
