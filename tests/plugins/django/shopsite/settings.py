SECRET_KEY = "not-a-secret"
DEBUG = False
USE_TZ = True
INSTALLED_APPS = ["catalog"]
DATABASES = {"default": {"ENGINE": "django.db.backends.sqlite3", "NAME": ":memory:"}}
DEFAULT_AUTO_FIELD = "django.db.models.AutoField"
