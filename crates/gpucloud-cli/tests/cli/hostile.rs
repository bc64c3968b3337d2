//! A provider that answers with escape sequences and echoes credentials: what reaches the
//! terminal is escaped, and no credential is ever printed, in any form, on any stream.

use serde_json::{Value, json};

use crate::fake::{FakeProvider, Reply, Request, fixture};
use crate::support::{Run, gpucloud};

/// Sets the title, clears the screen, forges a table row (with a newline, and with a Unicode
/// line separator), and shows a name as another with the bidirectional controls (an override
/// that displays `exe.txt` as `txt.exe`, an isolate, a mark).
pub const EVIL: &str =
    "evil\u{1b}]0;pwned\u{7}\u{1b}[2J\nFORGED row\u{2028}FORGED too\u{202e}exe.txt\u{2066}\u{200f}";
/// [`EVIL`] as the terminal must show it.
const EVIL_SHOWN: &str =
    r"evil\x1b]0;pwned\x07\x1b[2J\nFORGED row\u{2028}FORGED too\u{202e}exe.txt\u{2066}\u{200f}";

/// Whether `c` reorders or breaks what a terminal shows: the bidirectional controls and the
/// Unicode line and paragraph separators.
fn reorders_or_breaks(c: char) -> bool {
    matches!(
        c,
        '\u{061c}'
            | '\u{200e}'
            | '\u{200f}'
            | '\u{2028}'
            | '\u{2029}'
            | '\u{202a}'..='\u{202e}'
            | '\u{2066}'..='\u{2069}'
    )
}

/// Together's documented cluster, with hostile text in every field a table shows.
fn together_cluster() -> Value {
    let mut cluster = fixture("together/create_cluster.response.200.json");
    cluster["cluster_id"] = "c-1".into();
    cluster["cluster_name"] = EVIL.into();
    cluster["status"] = "Ready".into();
    cluster["phase_transitions"] = json!([{ "phase": "CLUSTER_PHASE_\u{1b}[31mRED" }]);
    let node = &mut cluster["gpu_worker_nodes"][0];
    node["node_id"] = "n\u{1b}[2J1".into();
    node["host_name"] = "host\nFORGED node".into();
    node["status"] = "\u{9b}31mred".into();
    node["public_ipv4"] = "203.0.113.7".into();
    cluster
}

fn together_error(message: &str) -> Value {
    json!({ "error": { "message": message, "type": "invalid_request_error" } })
}

#[track_caller]
fn assert_terminal_safe(run: &Run) {
    for (stream, text) in [("stdout", &run.stdout), ("stderr", &run.stderr)] {
        assert!(
            !text
                .chars()
                .any(|c| (c.is_control() && c != '\n') || reorders_or_breaks(c)),
            "a control character on {stream} of `gpucloud {}`: {text:?}",
            run.args.join(" ")
        );
        assert!(
            !text.lines().any(|l| l.starts_with("FORGED")),
            "a forged line on {stream}: {text}"
        );
    }
}

