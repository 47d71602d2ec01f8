from hypothesis import settings

settings.register_profile("ci", derandomize=True, database=None, deadline=None)
settings.load_profile("ci")
