"""pytest-mcp's record of what a run imported: a pytest plugin loaded
(`-p pytest_mcp_imported`) from pytest-mcp's private temporary directory
when `serve` keeps a warm process for the project (docs/warm.md); nothing is
installed.

At the end of the run it adds to the file PYTEST_MCP_IMPORTED names the
modules the run imported that a warm process may import ahead of the next
run: the standard library's and site-packages', never a module of the
project (a file under the root outside site-packages), never a test module
or a conftest. Lines are `m NAME` for a module and `r NAME` for a name
pytest marked for assertion rewriting (plugins, `pytest_plugins`), which the
warm process imports through pytest's own rewriting hook, so that the run it
forks neither warns nor loses rewriting. The file is the union of the runs
so far (pytest-mcp's runs of one project with one interpreter), written
whole to a temporary file and renamed, so a reader never sees half of it.
"""

import os
import sys
import sysconfig

_PATH = os.environ.get("PYTEST_MCP_IMPORTED")
# Beyond this many names the list stops growing: a warm process importing
# more gains nothing a run would not pay for itself.
_LIMIT = 20000


def _library_dirs():
    """The directories a module must be under to be preloaded: the standard
    library's and every site-packages directory."""
    dirs = set()
    for key in ("stdlib", "platstdlib", "purelib", "platlib"):
        path = sysconfig.get_paths().get(key)
        if path:
            dirs.add(os.path.realpath(path))
    try:
        import site

        for path in site.getsitepackages() + [site.getusersitepackages()]:
            dirs.add(os.path.realpath(path))
    except Exception:
        pass
    return tuple(d.rstrip(os.sep) + os.sep for d in dirs)


def _is_test_name(name):
    last = name.rsplit(".", 1)[-1]
    return last == "conftest" or last.startswith("test_") or last.endswith("_test")


def _preloadable(dirs):
    for name, module in list(sys.modules.items()):
        if name == "__main__" or name.startswith("pytest_mcp_") or _is_test_name(name):
            continue
        path = getattr(module, "__file__", None)
        if not isinstance(path, str):
            continue
        try:
            real = os.path.realpath(path)
        except (OSError, ValueError):
            continue
        if real.startswith(dirs):
            yield name


def _rewritten(config):
    """The names pytest marked for assertion rewriting in this run."""
    try:
        from _pytest.assertion.rewrite import assertstate_key

        hook = config.stash[assertstate_key].hook
        names = getattr(hook, "_must_rewrite", ())
        return sorted(n for n in names if not n.startswith("pytest_mcp_"))
    except Exception:
        return []


def _read(path):
    try:
        with open(path, encoding="utf-8", errors="surrogateescape") as f:
            return [line.rstrip("\n") for line in f if line[:2] in ("m ", "r ")]
    except OSError:
        return []


def pytest_unconfigure(config):
    if not _PATH or os.environ.get("PYTEST_XDIST_WORKER") is not None:
        return
    lines = _read(_PATH)
    seen = set(lines)
    fresh = [f"m {name}" for name in _preloadable(_library_dirs())]
    fresh += [f"r {name}" for name in _rewritten(config)]
    added = [line for line in fresh if line not in seen]
    if not added:
        return
    lines = (lines + added)[:_LIMIT]
    temporary = f"{_PATH}.{os.getpid()}"
    try:
        with open(temporary, "w", encoding="utf-8", errors="surrogateescape") as f:
            f.write("".join(line + "\n" for line in lines))
        os.replace(temporary, _PATH)
    except OSError:
        try:
            os.unlink(temporary)
        except OSError:
            pass
