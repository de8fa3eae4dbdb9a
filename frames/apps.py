from django.apps import AppConfig


class FramesConfig(AppConfig):
    name = "frames"

    def ready(self):
        from frames import tasks
        from frames.selectors import archive_images
        from myrecall.archive import archive_files_register
        from django.conf import settings

        from myrecall.worker_hooks import task_abandoned_register, worker_periodic_register, worker_startup_register

        worker_startup_register(tasks.ocr_lost_requeue)
        worker_startup_register(tasks.ocr_engine_warm_up)
        task_abandoned_register(tasks.frame_ocr, tasks.frame_ocr_abandoned)
        worker_periodic_register(tasks.housekeeping_enqueue, every_s=lambda: settings.HOUSEKEEPING_CHECK_S)
        archive_files_register(archive_images)

        # What the frames' files take on disk (the settings page, GET /api/v1/status).
        from frames.selectors import images_space, thumbnails_space
        from myrecall.space import space_part_register

        space_part_register("images", "Screen images", images_space)
        space_part_register("thumbnails", "Thumbnails", thumbnails_space)

        # The app's read tools, offered through the REST API, MCP and the agent's skill.
        from frames.tools import ACTIVITY, FRAME_IMAGE, FRAME_TEXT, FRAMES_AROUND
        from myrecall.tools import tool_register

        for tool in (FRAME_TEXT, FRAMES_AROUND, FRAME_IMAGE, ACTIVITY):
            tool_register(tool)
