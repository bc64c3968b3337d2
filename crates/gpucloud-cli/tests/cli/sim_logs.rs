//! `-vvv` logs of a whole create → wait → delete: on stderr only, and without any credential.

use std::time::Duration;

use gpucloud_sim::{Provider, credentials};

use crate::simulated::{TestSim, json};
use crate::support::Run;

/// Every credential the simulator takes, as is and URL-encoded.
fn forbidden() -> Vec<String> {
    [
        credentials::TOGETHER_API_KEY,
        credentials::RUNCRATE_API_KEY,
        credentials::E2E_API_KEY,
        credentials::E2E_AUTH_TOKEN,
    ]
    .iter()
    .flat_map(|secret| {
        [
            secret.to_string(),
            url::form_urlencoded::byte_serialize(secret.as_bytes()).collect(),
        ]
    })
    .collect()
}

#[track_caller]
fn no_secret_and_logs_on_stderr(run: &Run) {
    for secret in forbidden() {
        assert!(
            !run.stdout.contains(&secret) && !run.stderr.contains(&secret),
            "a credential in the output of `gpucloud {}`",
            run.args.join(" ")
        );
    }
    assert!(
        run.stderr
            .lines()
            .any(|l| l.contains(" DEBUG ") && l.contains("gpucloud")),
        "no debug log line on stderr of `gpucloud {}`:\n{}",
        run.args.join(" "),
        run.stderr
    );
    for line in run.stdout.lines() {
        for level in [" TRACE ", " DEBUG ", " INFO ", " WARN "] {
            assert!(!line.contains(level), "a log line on stdout: {line}");
        }
    }
}

#[test]
fn trace_logs_of_a_whole_lifecycle_hold_no_secret() {
    let sim = TestSim::start();
    let lifecycles: [(Provider, &[&str]); 2] = [
        (
            Provider::Together,
            &[
                "--name",
                "logged",
                "--gpus",
                "16",
                "--gpu-model",
                "H100_SXM",
                "--region",
                "us-central-8",
                "--nvidia-version-id",
                "cuda-12.8-driver-570",
            ],
        ),
        (
            Provider::E2e,
            &[
                "--name",
                "logged",
                "--nodes",
                "2",
                "--ssh-key",
                "101",
                "--image-version-id",
                "2",
                "--sku-id",
                "201",
                "--sku-item-price-id",
                "811",
                "--security-group-id",
                "1",
            ],
        ),
    ];
    for (provider, flags) in lifecycles {
        let created = sim.run(
            provider,
            &[&["-vvv", "--json", "clusters", "create"], flags].concat(),
        );
        created.expect_code(0);
        no_secret_and_logs_on_stderr(&created);
        let id = json(&created)["cluster"]["id"]
            .as_str()
            .map(str::to_string)
            .unwrap_or_else(|| panic!("{}", created.stdout));
        sim.advance(Duration::from_secs(3600));
        for args in [
            &["-vvv", "clusters", "wait", id.as_str(), "--interval", "1s"][..],
            &["-vvv", "clusters", "get", id.as_str()],
            &["-vvv", "clusters", "delete", id.as_str()],
        ] {
            let run = sim.run(provider, args);
            run.expect_code(0);
            no_secret_and_logs_on_stderr(&run);
        }
    }
}
