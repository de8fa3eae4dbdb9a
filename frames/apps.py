from django.apps import AppConfig


class FramesConfig(AppConfig):
    name = "frames"

    def ready(self):
        from frames import tasks
        from myrecall.worker_hooks import task_abandoned_register, worker_startup_register

        worker_startup_register(tasks.ocr_lost_requeue)
        worker_startup_register(tasks.ocr_engine_warm_up)
        task_abandoned_register(tasks.frame_ocr, tasks.frame_ocr_abandoned)
