import os

from app import config


def test_mode():
    assert config.mode() == "test"


def test_region_default():
    assert os.environ["APP_REGION"] == "eu-west-1"


def test_database_is_local():
    assert config.database_url().startswith("sqlite:///")


def test_api_key_is_set():
    assert config.api_key()


def test_mode_is_production():
    assert config.mode() == "production"
