"""Validates Kubernetes manifests offline against the JSON schemas bundled in the PyPI package
kubernetes-validate, strictly (an unknown field is an error), for each Kubernetes version given.

    python3 validate_manifests.py --versions 1.30,1.37 FILE...

Every document of every file is checked. Unlike the package's own command line, a document
whose kind and apiVersion have no schema (a typo such as `apps/v2`) is an error, not a
warning, and so is a document without `kind` or `apiVersion`. Exit 0 when every document of
every file is valid for every version, 1 otherwise (each failure named on stderr), 2 on bad
arguments or a file that cannot be read or parsed.
"""

import argparse
import sys

import kubernetes_validate
from kubernetes_validate import utils as kv_utils
import yaml


def documents(path):
    """The non-empty YAML documents of a file."""
    with open(path, encoding="utf-8") as f:
        return [d for d in yaml.safe_load_all(f) if d is not None]


def name_of(doc):
    """kind/name of a resource, for messages."""
    kind = doc.get("kind", "?")
    name = (doc.get("metadata") or {}).get("name", "?")
    return f"{kind}/{name}"


def check(doc, version):
    """None when `doc` is valid for `version`, else why not."""
    if not isinstance(doc, dict):
        return "not a mapping"
    missing = [key for key in ("apiVersion", "kind") if not doc.get(key)]
    if missing:
        return "no " + " and no ".join(missing)
    try:
        kubernetes_validate.validate(doc, version, strict=True)
    except kubernetes_validate.ValidationError as e:
        where = ".".join(str(p) for p in e.path) or "(top)"
        return f"{where}: {e.message}"
    except kubernetes_validate.SchemaNotFoundError:
        return f"no schema for kind {doc['kind']} in apiVersion {doc['apiVersion']}"
    return None


def main():
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--versions", required=True, help="comma-separated, e.g. 1.30,1.37")
    parser.add_argument("files", nargs="+")
    args = parser.parse_args()
    versions = [v.strip() for v in args.versions.split(",") if v.strip()]
    known = {kv_utils.major_minor(v) for v in kv_utils.all_versions()}
    unknown = [v for v in versions if kv_utils.major_minor(v) not in known]
    if not versions or unknown:
        print(f"validate_manifests: no schemas for Kubernetes {unknown or versions}; "
              f"this kubernetes-validate has {sorted(known)}", file=sys.stderr)
        return 2
    failures = 0
    checked = 0
    for path in args.files:
        try:
            docs = documents(path)
        except (OSError, yaml.YAMLError) as e:
            print(f"validate_manifests: {path}: cannot read it as YAML: {e}", file=sys.stderr)
            return 2
        if not docs:
            print(f"INVALID {path}: no Kubernetes object in it", file=sys.stderr)
            failures += 1
        for doc in docs:
            for version in versions:
                checked += 1
                why = check(doc, version)
                if why is None:
                    print(f"ok      {path}: {name_of(doc)} (Kubernetes {version})")
                else:
                    failures += 1
                    print(f"INVALID {path}: {name_of(doc)} (Kubernetes {version}): {why}",
                          file=sys.stderr)
    if failures:
        print(f"validate_manifests: {failures} of {checked} checks failed", file=sys.stderr)
        return 1
    print(f"validate_manifests: {checked} checks passed")
    return 0


if __name__ == "__main__":
    sys.exit(main())
