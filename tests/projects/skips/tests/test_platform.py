import pytest

from platform_info import is_windows, path_separator, python_tag

NEEDS_NETWORK = "requires network access"


def test_python_tag():
    assert python_tag().startswith("py3")


def test_path_separator_is_single_char():
    assert len(path_separator()) == 1


@pytest.mark.skip(reason=NEEDS_NETWORK)
def test_download_index():
    raise AssertionError("should not run")


@pytest.mark.skip(reason=NEEDS_NETWORK)
def test_upload_report():
    raise AssertionError("should not run")


@pytest.mark.skipif(True, reason="feature flag 'beta_export' is disabled")
def test_beta_export():
    raise AssertionError("should not run")


def test_windows_drive_letters():
    if not is_windows():
        pytest.skip("only meaningful on Windows")
    assert path_separator() == "\\"


class TestPosix:
    def test_separator(self):
        assert path_separator() == "/"

    @pytest.mark.skip(reason=NEEDS_NETWORK)
    def test_remote_mount(self):
        raise AssertionError("should not run")