#[test]
fn server_text_is_escaped_in_tables_progress_and_errors() {
    let server = FakeProvider::start(|request: &Request| match request.path() {
        "/v1/compute/clusters/c-1" => Reply::json(200, &together_cluster()),
        "/v1/compute/clusters" if request.method == "GET" => {
            Reply::json(200, &json!({ "clusters": [together_cluster()] }))
        }
        "/v1/compute/clusters" => Reply::json(200, &together_cluster()),
        _ => Reply::json(404, &together_error(&format!("no cluster here: {EVIL}"))),
    });
    let url = server.url("/v1");
    let env = crate::support::fake_credentials();
    let run = |args: &[&str]| {
        let target = ["-p", "together", "--base-url", url.as_str()];
        gpucloud(&[args, &target[..]].concat(), &env)
    };

    let get = run(&["clusters", "get", "c-1"]);
    get.expect_code(0);
    assert_terminal_safe(&get);
    assert!(
        get.stdout
            .lines()
            .any(|l| l.starts_with("Name:") && l.ends_with(EVIL_SHOWN)),
        "{}",
        get.stdout
    );
    for shown in [
        r"CLUSTER_PHASE_\x1b[31mRED",
        r"n\x1b[2J1",
        r"host\nFORGED node",
        r"\u{9b}31mred",
    ] {
        assert!(get.stdout.contains(shown), "{shown} not in\n{}", get.stdout);
    }

    let list = run(&["clusters", "list"]);
    list.expect_code(0);
    assert_terminal_safe(&list);
    assert_eq!(list.stdout.lines().count(), 2, "{}", list.stdout);
    assert!(list.stdout.contains(EVIL_SHOWN), "{}", list.stdout);

    let wait = run(&[
        "clusters",
        "wait",
        "c-1",
        "--interval",
        "1s",
        "--timeout",
        "5s",
    ]);
    wait.expect_code(0);
    assert_terminal_safe(&wait);
    assert!(
        wait.stderr.contains(r"CLUSTER_PHASE_\x1b[31mRED"),
        "{}",
        wait.stderr
    );

    let created = run(&["clusters", "create", "-f", "tests/fixtures/together.toml"]);
    created.expect_code(0);
    assert_terminal_safe(&created);
    assert!(
        created
            .stdout
            .starts_with(&format!("Created together cluster c-1 ({EVIL_SHOWN}).")),
        "{}",
        created.stdout
    );

    for args in [
        &["clusters", "get", "c-2"][..],
        &["-vvv", "clusters", "get", "c-2"],
    ] {
        let error = run(args);
        error.expect_code(4);
        assert_terminal_safe(&error);
        let last = error.stderr.lines().last().unwrap_or_default();
        assert!(last.starts_with("error: not found: "), "{}", error.stderr);
        assert!(
            last.ends_with(&format!("no cluster here: {EVIL_SHOWN}")),
            "{last}"
        );
    }

    // JSON stays exact: the name as the server sent it, escaped by JSON's own rules.
    let json = run(&["--json", "clusters", "get", "c-1"]);
    json.expect_code(0);
    let cluster: Value =
        serde_json::from_str(&json.stdout).unwrap_or_else(|e| panic!("{e}: {}", json.stdout));
    assert_eq!(cluster["name"], EVIL);
    assert_terminal_safe(&json);
}

/// Credentials with characters that URL encoding changes, so that the encoded form differs.
pub const CREDENTIALS: [(&str, &str); 4] = [
    ("TOGETHER_API_KEY", "tg+secret/41f7="),
    ("RUNCRATE_API_KEY", "rc_live_se+cret/8c2d="),
    ("E2E_API_KEY", "e2e+api/key=5a90"),
    ("E2E_AUTH_TOKEN", "e2e+tok/en=77b3"),
];

/// Every form a credential must never be printed in.
pub fn forms(secret: &str) -> Vec<String> {
    let upper: String = secret
        .bytes()
        .map(|b| match b {
            b'A'..=b'Z' | b'a'..=b'z' | b'0'..=b'9' | b'-' | b'.' | b'_' | b'~' => {
                char::from(b).to_string()
            }
            _ => format!("%{b:02X}"),
        })
        .collect();
    let form: String = url::form_urlencoded::byte_serialize(secret.as_bytes()).collect();
    vec![secret.into(), upper.to_ascii_lowercase(), upper, form]
}

/// What the server echoes: the request line and the credentials it carried.
pub fn echo(request: &Request) -> String {
    format!(
        "rejected {} {} with header Authorization: {}",
        request.method,
        request.target,
        request.header("authorization")
    )
}

