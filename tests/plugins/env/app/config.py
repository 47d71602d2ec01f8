import os


def mode():
    return os.environ["APP_MODE"]


def api_key():
    return os.environ["APP_API_KEY"]


def database_url():
    return os.environ["DATABASE_URL"]
