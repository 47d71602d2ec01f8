"""Creates PYTEST_STARTED in the project directory as soon as pytest loads
this file: a refused request must leave no such file behind."""

from pathlib import Path

(Path(__file__).resolve().parent / "PYTEST_STARTED").write_text("pytest ran\n")
