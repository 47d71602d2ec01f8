"""Sales figures with numpy and pandas (tests/projects/warm_numpy)."""
