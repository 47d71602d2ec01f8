"""pytest's "Working with non-python tests" example, for API usecases.

The docs parse the specs with PyYAML; this flat subset (a usecase name,
then indented `key: value` lines) needs no dependency.
"""

import pytest

ORDERS = {1: {"id": 1, "item": "pen"}}


def call_api(request):
    method, path = request.split()
    if method == "GET" and path == "/orders":
        return 200, {"orders": sorted(ORDERS)}
    if method == "GET" and path.startswith("/orders/"):
        order = ORDERS.get(int(path.rsplit("/", 1)[1]))
        if order is None:
            return 404, {"error": "order not found"}
        return 200, order
    return 405, {"error": "method not allowed"}


def parse_specs(text):
    specs = {}
    for line in text.splitlines():
        if not line.strip() or line.lstrip().startswith("#"):
            continue
        key, _, value = line.strip().partition(":")
        if line[0].isspace():
            specs[name][key] = value.strip()
        else:
            name = key
            specs[name] = {}
    return specs


def pytest_collect_file(parent, file_path):
    if file_path.suffix == ".yaml" and file_path.name.startswith("test"):
        return YamlFile.from_parent(parent, path=file_path)


class YamlFile(pytest.File):
    def collect(self):
        raw = parse_specs(self.path.read_text(encoding="utf-8"))
        for name, spec in raw.items():
            yield YamlItem.from_parent(self, name=name, spec=spec)


class YamlItem(pytest.Item):
    def __init__(self, *, spec, **kwargs):
        super().__init__(**kwargs)
        self.spec = spec

    def runtest(self):
        status, body = call_api(self.spec["request"])
        if status != int(self.spec["status"]):
            raise YamlException(self.spec["request"], self.spec["status"], status, body)

    def repr_failure(self, excinfo):
        """Called when self.runtest() raises an exception."""
        if isinstance(excinfo.value, YamlException):
            request, expected, status, body = excinfo.value.args
            return "\n".join(
                [
                    "usecase execution failed:",
                    f"   {request}: expected status {expected}, got {status}",
                    f"   response body: {body!r}",
                ]
            )
        return super().repr_failure(excinfo)

    def reportinfo(self):
        return self.path, 0, f"usecase: {self.name}"


class YamlException(Exception):
    """Custom exception for error reporting."""
