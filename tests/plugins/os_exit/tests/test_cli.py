import os


def main(argv):
    if "--fatal" in argv:
        os._exit(1)
    return 0


def test_main_returns_zero():
    assert main([]) == 0


def test_fatal_flag():
    main(["--fatal"])


def test_help():
    assert main(["--help"]) == 0


def test_version():
    assert main(["--version"]) == 0
