"""pytest-mcp's warm process (docs/warm.md): one per project and interpreter,
started by `pytest-mcp serve`, ended with it. It imports pytest, the pytest
plugins and the modules the project's runs imported (the file
PYTEST_MCP_WARM_PRELOAD names, which `pytest_mcp_imported` keeps), then
forks a child for each run, which runs `python -m pytest ARGS` as a fresh
interpreter would: same arguments, environment, working directory and
standard streams (passed over the socket), in a process group of its own.

Protocol, over the Unix socket PYTEST_MCP_WARM_SOCKET (one connection a
run): the client sends an 8-byte little-endian length, then that many
bytes: the working directory, the number of arguments, the arguments and
`KEY=VALUE` environment entries, each ended by a NUL byte; the length comes
with three file descriptors (the child's stdin, stdout and stderr). The
answer is one line: `pid N SECONDS` (SECONDS: what the preload took,
which the run saved; then `exit STATUS` when it ends, STATUS the raw wait
status), or `stale WHY`, `busy`, `refused WHY`. On stdout, for the
server: one JSON line when ready (or why not), then nothing. On EOF of
stdin (the server gone) the process ends, killing a running child's group.

Never stale: before each fork every imported module's file, the
site-packages directories and their `.pth` files, the interpreter, pytest's
configuration files and the environment are compared with what they were
at the preload; any change answers `stale` and ends this process, and the
server starts a fresh one.
"""

import json
import os
import select
import signal
import socket
import struct
import sys
import threading
import time

_STDIN = 0
_CONFIG_FILES = ("pytest.ini", ".pytest.ini", "pyproject.toml", "tox.ini", "setup.cfg")
# Variables that are the run's own, given to each child, never compared.
_PER_RUN = ("PYTEST_MCP_",)
# A shell's own bookkeeping, which differs between any two shells and which
# no library reads at import: `run --warm` from a terminal is not refused
# for them.
_SHELL = (b"_", b"PWD", b"OLDPWD", b"SHLVL")


def _say(record):
    sys.stdout.write(json.dumps(record) + "\n")
    sys.stdout.flush()


def _fds():
    """This process's open descriptors and what each is."""
    kinds = {}
    for name in os.listdir("/proc/self/fd"):
        try:
            kinds[int(name)] = os.readlink(f"/proc/self/fd/{name}")
        except (OSError, ValueError):
            pass
    return kinds


def _unsafe_fd(target):
    """Why a descriptor a preload left open makes forking unsafe, or None: a
    socket or an event loop's poller is shared with every child, an open
    file may be an SQLite database, /dev/nvidia* is CUDA."""
    if target.startswith("socket:"):
        return "opened a socket"
    if target.startswith("anon_inode:") and ("eventpoll" in target or "eventfd" in target):
        return "started an event loop"
    if target.startswith("/dev/nvidia"):
        return "initialised CUDA"
    if target.startswith("/") and not target.startswith(("/dev/", "/proc/")):
        return f"kept a file open ({target})"
    return None


