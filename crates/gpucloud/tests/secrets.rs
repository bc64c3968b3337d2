//! No credential ever shows: not in an error's `Display`, `Debug` or source chain, whatever the
//! failure, not in the `Debug` of a config or client, not in a plan, not in a log line.

#![allow(clippy::unwrap_used, clippy::expect_used)]

mod support;

use std::time::Duration;

use gpucloud::{
    ClusterClient, ClusterId, ClusterSize, ClusterSpec, E2eOptions, Error, RuncrateOptions,
    TogetherOptions,
};
use serde_json::json;
use support::*;
use wiremock::Mock;
use wiremock::matchers::{method, path};

const SECRETS: [&str; 4] = [TOGETHER_KEY, RUNCRATE_KEY, E2E_API_KEY, E2E_TOKEN];
const RUNCRATE_ID: &str = "3c90c3cc-0d44-4b50-8888-8dd25736052a";

/// Every rendering of `error` a program or a log could show: Display, Debug, alternate Debug
/// and the whole source chain.
fn renderings(error: &Error) -> String {
    let mut text = format!("{error}\n{error:?}\n{error:#?}\n");
    let mut source = std::error::Error::source(error);
    while let Some(inner) = source {
        text.push_str(&format!("{inner}\n{inner:?}\n"));
        source = inner.source();
    }
    text
}

fn assert_no_secret(what: &str, text: &str) {
    for secret in SECRETS {
        assert!(!text.contains(secret), "{what} shows a secret:\n{text}");
    }
    // Not even a fragment of the keys' distinctive part.
    assert!(
        !text.contains("SECRET"),
        "{what} shows part of a secret:\n{text}"
    );
}

fn together_spec() -> ClusterSpec {
    ClusterSpec::new("train-42", ClusterSize::Gpus(16))
        .with_gpu_model("H100_SXM")
        .with_region("us-central-8")
        .with_options(TogetherOptions {
            nvidia_version_id: Some("cuda-12.8-driver-570".into()),
            ..Default::default()
        })
}

fn runcrate_spec() -> ClusterSpec {
    ClusterSpec::new("train", ClusterSize::Nodes(2)).with_options(RuncrateOptions {
        offer_id: "offer-1".into(),
        ..Default::default()
    })
}

fn e2e_spec() -> ClusterSpec {
    ClusterSpec::new("train-e2e", ClusterSize::Nodes(2))
        .with_ssh_keys(["1001"])
        .with_options(E2eOptions {
            image_version_id: 2,
            sku_id: 139,
            sku_item_price_id: 645,
            security_group_id: 1001,
            lifecycle_script: None,
            sfs_mounts: Vec::new(),
        })
}

/// Provokes one error of every kind from `client` reading `id` at `at`, answering with each
/// template in turn (a fresh mock per case), and returns them.
async fn provoke(
    api: &Api,
    verb: &str,
    at: &str,
    client: &ClusterClient,
    id: &str,
) -> Vec<(String, Error)> {
    let cases = [
        (
            "400",
            json_response(
                400,
                &json!({"code": 400, "message": "Bad Request", "error": {"code": "bad", "message": "bad"}}),
            ),
        ),
        (
            "401",
            json_response(
                401,
                &json!({"detail": "Invalid token.", "error": {"code": "unauthorized", "message": "no"}}),
            ),
        ),
        (
            "404",
            json_response(
                404,
                &json!({"code": 404, "message": "Not Found", "error": {"code": "not_found", "message": "no"}}),
            ),
        ),
        (
            "429",
            json_response(
                429,
                &json!({"error": {"code": "rate_limited", "message": "slow"}}),
            )
            .insert_header("Retry-After", "1"),
        ),
        (
            "503",
            json_response(
                503,
                &json!({"code": 503, "message": "Unavailable", "error": {"code": "x", "message": "down"}}),
            ),
        ),
        ("html", raw_response(502, HTML_502, "text/html")),
        ("text-200", raw_response(200, "OK", "text/plain")),
    ];
    let mut errors = Vec::new();
    for (name, template) in cases {
        api.reset().await;
        Mock::given(method(verb))
            .and(path(at))
            .respond_with(template)
            .mount(&api.server)
            .await;
        let error = client.get(&ClusterId::new(id)).await.expect_err(name);
        errors.push((name.to_string(), error));
    }
    errors
}

