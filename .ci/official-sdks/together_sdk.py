#!/usr/bin/env python3
"""Together's official Python SDK (pinned in requirements.txt) against the simulator: every
clusters, storage and remediations method the SDK has is called once; each call must succeed
and its raw JSON must validate against the SDK's own pydantic model (`model_validate`, so a
required field we leave out or a type we get wrong fails here, where the SDK's lenient
`construct` would not). Then the SDK's create request and gpucloud's for the same cluster
(`gpucloud plan --json`, which prints the exact request a create sends) are compared field by
field: method, path, every body field and every header that says something about the API
(not the transport's or the SDK's telemetry), with the intended differences listed below.
Usage: together_sdk.py SIM_BINARY GPUCLOUD_BINARY. Exits 1 naming the first failure.
"""
import json
import os
import subprocess
import sys
from urllib.parse import urlsplit

from together import DefaultHttpxClient, Together

from simulator import start

# Intended differences between the simulator's answers and the SDK's strict models:
# - a node not yet addressed has `host_name` and `public_ipv4` null (our spec keeps them
#   nullable: Together's service omits unset fields); the SDK 3.1.1 types `host_name` as a
#   required string. Once the cluster is Ready every node has both, and that answer is checked.
KNOWN_DIFFERENCES = ("host_name null before a node is addressed",)

KEY = "sim-together-key-0000"  # the simulator's fixed test credential, not a secret

# Intended differences between the SDK's create request and gpucloud's, by header or field:
INTENDED_REQUEST_DIFFERENCES = {
    # progenitor sends the spec's `info.version` (Together's document: 2.0.0) on every request;
    # Together's docs name no such header, and the SDK sends none.
    "header api-version": "gpucloud only: the generator's API-version header",
}
# Headers about the connection or the SDK itself, not the API: not compared.
TRANSPORT_HEADERS = {"host", "accept-encoding", "connection", "content-length", "user-agent"}


def sdk_requests(seen):
    """An httpx client that appends every request it sends to `seen`."""

    def record(request):
        request.read()
        seen.append(request)

    return DefaultHttpxClient(event_hooks={"request": [record]})


def compared_headers(headers):
    """The headers that say something about the API, lower-cased; the credential's value is
    replaced by its scheme (gpucloud's plan redacts it)."""
    kept = {}
    for name, value in headers:
        name = name.lower()
        if name in TRANSPORT_HEADERS or name.startswith("x-stainless-"):
            continue
        if name == "authorization":
            value = value.split(" ", 1)[0] + " <credential>"
        kept[name] = value
    return kept


def compare_create(sdk_request, base, gpucloud, region, driver):
    """The SDK's create request against the one `gpucloud plan` shows for the same cluster."""
    planned = subprocess.run(
        [gpucloud, "plan", "--provider", "together", "--base-url", f"{base}/together/v1",
         "--no-ledger", "--json", "--name", "sdk-cluster", "--gpus", "16",
         "--gpu-model", "H100_SXM", "--region", region, "--stack", "kubernetes",
         "--nvidia-version-id", driver],
        env={**os.environ, "TOGETHER_API_KEY": KEY},
        capture_output=True, text=True, timeout=60, check=False,
    )
    if planned.returncode != 0:
        raise SystemExit(f"gpucloud plan failed ({planned.returncode}): {planned.stderr}")
    plan = json.loads(planned.stdout)
    ours = {
        "method": plan["method"],
        "path": urlsplit(plan["url"]).path,
        "headers": compared_headers(plan["headers"]),
        "body": plan["body"],
    }
    theirs = {
        "method": sdk_request.method,
        "path": sdk_request.url.path,
        "headers": compared_headers(sdk_request.headers.items()),
        "body": json.loads(sdk_request.content),
    }
    same, intended, differences = [], [], []
    for part in ("method", "path"):
        if ours[part] == theirs[part]:
            same.append(part)
        else:
            differences.append(f"{part}: SDK {theirs[part]!r}, gpucloud {ours[part]!r}")
    for part in ("headers", "body"):
        label = "header" if part == "headers" else "field"
        for name in sorted(set(ours[part]) | set(theirs[part])):
            key = f"{label} {name}"
            mine, sdk = ours[part].get(name, "<absent>"), theirs[part].get(name, "<absent>")
            if mine == sdk:
                same.append(key)
            elif key in INTENDED_REQUEST_DIFFERENCES:
                intended.append(f"{key} ({INTENDED_REQUEST_DIFFERENCES[key]})")
            else:
                differences.append(f"{key}: SDK {sdk!r}, gpucloud {mine!r}")
    unused = set(INTENDED_REQUEST_DIFFERENCES) - {i.split(" (")[0] for i in intended}
    if differences or unused:
        raise SystemExit(
            "create requests differ: " + "; ".join(differences)
            + (f"; listed as intended but now the same: {sorted(unused)}" if unused else ""))
    print(f"ok   create request: {len(same)} parts the same ({', '.join(same)}); "
          f"intended: {'; '.join(intended) or 'none'}")