class Preload:
    """Imports ahead of the runs, watching each import for a thread or a
    descriptor that would make a fork unsafe."""

    def __init__(self, before):
        self.before_fds = before
        self.threads = threading.active_count()
        self.failed = 0
        self.hook = None
        self.warned = []
        self.warned_imports = set()

    def check(self):
        if threading.active_count() > self.threads:
            return "started a thread"
        for fd, target in _fds().items():
            if fd not in self.before_fds:
                why = _unsafe_fd(target)
                if why:
                    return why
        return None

    def one(self, name):
        import importlib
        import warnings

        known = set(sys.modules)
        with warnings.catch_warnings(record=True) as said:
            warnings.simplefilter("always")
            try:
                importlib.import_module(name)
            except BaseException:
                self.failed += 1
        imported = set(sys.modules) - known
        why = self.check()
        if why:
            _say({"unsafe": name, "why": why, "imported": sorted(imported)})
            os._exit(3)
        if said:
            # A cold run would show this warning in pytest's summary
            # (pytest catches warnings while it collects): imported ahead,
            # it would be lost. Left for the run to import.
            self.warned.append(name)
            self.warned_imports |= imported

    def leave_out_warned(self):
        """Modules whose import warned: this process cannot forget them,
        so it says which and ends, and the server starts one without
        them."""
        if self.warned:
            names = ", ".join(self.warned[:3]) + (" and more" if len(self.warned) > 3 else "")
            imported = sorted(self.warned_imports | set(self.warned))
            _say({"unsafe": names, "why": "warned at import", "imported": imported})
            os._exit(3)

    def rewriting_hook(self, marked):
        """pytest's own assertion-rewriting import hook, so that the
        plugins (and what pytest marks) are imported rewritten: pytest then
        neither warns that they were imported before it nor loses their
        rewriting in the child."""
        try:
            from _pytest.assertion import AssertionState
            from _pytest.assertion.rewrite import AssertionRewritingHook, assertstate_key
            from _pytest.config import get_config

            config = get_config()
            config.stash[assertstate_key] = AssertionState(config, "rewrite")
            hook = AssertionRewritingHook(config)
            if not os.environ.get("PYTEST_DISABLE_PLUGIN_AUTOLOAD"):
                try:
                    config._mark_plugins_for_rewrite(hook, False)
                except TypeError:  # pytest before 8.4
                    config._mark_plugins_for_rewrite(hook)
            if marked:
                hook.mark_rewrite(*marked)
            sys.meta_path.insert(0, hook)
            self.hook = hook
        except Exception:
            self.hook = None

    def plugins(self):
        """The plugins pytest would load from entry points."""
        if os.environ.get("PYTEST_DISABLE_PLUGIN_AUTOLOAD"):
            return []
        try:
            import importlib.metadata as metadata

            points = metadata.entry_points(group="pytest11")
        except Exception:
            return []
        return [point.value.split(":")[0] for point in points]

    def done(self):
        if self.hook is not None and self.hook in sys.meta_path:
            sys.meta_path.remove(self.hook)


def _read_list(path):
    modules, marked = [], []
    try:
        with open(path, encoding="utf-8", errors="surrogateescape") as f:
            for line in f:
                kind, _, name = line.rstrip("\n").partition(" ")
                if not name:
                    continue
                (modules if kind == "m" else marked if kind == "r" else []).append(name)
    except OSError:
        pass
    return modules, marked


def _stamp(path):
    try:
        s = os.stat(path)
        return (s.st_mtime_ns, s.st_size, s.st_ino)
    except OSError:
        return None


class Freshness:
    """What the preload depended on, to tell before each fork whether any of
    it changed."""

    def __init__(self, root):
        import site

        self.modules = {}
        for module in list(sys.modules.values()):
            path = getattr(module, "__file__", None)
            if isinstance(path, str):
                self.modules[path] = _stamp(path)
        sites = set(site.getsitepackages() + [site.getusersitepackages()])
        self.dirs = {d: _stamp(d) for d in sites}
        self.pth = {}
        for d in sites:
            try:
                names = os.listdir(d)
            except OSError:
                continue
            for name in names:
                if name.endswith(".pth"):
                    path = os.path.join(d, name)
                    self.pth[path] = _stamp(path)
        interpreter = os.path.realpath(sys.executable)
        self.interpreter = {p: _stamp(p) for p in (interpreter, os.path.join(sys.prefix, "pyvenv.cfg"))}
        self.config = {}
        here = os.path.realpath(root)
        while True:
            for name in _CONFIG_FILES:
                path = os.path.join(here, name)
                self.config[path] = _stamp(path)
            parent = os.path.dirname(here)
            if parent == here:
                break
            here = parent
        self.env = _comparable(_STARTED_WITH)

    def changed(self, env):
        """What changed since the preload, or None."""
        for what, stamps in (
            ("the interpreter", self.interpreter),
            ("pytest's configuration", self.config),
            ("site-packages", self.dirs),
            ("a .pth file", self.pth),
            ("an imported module", self.modules),
        ):
            for path, stamp in stamps.items():
                if _stamp(path) != stamp:
                    return f"{what} changed ({path})"
        given = _comparable(env)
        if given != self.env:
            keys = sorted(k for k in set(given) | set(self.env) if given.get(k) != self.env.get(k))
            return "the environment changed (" + ", ".join(k.decode(errors="replace") for k in keys[:5]) + ")"
        return None