#[tokio::test]
async fn together_errors_show_no_key() {
    let api = Api::start().await;
    let client = api.together();
    let mut errors = provoke(&api, "GET", "/compute/clusters/c-1", &client, "c-1").await;
    api.reset().await;
    let mut cluster = together_cluster("c-1", "n", "Ready", &[]);
    cluster["num_gpus"] = json!("sixteen");
    Mock::given(method("GET"))
        .and(path("/compute/clusters/c-1"))
        .respond_with(json_response(200, &cluster))
        .mount(&api.server)
        .await;
    errors.push((
        "decode".into(),
        client.get(&ClusterId::new("c-1")).await.unwrap_err(),
    ));
    let dead = ClusterClient::together(api.together_config().with_base_url(DEAD_URL)).unwrap();
    errors.push((
        "transport".into(),
        dead.get(&ClusterId::new("c-1")).await.unwrap_err(),
    ));
    errors.push((
        "create transport".into(),
        dead.create(&together_spec()).await.unwrap_err(),
    ));

    assert!(errors.iter().any(|(_, e)| matches!(e, Error::Decode(_))));
    assert!(
        errors
            .iter()
            .any(|(_, e)| matches!(e, Error::Transport { .. }))
    );
    assert!(
        errors
            .iter()
            .any(|(_, e)| matches!(e, Error::Authentication(_)))
    );
    for (name, error) in &errors {
        assert_no_secret(&format!("together {name}"), &renderings(error));
    }
}

#[tokio::test]
async fn runcrate_errors_show_no_key() {
    let api = Api::start().await;
    let client = api.runcrate();
    let at = format!("/clusters/{RUNCRATE_ID}");
    let mut errors = provoke(&api, "GET", &at, &client, RUNCRATE_ID).await;
    api.reset().await;
    let mut body = runcrate_cluster(RUNCRATE_ID, "train");
    body["data"]["node_count"] = json!("two");
    Mock::given(method("GET"))
        .and(path(at.as_str()))
        .respond_with(json_response(200, &body))
        .mount(&api.server)
        .await;
    errors.push((
        "decode".into(),
        client.get(&ClusterId::new(RUNCRATE_ID)).await.unwrap_err(),
    ));
    Mock::given(method("POST"))
        .and(path("/clusters"))
        .respond_with(json_response(
            402,
            &json!({"error": {"code": "BUDGET_REACHED", "message": "budget"}}),
        ))
        .mount(&api.server)
        .await;
    errors.push((
        "create 402".into(),
        client.create(&runcrate_spec()).await.unwrap_err(),
    ));
    let dead = ClusterClient::runcrate(api.runcrate_config().with_base_url(DEAD_URL)).unwrap();
    errors.push((
        "transport".into(),
        dead.get(&ClusterId::new(RUNCRATE_ID)).await.unwrap_err(),
    ));
    errors.push((
        "create transport".into(),
        dead.create(&runcrate_spec()).await.unwrap_err(),
    ));

    assert!(errors.iter().any(|(_, e)| matches!(e, Error::Decode(_))));
    assert!(
        errors
            .iter()
            .any(|(_, e)| matches!(e, Error::InsufficientFunds(_)))
    );
    assert!(
        errors
            .iter()
            .any(|(_, e)| matches!(e, Error::Transport { .. }))
    );
    for (name, error) in &errors {
        assert_no_secret(&format!("runcrate {name}"), &renderings(error));
    }
}

#[tokio::test]
async fn e2e_errors_show_neither_apikey_nor_token() {
    let api = Api::start().await;
    let client = api.e2e();
    let mut errors = provoke(
        &api,
        "GET",
        "/distributed_jobs_v2/cluster/101/",
        &client,
        "101",
    )
    .await;
    // The requests did carry the apikey in their URL: the test is not vacuous.
    assert!(
        api.all()
            .await
            .iter()
            .all(|r| query(r).get("apikey").map(String::as_str) == Some(E2E_API_KEY))
    );
    api.reset().await;
    let mut cluster = e2e_cluster(101, "n", "Running");
    cluster["no_of_nodes"] = json!("two");
    Mock::given(method("GET"))
        .and(path("/distributed_jobs_v2/cluster/101/"))
        .respond_with(json_response(200, &e2e_envelope(200, cluster)))
        .mount(&api.server)
        .await;
    errors.push((
        "decode".into(),
        client.get(&ClusterId::new("101")).await.unwrap_err(),
    ));
    Mock::given(method("GET"))
        .and(path("/distributed_jobs_v2/cluster/102/"))
        .respond_with(json_response(
            200,
            &json!({"code": 400, "message": "Bad Request", "errors": {"x": ["y"]}}),
        ))
        .mount(&api.server)
        .await;
    errors.push((
        "200 with code 400".into(),
        client.get(&ClusterId::new("102")).await.unwrap_err(),
    ));
    Mock::given(method("GET"))
        .and(path("/distributed_jobs_v2/cluster/103/"))
        .respond_with(
            json_response(200, &e2e_envelope(200, e2e_cluster(103, "n", "Running")))
                .set_delay(Duration::from_secs(3)),
        )
        .mount(&api.server)
        .await;
    let slow =
        ClusterClient::e2e(api.e2e_config().with_timeout(Duration::from_millis(200))).unwrap();
    errors.push((
        "timeout".into(),
        slow.get(&ClusterId::new("103")).await.unwrap_err(),
    ));
    let dead = ClusterClient::e2e(api.e2e_config().with_base_url(DEAD_URL)).unwrap();
    errors.push((
        "transport".into(),
        dead.get(&ClusterId::new("101")).await.unwrap_err(),
    ));
    errors.push(("list transport".into(), dead.list().await.unwrap_err()));
    errors.push((
        "create transport".into(),
        dead.create(&e2e_spec()).await.unwrap_err(),
    ));
    errors.push((
        "delete transport".into(),
        dead.delete(&ClusterId::new("101")).await.unwrap_err(),
    ));

    assert!(errors.iter().any(|(_, e)| matches!(e, Error::Decode(_))));
    assert!(
        errors
            .iter()
            .filter(|(_, e)| matches!(e, Error::Transport { .. }))
            .count()
            >= 5
    );
    assert!(
        errors
            .iter()
            .any(|(_, e)| matches!(e, Error::Api(a) if a.status == 502))
    );
    for (name, error) in &errors {
        assert_no_secret(&format!("e2e {name}"), &renderings(error));
    }
}

