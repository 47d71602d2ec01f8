"""pytest-mcp's change coverage: which changed lines of an edit no test ran.

Run by pytest-mcp with the project's own interpreter and the project root as
the working directory, after the tests ran under coverage.py. Reads one JSON
object on stdin:

    {"data": "/abs/dir/coverage", "changed": {"shop/pricing.py": [33, 40]}}

`data` is the base name of the data files the run wrote (`data.<suffix>`,
one per process); or `"files": [path...]` names data files as a project
keeps them (`report --coverage .coverage.*`: shards' files, combined with
the project's path aliases). `changed` maps root-relative paths to the working tree's
changed line numbers. Writes one JSON object on stdout:

    {"files": [{"path", "changed", "covered",
                "uncovered": [{"start", "end", "function", "source"}]}],
     "changed_lines": N, "covered_lines": M,
     "measured": [{"path", "text", "counted", "ran"}]}

`measured` holds each judged file's lines (its text, every line that counts,
those that ran), which a later run compares its gaps with.

plus `"unreadable": [path...]` when a changed file could not be read or
parsed, or `{"error": "..."}` alone (exit 3: coverage.py missing, 2: bad
input, 1: anything else). Never a traceback: pytest-mcp shows stdout as is.
"""

import ast
import glob
import io
import json
import os
import sys
import tokenize

# Lines that carry no code: a changed comment or blank line is not a change
# any test could run, even inside a multi-line statement.
NOT_CODE = {
    tokenize.COMMENT, tokenize.NL, tokenize.NEWLINE, tokenize.INDENT,
    tokenize.DEDENT, tokenize.ENDMARKER,
}


# Lines of a range's source given, at most.
SOURCE_LINES = 12


def is_test(path):
    """Tests themselves are not code whose coverage matters."""
    parts = path.split("/")
    name = parts[-1]
    return (
        name.startswith("test_") or name.endswith("_test.py")
        or name == "conftest.py" or any(p in ("tests", "test") for p in parts[:-1])
    )


def code_lines(text):
    """Lines holding some code token; a multi-line string holds all its lines."""
    lines = set()
    for tok in tokenize.generate_tokens(io.StringIO(text).readline):
        if tok.type not in NOT_CODE:
            lines.update(range(tok.start[0], tok.end[0] + 1))
    return lines


def scopes(tree):
    """(first line, last line, qualified name) of every def and class."""
    found = []

    def walk(node, prefix):
        for child in ast.iter_child_nodes(node):
            if isinstance(child, (ast.FunctionDef, ast.AsyncFunctionDef, ast.ClassDef)):
                name = prefix + child.name
                # Decorators belong to the function they decorate.
                first = min([d.lineno for d in child.decorator_list] + [child.lineno])
                found.append((first, child.end_lineno, name))
                walk(child, name + ".")
            else:
                walk(child, prefix)

    walk(tree, "")
    return found


def scope_of(line, spans):
    """The innermost def or class holding `line`, None at module level."""
    best = None
    for span in spans:
        if span[0] <= line <= span[1] and (best is None or span[0] >= best[0]):
            best = span
    return best


def compact(uncovered, counts, spans):
    """Ranges of uncovered lines. Lines that do not count (blank, comment,
    excluded) do not break a range; a line that counts does, and so does a
    move to another function, unless into one nested in the range's own."""
    ranges = []
    for line in uncovered:
        scope = scope_of(line, spans)
        if ranges:
            last = ranges[-1]
            outer = last["scope"]
            nested = scope == outer or (
                outer is not None and scope is not None
                and outer[0] <= scope[0] and scope[1] <= outer[1]
            )
            if nested and not any(counts(n) for n in range(last["end"] + 1, line)):
                last["end"] = line
                continue
        ranges.append({"start": line, "end": line, "scope": scope})
    return [
        {"start": r["start"], "end": r["end"], "function": r["scope"] and r["scope"][2]}
        for r in ranges
    ]


