#!/usr/bin/env bash
# deploy/ (the reaper's systemd units, Kubernetes CronJob and GitHub Actions workflow), each
# file checked by a real validator of its format:
#   systemd units        systemd-analyze verify (Debian's systemd), as user units
#   Kubernetes CronJob   kubernetes-validate --strict, against Kubernetes 1.25 and 1.37
#   GitHub workflow      actionlint, with ShellCheck on its `run:` scripts
# The Python tools are pinned in .ci/requirements-deploy.txt, in a virtualenv under
# target/ci/deploy. Run from the repository root: `bash .ci/validate_deploy.sh [DIR]`, DIR laid
# out as deploy/ (the default), e.g. a broken copy to see a validator fail.
set -euo pipefail

deploy=${1:-deploy}
venv=target/ci/deploy
# The oldest and the newest Kubernetes whose schemas the pinned kubernetes-validate bundles.
kubernetes_versions=(1.25.0 1.37.0)

units=("$deploy"/systemd/*.service "$deploy"/systemd/*.timer)
manifests=("$deploy"/kubernetes/*.yaml)
workflows=("$deploy"/github/*.yml)
for file in "${units[@]}" "${manifests[@]}" "${workflows[@]}"; do
    [ -f "$file" ] || { printf 'validate_deploy: no file matches %s\n' "$file" >&2; exit 1; }
done

scratch=$(mktemp -d)
trap 'rm -rf "$scratch"' EXIT

# --- systemd units -------------------------------------------------------------------------
if ! command -v systemd-analyze >/dev/null; then
    as_root() {
        if [ "$(id -u)" -ne 0 ] && command -v sudo >/dev/null; then sudo "$@"; else "$@"; fi
    }
    # The package lists are only refreshed when the install fails without them (a fresh image
    # has none; a cached one needs no network round trip).
    if ! as_root env DEBIAN_FRONTEND=noninteractive \
            apt-get install -y --no-install-recommends systemd; then
        as_root apt-get update
        as_root env DEBIAN_FRONTEND=noninteractive \
            apt-get install -y --no-install-recommends systemd
    fi
fi
systemd-analyze --version | sed -n 1p
# Verified as user units (`systemctl --user`), which need no running systemd: a scratch HOME for
# %h, where the ExecStart= binary the units name (%h/.cargo/bin/gpucloud) is a stub, since
# verify fails on a command that is not executable; and a runtime directory, which the user
# manager needs. verify exits 0 on a unit with an unknown key or a value it cannot parse (it
# warns and ignores the line), so any output at all fails too: a good unit verifies silently.
mkdir -p "$scratch/home/.cargo/bin" "$scratch/runtime"
chmod 0700 "$scratch/runtime"
printf '#!/bin/sh\nexit 0\n' >"$scratch/home/.cargo/bin/gpucloud"
chmod +x "$scratch/home/.cargo/bin/gpucloud"
verify_status=0
verify_output=$(HOME="$scratch/home" XDG_RUNTIME_DIR="$scratch/runtime" \
    systemd-analyze --user verify "${units[@]}" 2>&1) || verify_status=$?
if [ "$verify_status" -ne 0 ] || [ -n "$verify_output" ]; then
    printf '%s\n' "$verify_output"
    printf 'validate_deploy: systemd-analyze verify rejected the units (exit %s, or warnings above)\n' \
        "$verify_status" >&2
    exit 1
fi
printf 'systemd-analyze verify: %s\n' "${units[*]}"

# --- the Python validators -----------------------------------------------------------------
[ -x "$venv/bin/python" ] || python3 -m venv "$venv"
"$venv/bin/pip" install --quiet --disable-pip-version-check --no-compile --only-binary=:all: \
    -r .ci/requirements-deploy.txt

# --- Kubernetes manifests ------------------------------------------------------------------
# --strict: a field the schema does not have fails, as the API server's strict field validation
# (kubectl's default) would refuse it. A kind or apiVersion with no schema in that Kubernetes (a
# typo, or one removed) is only a warning (it is how custom resources pass), so a warning fails
# too.
printf 'kubernetes-validate %s\n' "$("$venv/bin/kubernetes-validate" --version)"
for version in "${kubernetes_versions[@]}"; do
    validate_status=0
    validate_output=$("$venv/bin/kubernetes-validate" --strict --kubernetes-version "$version" \
        "${manifests[@]}" 2>&1) || validate_status=$?
    printf '%s\n' "$validate_output"
    if [ "$validate_status" -ne 0 ] || grep -q '^WARN' <<<"$validate_output"; then
        printf 'validate_deploy: kubernetes-validate rejected the manifests for Kubernetes %s\n' \
            "$version" >&2
        exit 1
    fi
done

# --- GitHub Actions workflows --------------------------------------------------------------
"$venv/bin/actionlint" -version | sed -n 1p
"$venv/bin/shellcheck" --version | sed -n 2p
"$venv/bin/actionlint" -shellcheck "$venv/bin/shellcheck" -pyflakes= "${workflows[@]}"
printf 'actionlint: %s\n' "${workflows[*]}"

printf 'validate_deploy: all deploy files passed their validators\n'
