#!/usr/bin/env python3
"""Runcrate's official Python SDK (runcrate-sdk, pinned in requirements.txt) against the
simulator, for what it covers. The SDK has no clusters resource, so its own transport (base URL,
bearer key, `environment` query, `Idempotency-Key`, the `{data, meta}` envelope and its error
parsing) is driven over the cluster routes our spec documents: the offers list, a create sent
twice with one key, a read, and the errors a caller meets (unknown cluster, wrong key, a
request the API refuses). Each answer must parse the way the SDK parses its own resources, and
each error must come out as the SDK's exception for its status with our envelope's code and
message (not the SDK's fallbacks). Usage: runcrate_sdk.py SIM_BINARY. Exits 1 naming the first
failure.
"""
import sys

import runcrate
from runcrate import _exceptions as errors
from runcrate._transport import new_idempotency_key

from simulator import start

KEY = "rc_live_sim0000000000000000"  # the simulator's fixed test credential, not a secret
CLUSTERS = "/api/v1/clusters"


def sdk(base, key=KEY, environment="production"):
    client = runcrate.Runcrate(
        api_key=key, base_url=f"{base}/runcrate", max_retries=0, environment=environment
    )
    return client._transport  # the SDK's own request path; it has no clusters resource


def refused(call, expected, code):
    """The SDK error `call` raises: of class `expected`, with our envelope's `code` and a
    message of ours (the SDK falls back to "api_error" and the raw text)."""
    try:
        call()
    except expected as error:
        if error.code != code or not error.message or error.message.startswith("{"):
            raise SystemExit(f"{expected.__name__}: code {error.code!r}, message {error.message!r}")
        return error
    except errors.ApiError as error:
        raise SystemExit(f"expected {expected.__name__}, got {error!r}")
    raise SystemExit(f"expected {expected.__name__}, the call succeeded")


def run(base):
    transport = sdk(base)
    done = []
    offers = transport.request("GET", f"{CLUSTERS}/offers")
    if not offers or not all(isinstance(o.get("id"), str) for o in offers):
        raise SystemExit(f"offers: {offers!r}")
    done.append(f"offers ({len(offers)})")
    offer = next(o for o in offers if "kubernetes" in o.get("stacks", []))
    body = {
        "name": "sdk-cluster",
        "offer_id": offer["id"],
        "node_count": offer["min_nodes"],
        "stack": "kubernetes",
    }
    key = new_idempotency_key()
    first = transport.request("POST", CLUSTERS, json=body, idempotency_key=key)
    again = transport.request("POST", CLUSTERS, json=body, idempotency_key=key)
    if first.get("id") is None or again.get("id") != first["id"]:
        raise SystemExit(f"one key, two creates: {first.get('id')!r} then {again.get('id')!r}")
    done.append("create (the same key twice: one cluster)")
    read = transport.request("GET", f"{CLUSTERS}/{first['id']}")
    if read.get("id") != first["id"] or read.get("name") != "sdk-cluster":
        raise SystemExit(f"read: {read!r}")
    done.append("read")

    missing = "3c90c3cc-0d44-4b50-8888-8dd25736052a"
    refused(lambda: transport.request("GET", f"{CLUSTERS}/{missing}"),
            errors.NotFoundError, "not_found")
    done.append("404 as NotFoundError")
    wrong_key = sdk(base, key="rc_live_wrong000000000000000")
    error = refused(lambda: wrong_key.request("GET", f"{CLUSTERS}/offers"),
                    errors.AuthenticationError, "unauthorized")
    if KEY in error.message or "rc_live_wrong" in error.message:
        raise SystemExit(f"the 401 echoes a key: {error.message!r}")
    done.append("401 as AuthenticationError")
    bad = {**body, "name": "sdk-bad", "node_count": offer["max_nodes"] + 1}
    refused(lambda: transport.request("POST", CLUSTERS, json=bad, idempotency_key=new_idempotency_key()),
            errors.UnprocessableEntityError, "validation_error")
    done.append("422 as UnprocessableEntityError")
    return done


def main(argv):
    if len(argv) != 2:
        raise SystemExit("usage: runcrate_sdk.py SIM_BINARY")
    sim, base = start(argv[1])
    try:
        done = run(base)
    finally:
        sim.terminate()
        sim.wait(timeout=10)
    print(f"ok   runcrate-sdk {runcrate.__version__ if hasattr(runcrate, '__version__') else ''}: "
          f"{', '.join(done)}")
    return 0


if __name__ == "__main__":
    sys.exit(main(sys.argv))
