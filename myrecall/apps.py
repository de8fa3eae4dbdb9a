from django.apps import AppConfig


class MyRecallConfig(AppConfig):
    name = "myrecall"
    verbose_name = "MyRecall"
