import os

import threader


def test_threader_imported_here():
    with open(os.environ["WARM_THREADER_TESTS"], "a") as f:
        f.write(f"{os.getpid()}\n")
    assert threader.STARTED.is_alive()