def judge(cov, PythonParser, path, lines):
    """The file's entry (None when none of its changed lines count), and
    its state."""
    full = os.path.join(os.getcwd(), *path.split("/"))
    with tokenize.open(full) as source:  # honours the encoding cookie
        text = source.read()
    tree = ast.parse(text, full)
    # coverage.py's own parser maps any line of a multi-line statement to the
    # statement's first line, the one coverage records when it runs.
    parser = PythonParser(text=text, filename=full)
    parser.parse_source()
    # Statements (first lines, exclusions and docstrings left out) and those
    # not run, with the project's exclude_lines; a file never measured has
    # all its statements missing.
    _, statements, _, missing, _ = cov.analysis2(full)
    statements, missing, code = set(statements), set(missing), code_lines(text)

    def counts(n):
        return n in code and parser.first_line(n) in statements

    # Every line that counts and those that ran: what a later run compares
    # its gaps with (the history keeps it).
    counted = [n for n in range(1, len(text.splitlines()) + 1) if counts(n)]
    state = {
        "path": path, "text": text.splitlines(), "counted": counted,
        "ran": [n for n in counted if parser.first_line(n) not in missing],
    }
    changed = sorted({n for n in lines if counts(n)})
    if not changed:
        return None, state
    covered = [n for n in changed if parser.first_line(n) not in missing]
    uncovered = [n for n in changed if parser.first_line(n) in missing]
    ranges = compact(uncovered, counts, scopes(tree))
    # Each range's source, for a person's page (the HTML report), its first
    # lines only.
    source = text.splitlines()
    for r in ranges:
        r["source"] = source[r["start"] - 1:min(r["end"], r["start"] - 1 + SOURCE_LINES)]
    return {"path": path, "changed": changed, "covered": covered, "uncovered": ranges}, state


def run(request):
    import coverage
    from coverage.parser import PythonParser

    # The project's configuration, as coverage finds it from the root, for its
    # exclude_lines and path aliases. No data file: the combined data stays in
    # memory, so nothing is left behind and no earlier combination is mixed in.
    cov = coverage.Coverage(data_file=None, config_file=True)
    # Every process's data.<suffix>, named one by one: given nothing, combine
    # would look for the project's own .coverage.* instead.
    if "files" in request:
        parts = [os.path.abspath(p) for p in request["files"]]
    else:
        base = os.path.abspath(request["data"])
        parts = [p for p in sorted(glob.glob(glob.escape(base) + ".*"))
                 if not p.endswith("-journal")]
    if parts:
        cov.combine(parts, keep=True)
    files, unreadable, states = [], [], []
    for path in sorted(request["changed"]):
        full = os.path.join(os.getcwd(), *path.split("/"))
        if not path.endswith(".py") or is_test(path) or not os.path.isfile(full):
            continue
        try:
            entry, state = judge(cov, PythonParser, path, request["changed"][path])
        except (OSError, SyntaxError, ValueError, tokenize.TokenError,
                coverage.CoverageException):
            unreadable.append(path)
            continue
        if entry is not None:
            files.append(entry)
            states.append(state)
    result = {
        "files": files,
        "changed_lines": sum(len(f["changed"]) for f in files),
        "covered_lines": sum(len(f["covered"]) for f in files),
        "measured": states,
    }
    if unreadable:
        result["unreadable"] = unreadable
    return result


def main():
    def answer(obj, status=0):
        sys.stdout.write(json.dumps(obj) + "\n")
        return status

    try:
        import coverage  # noqa: F401
    except ImportError:
        exe = sys.executable
        return answer({"error": f"coverage.py is not installed for {exe}: "
                                f"{exe} -m pip install coverage"}, 3)
    try:
        request = json.load(sys.stdin)
        changed = request.get("changed")
        files = request.get("files")
        named = isinstance(files, list) and all(isinstance(f, str) for f in files)
        if not (isinstance(request.get("data"), str) or named) or not isinstance(changed, dict) or not all(
            isinstance(lines, list) and all(type(n) is int for n in lines)
            for lines in changed.values()
        ):
            raise ValueError('expected {"data": str or "files": [str], "changed": {path: [line...]}}')
    except (ValueError, AttributeError) as err:
        return answer({"error": f"bad request: {err}"}, 2)
    try:
        return answer(run(request))
    except Exception as err:  # said in one line, never a traceback
        return answer({"error": f"{type(err).__name__}: {err}"}, 1)


if __name__ == "__main__":
    sys.exit(main())