def checked(name, raw, done):
    """The parsed model of `raw` (a with_raw_response call), validated strictly from the JSON."""
    model = raw.parse()
    type(model).model_validate(raw.http_response.json())
    done.append(name)
    return model


def run(base, gpucloud):
    seen = []
    client = Together(
        api_key=KEY, base_url=f"{base}/together", max_retries=0, http_client=sdk_requests(seen)
    )
    raw_clusters = client.clusters.with_raw_response
    raw_storage = client.clusters.storage.with_raw_response
    raw_remediations = client.clusters.remediations.with_raw_response
    done = []
    regions = checked("clusters.list_regions", raw_clusters.list_regions(), done)
    region = regions.regions[0]
    volume = checked(
        "storage.create",
        raw_storage.create(region=region.name, size_tib=1, volume_name="sdk-volume"),
        done,
    )
    checked("storage.retrieve", raw_storage.retrieve(volume.volume_id), done)
    checked("storage.update", raw_storage.update(volume_id=volume.volume_id, size_tib=2), done)
    checked("storage.list", raw_storage.list(), done)
    cluster = checked(
        "clusters.create",
        raw_clusters.create(
            cluster_name="sdk-cluster",
            region=region.name,
            gpu_type="H100_SXM",
            num_gpus=16,
            billing_type="ON_DEMAND",
            cluster_type="KUBERNETES",
            nvidia_version_id=region.driver_versions[0].id,
        ),
        done,
    )
    creates = [r for r in seen if r.method == "POST" and r.url.path.endswith("/compute/clusters")]
    if len(creates) != 1:
        raise SystemExit(f"expected the SDK to send one create, saw {len(creates)}")
    compare_create(creates[0], base, gpucloud, region.name, region.driver_versions[0].id)
    # At 3600x, a few real seconds are hours: the cluster is Ready with worker nodes.
    import time

    # Polled leniently, as the SDK itself parses: a node not yet addressed comes with
    # `host_name: null`, which the SDK's model types as a required string (see KNOWN_DIFFERENCES).
    for _ in range(50):
        current = raw_clusters.retrieve(cluster.cluster_id).parse()
        if current.status == "Ready" and current.gpu_worker_nodes:
            break
        time.sleep(0.2)
    else:
        raise SystemExit(f"cluster never Ready: {current.status}")
    checked("clusters.retrieve", raw_clusters.retrieve(cluster.cluster_id), done)
    checked("clusters.update", raw_clusters.update(cluster.cluster_id, num_gpus=16), done)
    checked("clusters.list", raw_clusters.list(), done)
    instance = current.gpu_worker_nodes[0].instance_id
    remediation = checked(
        "remediations.create",
        raw_remediations.create(
            instance, cluster_id=cluster.cluster_id, mode="REMEDIATION_MODE_REBOOT_VM"
        ),
        done,
    )
    checked(
        "remediations.retrieve",
        raw_remediations.retrieve(remediation.id, cluster_id=cluster.cluster_id, instance_id=instance),
        done,
    )
    listed = checked(
        "remediations.list",
        raw_remediations.list("-", cluster_id=cluster.cluster_id, state=["PENDING", "RUNNING"]),
        done,
    )
    assert [r.id for r in listed.remediations] == [remediation.id], listed
    # approve and reject need remediations Together's automation raised (a simulator fault).
    import httpx

    httpx.post(
        f"{base}/_sim/faults",
        json={"provider": "together", "kind": "automated_remediation", "times": 2},
    ).raise_for_status()
    automated = [
        raw_remediations.create(
            instance, cluster_id=cluster.cluster_id, mode="REMEDIATION_MODE_HOST_AWARE"
        ).parse()
        for _ in range(2)
    ]
    approved = checked(
        "remediations.approve",
        raw_remediations.approve(
            automated[0].id, cluster_id=cluster.cluster_id, instance_id=instance, comment="go"
        ),
        done,
    )
    assert approved.state == "PENDING", approved
    rejected = checked(
        "remediations.reject",
        raw_remediations.reject(
            automated[1].id, cluster_id=cluster.cluster_id, instance_id=instance, comment="no"
        ),
        done,
    )
    assert rejected.state == "CANCELLED", rejected
    cancelled = checked(
        "remediations.cancel",
        raw_remediations.cancel(remediation.id, cluster_id=cluster.cluster_id, instance_id=instance),
        done,
    )
    assert cancelled.state == "CANCELLED", cancelled
    checked("clusters.delete", raw_clusters.delete(cluster.cluster_id), done)
    # The volume was never attached, so it can go at once.
    checked("storage.delete", raw_storage.delete(volume.volume_id), done)
    return sorted(set(done))


def main(argv):
    if len(argv) != 3:
        raise SystemExit("usage: together_sdk.py SIM_BINARY GPUCLOUD_BINARY")
    sim, base = start(argv[1])
    try:
        done = run(base, argv[2])
    finally:
        sim.terminate()
        sim.wait(timeout=10)
    print(f"ok   together {__import__('together').__version__}: {len(done)} methods: {', '.join(done)}")
    return 0


if __name__ == "__main__":
    sys.exit(main(sys.argv))
