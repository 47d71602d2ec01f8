"""An invoice pipeline whose failures happen a few calls deep: the
fitting's third step (tracebacks cut to the crash) has frames to cut."""


def parse_line(text):
    name, amount = text.split(":")
    return name.strip(), to_cents(amount)


def to_cents(amount):
    whole, _, cents = amount.strip().partition(".")
    return int(whole) * 100 + int(cents or 0)


def total(lines):
    return sum(parse_line(line)[1] for line in lines)


def render(lines):
    rows = [format_row(*parse_line(line)) for line in lines]
    return "\n".join(rows)


def format_row(name, cents):
    return f"{name:<10}{cents // 100}.{cents % 100:02d}"


def check(lines):
    problems = [f"line {n}: {line!r} has no amount" for n, line in enumerate(lines, 1) if ":" not in line]
    if problems:
        raise ValueError(f"invoice has {len(problems)} problems:\n" + "\n".join(problems))
