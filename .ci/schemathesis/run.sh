#!/usr/bin/env bash
# Schemathesis against the simulator, one run per spec (config: .ci/schemathesis/schemathesis.toml).
# Usage: bash .ci/schemathesis/run.sh [SCHEMATHESIS_EXECUTABLE]; run from anywhere.
# Builds and starts `gpucloud-sim` on a free port, runs the three specs, stops it, and fails if
# any run found a failure. Reports go to <target dir>/schemathesis/<spec>/, the target directory
# being the one cargo uses (`CARGO_TARGET_DIR` or the build configuration honoured).
set -euo pipefail
cd "$(dirname "$0")/../.."
st=${1:-schemathesis}

target_dir=$(cargo metadata --format-version 1 --no-deps --locked |
    python3 -c 'import json, sys; print(json.load(sys.stdin)["target_directory"])')
# GPUCLOUD_SIM_BIN: a simulator binary already built (CI passes the test build's); otherwise
# it is built here.
sim_bin=${GPUCLOUD_SIM_BIN:-}
if [ -z "$sim_bin" ]; then
    cargo build -p gpucloud-sim --bin gpucloud-sim --locked --quiet
    sim_bin=$target_dir/debug/gpucloud-sim
fi
log=$(mktemp)
# A fast clock: clusters finish provisioning while the run still uses them.
"$sim_bin" --port 0 --time-scale 600 >"$log" 2>&1 &
sim=$!
trap 'kill "$sim" 2>/dev/null || true; rm -f "$log"' EXIT
for _ in $(seq 100); do
    grep -q 'listening on' "$log" && break
    sleep 0.1
done
GPUCLOUD_SIM=$(sed -n 's/^gpucloud-sim listening on \(http:[^ ]*\) .*/\1/p' "$log")
[ -n "$GPUCLOUD_SIM" ] || { cat "$log"; echo "schemathesis: the simulator did not start" >&2; exit 1; }
export GPUCLOUD_SIM

# The three specs run at once (each mostly waits on the simulator's answers); their
# summaries are printed in order afterwards, and a run that found a failure prints its whole
# output.
pids=()
for spec in together runcrate e2e; do
    out=$target_dir/schemathesis/$spec
    mkdir -p "$out"
    "$st" --config-file .ci/schemathesis/schemathesis.toml run "specs/$spec.yaml" \
        --report junit --report-dir "$out" >"$out/output.txt" 2>&1 &
    pids+=("$!")
done
status=0
for i in 0 1 2; do
    spec=$(printf 'together\nruncrate\ne2e\n' | sed -n "$((i + 1))p")
    out=$target_dir/schemathesis/$spec
    run_status=0
    wait "${pids[$i]}" || run_status=$?
    printf -- '-- schemathesis: specs/%s.yaml against %s\n' "$spec" "$GPUCLOUD_SIM"
    # The summary: operations, phases, failures, test cases.
    sed -n '/= SUMMARY =/,$p' "$out/output.txt"
    if [ "$run_status" -ne 0 ]; then
        cat "$out/output.txt"
        status=$run_status
    fi
done
exit "$status"