/// Each provider's cluster (named by `name`) and error envelope.
fn answer(provider: &str, request: &Request) -> Reply {
    let id = request
        .path()
        .trim_end_matches('/')
        .rsplit('/')
        .next()
        .unwrap_or_default();
    let status = match &id[id.len().saturating_sub(3)..] {
        "101" => 200,
        "103" => 500,
        _ => 400,
    };
    let message = echo(request);
    let body = match (provider, status) {
        ("together", 200) => {
            let mut cluster = together_cluster();
            cluster["cluster_id"] = id.into();
            cluster["cluster_name"] = message.into();
            cluster
        }
        ("runcrate", 200) => {
            let mut cluster = fixture("runcrate/create_cluster.response.201.json");
            cluster["data"]["id"] = id.into();
            cluster["data"]["name"] = message.into();
            cluster
        }
        ("e2e", 200) => {
            let mut cluster = fixture("e2e/create_cluster.response.201.json");
            cluster["code"] = 200.into();
            cluster["data"]["name"] = message.into();
            cluster
        }
        ("together", _) => together_error(&message),
        ("runcrate", _) => json!({ "error": { "code": "bad_request", "message": message } }),
        _ => json!({ "code": status, "data": {}, "errors": {}, "message": message }),
    };
    Reply::json(status, &body)
}

#[test]
fn echoed_credentials_are_redacted_on_every_stream() {
    let mut env: Vec<(&str, String)> = CREDENTIALS
        .iter()
        .map(|(k, v)| (*k, v.to_string()))
        .collect();
    env.push(("E2E_PROJECT_ID", "4242".into()));
    env.push(("E2E_LOCATION", "Delhi".into()));
    for (provider, base) in [
        ("together", "/v1"),
        ("runcrate", "/api/v1"),
        ("e2e", "/myaccount/api/v1/gpu"),
    ] {
        let server = FakeProvider::start(move |request| answer(provider, request));
        let url = server.url(base);
        let target = ["-p", provider, "--base-url", url.as_str()];
        // Runcrate ids are UUIDs, E2E's integers; the answer depends on the last digits.
        let id = |n: &str| match provider {
            "runcrate" => format!("00000000-0000-4000-8000-000000000{n}"),
            _ => n.to_string(),
        };
        let (ok, bad, failing) = (id("101"), id("102"), id("103"));
        let runs: [(&[&str], i32); 6] = [
            (&["clusters", "get", &ok], 0),
            (&["--json", "clusters", "get", &ok], 0),
            (&["clusters", "get", &bad], 4),
            (&["--json", "clusters", "get", &bad], 4),
            (&["-vvv", "clusters", "get", &failing], 4),
            (&["-vvv", "--json", "clusters", "get", &ok], 0),
        ];
        for (args, code) in runs {
            let run = gpucloud(&[args, &target[..]].concat(), &env);
            // Exit codes vary by provider (E2E's 400 is a validation error); what matters is
            // that the server's text was printed, scrubbed.
            assert!(
                run.code == code || run.code == 3,
                "{provider}: {}",
                run.transcript()
            );
            let all = format!("{}{}", run.stdout, run.stderr);
            for (name, secret) in CREDENTIALS {
                for form in forms(secret) {
                    assert!(
                        !all.contains(&form),
                        "{provider}: {name} printed as {form:?} by `gpucloud {}`:\n{all}",
                        run.args.join(" ")
                    );
                }
            }
            assert!(all.contains("REDACTED"), "{provider}: {}", run.transcript());
        }
        // The server did see the credentials, so its echoes held them.
        let bearer = match provider {
            "together" => CREDENTIALS[0].1,
            "runcrate" => CREDENTIALS[1].1,
            _ => CREDENTIALS[3].1,
        };
        for request in server.requests() {
            assert_eq!(request.header("authorization"), format!("Bearer {bearer}"));
            if provider == "e2e" {
                assert!(
                    request.target.contains("apikey=e2e%2Bapi%2Fkey%3D5a90"),
                    "{request:?}"
                );
            }
        }
    }
}