def _initial_environment():
    """The environment this process was started with, before Python's own
    changes (PEP 538's locale coercion sets LC_CTYPE): /proc's copy of it,
    else os.environ."""
    try:
        with open("/proc/self/environ", "rb") as f:
            entries = f.read().split(b"\0")
    except OSError:
        return dict(os.environb)
    env = {}
    for entry in entries:
        key, sep, value = entry.partition(b"=")
        if sep:
            env[key] = value
    return env


_STARTED_WITH = _initial_environment()
# What Python added to its environment as it started (LC_CTYPE when it
# coerced the C locale): a fresh interpreter given the same environment
# adds the same, so each child gets it too.
_PYTHON_ADDED = {k: v for k, v in os.environb.items() if k not in _STARTED_WITH}


def _comparable(env):
    """The environment without the run's own variables, and PYTHONPATH
    without its first entry (each run's private directory; the warm
    process's own)."""
    out = {}
    for key, value in env.items():
        key = key if isinstance(key, bytes) else os.fsencode(key)
        value = value if isinstance(value, bytes) else os.fsencode(value)
        if key.startswith(tuple(p.encode() for p in _PER_RUN)) or key in _SHELL:
            continue
        if key == b"PYTHONPATH":
            value = value.partition(b":")[2]
        out[key] = value
    return out


def _recv_request(conn):
    header, fds, _, _ = socket.recv_fds(conn, 8, 3)
    if len(header) < 8 or len(fds) != 3:
        for fd in fds:
            os.close(fd)
        return None
    (length,) = struct.unpack("<Q", header[:8])
    payload = b""
    while len(payload) < length:
        chunk = conn.recv(min(1 << 20, length - len(payload)))
        if not chunk:
            break
        payload += chunk
    parts = payload.split(b"\0")
    try:
        count = int(parts[1])
    except (IndexError, ValueError):
        return None
    cwd, argv = parts[0], parts[2 : 2 + count]
    env = {}
    for entry in parts[2 + count : -1]:
        key, sep, value = entry.partition(b"=")
        if sep:
            env[key] = value
    return cwd, argv, env, fds


class Warm:
    def __init__(self, listener, sys_path_tail, seconds):
        self.listener = listener
        self.tail = sys_path_tail
        self.seconds = seconds

    def serve(self, fresh):
        while True:
            ready, _, _ = select.select([self.listener, _STDIN], [], [])
            if _STDIN in ready and not os.read(_STDIN, 4096):
                return
            if self.listener in ready:
                conn, _ = self.listener.accept()
                with conn:
                    if self.one(conn, fresh) == "stale":
                        return

    def one(self, conn, fresh):
        request = _recv_request(conn)
        if request is None:
            conn.sendall(b"refused a malformed request\n")
            return None
        cwd, argv, env, fds = request
        if argv[:2] != [b"-m", b"pytest"]:
            for fd in fds:
                os.close(fd)
            conn.sendall(b"refused not a pytest run\n")
            return None
        why = fresh.changed(env)
        if why:
            for fd in fds:
                os.close(fd)
            conn.sendall(f"stale {why}\n".encode())
            return "stale"
        sys.stdout.flush()
        sys.stderr.flush()
        pid = os.fork()
        if pid == 0:
            self.child(conn, cwd, argv, env, fds)
        for fd in fds:
            os.close(fd)
        conn.sendall(f"pid {pid} {self.seconds:.6f}\n".encode())
        self.wait(conn, pid)
        return None

    def wait(self, conn, pid):
        """Until the child ends: its status to the client; the client gone,
        or the server, its group killed."""
        try:
            watch = os.pidfd_open(pid)
        except (AttributeError, OSError):
            watch = None
        try:
            while True:
                waiting = [conn, self.listener, _STDIN] + ([watch] if watch is not None else [])
                ready, _, _ = select.select(waiting, [], [], None if watch is not None else 0.05)
                done, status = os.waitpid(pid, os.WNOHANG)
                if done:
                    conn.sendall(f"exit {status}\n".encode())
                    return
                if self.listener in ready:
                    other, _ = self.listener.accept()
                    with other:
                        other.sendall(b"busy\n")
                gone = (conn in ready and not conn.recv(1, socket.MSG_PEEK)) or (
                    _STDIN in ready and not os.read(_STDIN, 4096)
                )
                if gone:
                    try:
                        os.killpg(pid, signal.SIGKILL)
                    except OSError:
                        pass
                    os.waitpid(pid, 0)
                    if _STDIN in ready:
                        os._exit(0)
                    return
        finally:
            if watch is not None:
                os.close(watch)

    def child(self, conn, cwd, argv, env, fds):
        code = 1
        try:
            os.setpgid(0, 0)
            for fd, target in zip(fds, (0, 1, 2)):
                os.dup2(fd, target)
                os.close(fd)
            conn.close()
            self.listener.close()
            os.chdir(cwd)
            os.environb.clear()
            os.environb.update(env)
            for key, value in _PYTHON_ADDED.items():
                os.environb.setdefault(key, value)
            code = _run_pytest(cwd, argv, self.tail)
        except BaseException:
            import traceback

            traceback.print_exc()
        os._exit(code)