#[tokio::test]
async fn configs_clients_and_plans_show_no_secret() {
    let api = Api::start().await;
    let configs = [
        format!("{:?}", api.together_config()),
        format!("{:#?}", api.runcrate_config()),
        format!("{:?}", api.e2e_config()),
        format!(
            "{:?}",
            api.e2e_config()
                .with_credentials(E2E_API_KEY, E2E_TOKEN)
                .with_active_iam(7)
        ),
    ];
    for text in &configs {
        assert_no_secret("config Debug", text);
        assert!(text.contains("REDACTED"), "{text}");
    }
    let clients = [
        (api.together(), together_spec()),
        (api.runcrate(), runcrate_spec()),
        (api.e2e(), e2e_spec()),
    ];
    for (client, spec) in &clients {
        assert_no_secret("client Debug", &format!("{client:?} {client:#?}"));
        let plan = client.plan(spec).await.unwrap();
        assert_no_secret(
            "plan",
            &format!(
                "{plan}\n{plan:?}\n{}",
                serde_json::to_string(&plan).unwrap()
            ),
        );
    }
    assert!(api.all().await.is_empty());
}

#[tokio::test]
async fn e2e_log_lines_show_neither_apikey_nor_token() {
    // A process-wide subscriber: a thread-scoped one races with the other tests of this binary
    // over tracing's per-callsite interest cache. It sees every test's lines, which only makes
    // the "no secret anywhere" assertions stronger.
    static GLOBAL: std::sync::OnceLock<Capture> = std::sync::OnceLock::new();
    let capture = GLOBAL
        .get_or_init(|| {
            let capture = Capture::default();
            tracing::subscriber::set_global_default(capture.clone()).unwrap();
            capture
        })
        .clone();
    let api = Api::start().await;
    let client = api.e2e();
    Mock::given(method("GET"))
        .and(path("/distributed_jobs_v2/cluster/101/"))
        .respond_with(raw_response(502, HTML_502, "text/html"))
        .mount(&api.server)
        .await;
    Mock::given(method("GET"))
        .and(path("/distributed_jobs_v2/cluster/"))
        .respond_with(json_response(
            200,
            &json!({"code": 200, "data": [], "errors": {}, "message": "Success"}),
        ))
        .mount(&api.server)
        .await;
    Mock::given(method("POST"))
        .and(path("/distributed_jobs_v2/cluster/"))
        .respond_with(json_response(
            503,
            &json!({"code": 503, "message": "Service Unavailable"}),
        ))
        .mount(&api.server)
        .await;
    Mock::given(method("DELETE"))
        .and(path("/distributed_jobs_v2/cluster/101/"))
        .respond_with(json_response(401, &json!({"detail": "Invalid token."})))
        .mount(&api.server)
        .await;

    let get = client.get(&ClusterId::new("101")).await.unwrap_err();
    let create = client.create(&e2e_spec()).await.unwrap_err();
    let delete = client.delete(&ClusterId::new("101")).await.unwrap_err();
    let dead = ClusterClient::e2e(api.e2e_config().with_base_url(DEAD_URL)).unwrap();
    let transport = dead.get(&ClusterId::new("101")).await.unwrap_err();

    assert_eq!(get.status(), Some(502));
    assert_eq!(create.status(), Some(503));
    assert!(matches!(delete, Error::Authentication(_)), "{delete:?}");
    assert!(
        matches!(transport, Error::Transport { .. }),
        "{transport:?}"
    );
    let lines = capture.lines();
    // The capture saw the request spans, the retry and create-failure events and the transport
    // errors, so an absent secret means a redacted one.
    let joined = lines.join("\n");
    assert!(joined.contains("span gpucloud.request:"), "{joined}");
    assert!(
        joined.contains("path=/distributed_jobs_v2/cluster/101/"),
        "{joined}"
    );
    assert!(joined.contains("retrying"), "{joined}");
    assert!(joined.contains("create failed"), "{joined}");
    assert!(joined.contains("transport error"), "{joined}");
    for line in &lines {
        assert_no_secret("log line", line);
    }
}
