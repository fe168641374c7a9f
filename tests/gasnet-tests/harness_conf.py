"""harness_conf.py -- read the reference test suite's harness.conf.

harness.conf describes each test run of the reference suite: blocks that
start with "TestName: <program>[_<variant>]-<mode>" followed by "Key: value"
lines.  A value may be conditional, "<condition> ; <value>": it applies only
when the condition (a feature expression) holds.  BEGIN_DEFAULT_CONFIG ...
END_DEFAULT_CONFIG blocks give the defaults of the entries after them.

Within an entry, AppArgs and AppEnv lines add up (the defaults' first, then
the entry's); any other key given by the entry replaces the default's.

Feature expressions: names (true when in the feature set), integers, the
variable _threads (the job's rank count), ! && || ( ), comparisons, and ','
meaning &&.
"""

import re
import shlex

ADDITIVE_KEYS = ("AppArgs", "AppEnv")
# Keys whose values may be "<condition> ; <value>".
CONDITIONAL_KEYS = ("AppArgs", "AppEnv", "MakeFlags", "RunCmd", "KnownFailure", "WarningFilter")


class Entry:
    """One TestName block: its name and its (inherited) key/value lines."""

    def __init__(self, name, lines):
        self.name = name
        self.lines = lines  # list of (key, value) in order, defaults first

    def values(self, key):
        return [v for k, v in self.lines if k == key]

    def last(self, key, default=None):
        vals = self.values(key)
        return vals[-1] if vals else default

    def conditional(self, key, features, threads):
        """The values of a conditional key whose conditions hold."""
        out = []
        for v in self.values(key):
            cond, val = split_condition(v)
            if cond is None or evaluate(cond, features, threads):
                out.append(val)
        return out

    def split_name(self):
        """(program, variant, mode) from "<program>[_<variant>]-<mode>", or
        None for names of another shape (harness-internal entries)."""
        m = re.fullmatch(r"(test[A-Za-z0-9]+)(?:_([A-Za-z0-9_]+))?-(seq|par|parsync)", self.name)
        if not m:
            return None
        return m.group(1), m.group(2) or "", m.group(3)


def strip_comment(line):
    # '#' starts a comment at the start of a line or after blank space.
    m = re.search(r"(^|\s)#", line)
    return line[: m.start()] if m else line


def split_condition(value):
    if ";" in value:
        cond, val = value.split(";", 1)
        return cond.strip(), val.strip()
    return None, value.strip()


def parse(path):
    """The entries of harness.conf, each with its defaults merged in."""
    entries = []
    defaults = []
    in_default = False
    current = None  # (name, own lines)

    def finish():
        if current is None:
            return
        name, own = current
        own_keys = {k for k, _ in own}
        merged = [(k, v) for k, v in defaults if k in ADDITIVE_KEYS or k not in own_keys]
        entries.append(Entry(name, merged + own))

    with open(path, encoding="utf-8", errors="replace") as f:
        for raw in f:
            line = strip_comment(raw.rstrip("\n")).strip()
            if not line:
                continue
            if line == "BEGIN_DEFAULT_CONFIG":
                finish()
                current = None
                in_default = True
                defaults = []
                continue
            if line == "END_DEFAULT_CONFIG":
                in_default = False
                continue
            m = re.fullmatch(r"([A-Za-z_]+):\s*(.*)", line)
            if not m:
                continue  # a bare word such as KnownFailureAnySpec
            key, value = m.group(1), m.group(2).strip()
            if in_default:
                defaults.append((key, value))
            elif key == "TestName":
                finish()
                current = (value, [])
            elif current is not None:
                current[1].append((key, value))
    finish()
    return entries


_TOKEN = re.compile(r"\s*(&&|\|\||<=|>=|==|!=|[!(),<>]|[A-Za-z_][A-Za-z0-9_]*|\d+(?:\.\d+)?)")


def evaluate(expr, features, threads=None):
    """Evaluate a feature expression; names not in `features` are false."""
    out = []
    pos = 0
    expr = expr.strip()
    while pos < len(expr):
        m = _TOKEN.match(expr, pos)
        if not m or m.end() == pos:
            raise ValueError("cannot parse feature expression %r" % expr)
        tok = m.group(1)
        pos = m.end()
        if tok == "&&" or tok == ",":
            out.append(" and ")
        elif tok == "||":
            out.append(" or ")
        elif tok == "!":
            out.append(" not ")
        elif tok in ("(", ")", "<", ">", "<=", ">=", "==", "!="):
            out.append(" %s " % tok)
        elif re.fullmatch(r"\d+(?:\.\d+)?", tok):
            out.append(tok)
        elif tok == "_threads":
            out.append(str(int(threads or 0)))
        else:
            out.append(" True " if tok in features else " False ")
    return bool(eval("".join(out), {"__builtins__": {}}, {}))


def time_limit(value, default_seconds):
    """Seconds of a TimeLimit value such as "2 * $DEFAULT$" (0: not run)."""
    text = value.replace("$DEFAULT$", str(default_seconds))
    if not re.fullmatch(r"[\d.\s*+/()-]+", text):
        raise ValueError("cannot parse TimeLimit %r" % value)
    return float(eval(text, {"__builtins__": {}}, {}))


def dynamic_threads(value):
    """(has_default, [explicit counts]) of a DynamicThreads value."""
    has_default = False
    counts = []
    for part in value.split(","):
        part = part.strip()
        if part == "$DEFAULT$":
            has_default = True
        elif part.isdigit():
            counts.append(int(part))
    return has_default, counts


def split_words(text):
    """Shell-like words of an AppArgs value (quotes group words)."""
    return shlex.split(text)


def split_env(text):
    """NAME=VALUE pairs of an AppEnv value (values may be quoted)."""
    pairs = []
    for word in shlex.split(text):
        if "=" not in word:
            raise ValueError("AppEnv word without '=': %r" % word)
        name, val = word.split("=", 1)
        pairs.append((name, val))
    return pairs
