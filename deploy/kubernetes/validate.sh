#!/usr/bin/env bash
# Validates deploy/kubernetes/ offline: every manifest (*.yaml but kustomization.yaml) and
# what `kubectl kustomize` makes of kustomization.yaml, strictly, against the Kubernetes JSON
# schemas bundled in the PyPI package kubernetes-validate (pinned in requirements.txt), for
# each version of BAO_K8S_VERSIONS (default 1.30,1.37); and that arena.toml is the server's
# default but for the keys Kubernetes needs (arena_toml_check.py).
#
#   bash deploy/kubernetes/validate.sh
#
# First it makes sure the check can fail: three broken manifests written to a temporary
# folder (a wrong type, an unknown field, an unknown apiVersion) must each be rejected.
# The virtual environment is made once in BAO_K8S_VALIDATE_VENV (default: a folder named
# after requirements.txt's hash under ${XDG_CACHE_HOME:-~/.cache}/bao-referee/); making it
# needs PyPI, validating needs no network. Without kubectl the kustomize step is skipped
# with a message, or fails when BAO_REQUIRE_ALL=1. Exit 0 when everything is valid, 1
# otherwise, each failure named on stderr.
set -euo pipefail

here=$(cd "$(dirname "${BASH_SOURCE[0]}")" && pwd)
root=$(cd "$here/../.." && pwd)
versions=${BAO_K8S_VERSIONS:-1.30,1.37}
requirements=$here/requirements.txt
key=$(sha256sum "$requirements" | cut -c1-12)
venv=${BAO_K8S_VALIDATE_VENV:-${XDG_CACHE_HOME:-$HOME/.cache}/bao-referee/kubernetes-validate-$key}
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT

fail() { echo "validate.sh: FAILED: $*" >&2; exit 1; }

# ---- the validator, in a virtual environment of its own -------------------------------------
if [[ ! -x $venv/bin/python ]]; then
    echo "validate.sh: making the virtual environment $venv (pip install -r requirements.txt)"
    mkdir -p "$(dirname "$venv")"
    partial=$venv.partial.$$
    rm -rf "$partial"
    python3 -m venv "$partial" || fail "python3 -m venv $partial (Debian: apt-get install python3-venv)"
    "$partial/bin/pip" install --quiet --disable-pip-version-check -r "$requirements" \
        || { rm -rf "$partial"; fail "pip install -r $requirements into $partial"; }
    mv "$partial" "$venv"
fi
python=$venv/bin/python
validate() { "$python" "$here/validate_manifests.py" --versions "$versions" "$@"; }

# ---- the check must be able to fail ---------------------------------------------------------
deployment() { # a valid Deployment's text, with $1 in place of `replicas: 1`
    cat <<YAML
apiVersion: apps/v1
kind: Deployment
metadata:
  name: broken
spec:
  $1
  selector:
    matchLabels: {app: broken}
  template:
    metadata:
      labels: {app: broken}
    spec:
      containers:
        - name: c
          image: example.invalid/c
YAML
}
deployment 'replicas: 1' > "$tmp/control.yaml"
deployment 'replicas: "three"' > "$tmp/wrong-type.yaml"
deployment 'replica: 1' > "$tmp/unknown-field.yaml"
deployment 'replicas: 1' | sed 's#^apiVersion: apps/v1#apiVersion: apps/v2#' > "$tmp/unknown-api.yaml"
validate "$tmp/control.yaml" > /dev/null \
    || fail "the control manifest (a valid Deployment) was rejected: the validator does not work"
for broken in wrong-type unknown-field unknown-api; do
    set +e
    validate "$tmp/$broken.yaml" > /dev/null 2> "$tmp/$broken.err"
    status=$?
    set -e
    [[ $status -eq 1 ]] || {
        cat "$tmp/$broken.err" >&2
        fail "the broken manifest $broken.yaml gave exit $status, not 1: the check cannot be trusted"
    }
    echo "validate.sh: rejected as it must be: $(grep -m1 INVALID "$tmp/$broken.err" | sed "s#$tmp/##")"
done

# ---- the manifests --------------------------------------------------------------------------
shopt -s nullglob
manifests=()
for f in "$here"/*.yaml; do
    [[ $(basename "$f") == kustomization.yaml ]] || manifests+=("$f")
done
(( ${#manifests[@]} > 0 )) || fail "no manifest found in $here"
status=0
validate "${manifests[@]}" || status=1

# ---- kustomization.yaml, rendered -----------------------------------------------------------
if command -v kubectl > /dev/null; then
    if kubectl kustomize "$here" > "$tmp/kustomized.yaml" 2> "$tmp/kustomize.err"; then
        validate "$tmp/kustomized.yaml" || status=1
    else
        cat "$tmp/kustomize.err" >&2
        echo "validate.sh: kubectl kustomize $here failed" >&2
        status=1
    fi
elif [[ ${BAO_REQUIRE_ALL:-} == 1 ]]; then
    fail "kubectl is not installed, so kustomization.yaml cannot be rendered (BAO_REQUIRE_ALL=1)"
else
    echo "validate.sh: SKIPPED the kustomize step: kubectl is not installed, so kustomization.yaml is not rendered (its manifests were validated one by one above)" >&2
fi

# ---- arena.toml -----------------------------------------------------------------------------
"$python" "$here/arena_toml_check.py" "$root/server/arena.default.toml" "$here/arena.toml" || status=1

if (( status != 0 )); then
    fail "some manifest or arena.toml is invalid (above)"
fi
echo "validate.sh: every manifest of deploy/kubernetes is valid (Kubernetes $versions)"