def _run_pytest(cwd, argv, tail):
    """`python -m pytest ARGS` in this process, as a fresh interpreter."""
    import importlib
    import random
    import runpy

    given = os.environ.get("PYTHONPATH", "")
    sys.path[:] = [os.fsdecode(cwd)] + [p for p in given.split(os.pathsep) if p] + tail
    sys.dont_write_bytecode = bool(os.environ.get("PYTHONDONTWRITEBYTECODE"))
    importlib.invalidate_caches()
    random.seed()
    numpy = sys.modules.get("numpy")
    if numpy is not None:
        try:
            numpy.random.seed()
        except Exception:
            pass
    sys.argv = ["-m"] + [os.fsdecode(a) for a in argv[2:]]
    sys.orig_argv = [sys.orig_argv[0]] + [os.fsdecode(a) for a in argv]
    try:
        runpy.run_module("pytest", run_name="__main__", alter_sys=True)
        code = 0
    except SystemExit as e:
        code = _exit_code(e.code)
    _finish()
    return code


def _exit_code(value):
    if value is None:
        return 0
    if isinstance(value, int):
        return value & 0xFF
    print(value, file=sys.stderr)
    return 1


def _finish():
    """What an interpreter does at exit: wait for threads, run atexit
    handlers, flush."""
    import atexit

    try:
        threading._shutdown()
    except Exception:
        pass
    atexit._run_exitfuncs()
    for stream in (sys.stdout, sys.stderr):
        try:
            stream.flush()
        except Exception:
            pass


def main():
    started = time.perf_counter()
    root = os.environ.get("PYTEST_MCP_WARM_ROOT") or os.getcwd()
    given = os.environ.get("PYTHONPATH", "")
    # sys.path as `-m` made it: the working directory, PYTHONPATH, then the
    # interpreter's own; a run's child keeps the last part.
    tail = sys.path[1 + len([p for p in given.split(os.pathsep) if p]) :]
    modules, marked = _read_list(os.environ.get("PYTEST_MCP_WARM_PRELOAD", ""))
    preload = Preload(set(_fds()))
    preload.rewriting_hook(marked)
    preload.one("pytest")
    skip = set(filter(None, os.environ.get("PYTEST_MCP_WARM_SKIP", "").split(",")))
    for name in preload.plugins() + modules:
        if name not in sys.modules and name not in skip and name.split(".")[0] not in skip:
            preload.one(name)
    preload.done()
    preload.leave_out_warned()
    path = os.environ["PYTEST_MCP_WARM_SOCKET"]
    try:
        os.unlink(path)
    except OSError:
        pass
    listener = socket.socket(socket.AF_UNIX, socket.SOCK_STREAM)
    listener.bind(path)
    listener.listen(8)
    mine = os.stat(path).st_ino
    fresh = Freshness(root)
    # Everything imported so far is moved out of the collector's reach: a
    # child's collections then neither walk nor touch it, so its pages stay
    # shared with this process instead of being copied on the first write.
    import gc

    gc.collect()
    gc.freeze()
    seconds = time.perf_counter() - started
    _say({"ready": True, "modules": len(sys.modules), "failed": preload.failed, "seconds": seconds})
    try:
        Warm(listener, tail, seconds).serve(fresh)
    finally:
        # Only our own: a fresh warm process may have bound the path since.
        try:
            if os.stat(path).st_ino == mine:
                os.unlink(path)
        except OSError:
            pass


if __name__ == "__main__":
    main()
