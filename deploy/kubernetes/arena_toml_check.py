"""Checks that deploy/kubernetes/arena.toml is server/arena.default.toml with only the
changes Kubernetes needs: the same keys (the server refuses an unknown one, and a key added
to the default must not be silently missing here) and the same values, but for the keys
listed in ALLOWED.

    python3 arena_toml_check.py server/arena.default.toml deploy/kubernetes/arena.toml

Exit 0 when it holds, 1 with every difference named on stderr, 2 when a file cannot be read.
"""

import sys

try:
    import tomllib
except ModuleNotFoundError:  # Python < 3.11
    import tomli as tomllib

# Keys the Kubernetes copy sets on purpose (its comments say why): `listen` and
# `sandbox.unsafe_sandbox` changed, `games.concurrency` set where the default leaves it out.
ALLOWED = {"listen", "games.concurrency", "sandbox.unsafe_sandbox"}


def flatten(table, prefix=""):
    """{dotted key: value} of every key of the TOML tables (arrays of tables kept whole)."""
    out = {}
    for key, value in table.items():
        path = f"{prefix}{key}"
        if isinstance(value, dict):
            out.update(flatten(value, path + "."))
        else:
            out[path] = value
    return out


def load(path):
    with open(path, "rb") as f:
        return flatten(tomllib.load(f))


def main():
    if len(sys.argv) != 3:
        print(__doc__, file=sys.stderr)
        return 2
    default_path, copy_path = sys.argv[1:]
    try:
        default, copy = load(default_path), load(copy_path)
    except (OSError, tomllib.TOMLDecodeError) as e:
        print(f"arena_toml_check: {e}", file=sys.stderr)
        return 2
    problems = []
    for key in sorted(set(default) | set(copy)):
        if key in ALLOWED:
            continue
        if key not in copy:
            problems.append(f"{key} is in {default_path} but not in {copy_path}")
        elif key not in default:
            problems.append(f"{key} is in {copy_path} but not in {default_path}")
        elif default[key] != copy[key]:
            problems.append(f"{key}: {copy[key]!r} in {copy_path}, {default[key]!r} in {default_path}")
    for problem in problems:
        print(f"arena_toml_check: {problem}", file=sys.stderr)
    if problems:
        print(f"arena_toml_check: bring {copy_path} in line with {default_path} (only "
              f"{', '.join(sorted(ALLOWED))} may differ)", file=sys.stderr)
        return 1
    print(f"arena_toml_check: {copy_path} is {default_path} but for {', '.join(sorted(ALLOWED))}")
    return 0


if __name__ == "__main__":
    sys.exit(main())
