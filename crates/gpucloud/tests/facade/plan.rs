//! `ClusterClient::plan`: the exact request a create would send, credentials redacted, and
//! nothing sent. Each plan is also compared with the request a real create then sends.

use crate::support::*;
use gpucloud::{
    ClusterClient, ClusterSize, ClusterSpec, E2eOptions, Error, ProviderKind, RuncrateOptions,
};
use serde_json::json;
use wiremock::Mock;
use wiremock::matchers::{method, path};

fn pairs(headers: &[(&str, &str)]) -> Vec<(String, String)> {
    headers
        .iter()
        .map(|(k, v)| (k.to_string(), v.to_string()))
        .collect()
}

/// Headers the HTTP client itself adds when it sends, which a plan cannot show.
const ADDED_ON_SEND: [&str; 3] = ["host", "user-agent", "content-length"];

/// The plan is exactly what the server received: method, path and query, every header (with
/// `REDACTED` standing for `secret`) and nothing else but what the HTTP client adds on send,
/// and the body.
fn assert_plan_was_sent(plan: &gpucloud::PlannedRequest, sent: &wiremock::Request, secret: &str) {
    let unredact = |s: &str| s.replace("REDACTED", secret);
    assert_eq!(plan.method, sent.method.as_str());
    let planned: url::Url = unredact(&plan.url).parse().unwrap();
    assert_eq!(planned.path(), sent.url.path());
    assert_eq!(planned.query(), sent.url.query());
    let mut received: Vec<(String, String)> = sent
        .headers
        .iter()
        .filter(|(name, _)| !ADDED_ON_SEND.contains(&name.as_str()))
        .map(|(name, value)| (name.to_string(), value.to_str().unwrap().to_string()))
        .collect();
    let mut shown: Vec<(String, String)> = plan
        .headers
        .iter()
        .map(|(name, value)| (name.clone(), unredact(value)))
        .collect();
    received.sort();
    shown.sort();
    assert_eq!(shown, received);
    assert_eq!(body_json(sent), plan.body);
}

#[tokio::test]
async fn together_plan_is_the_create_request() {
    let api = Api::start().await;
    let client = api.together();
    let spec = together_spec();

    let plan = client.plan(&spec).await.unwrap();

    assert_eq!(plan.provider, ProviderKind::Together);
    assert_eq!(plan.operation, "create_cluster");
    assert_eq!(plan.method, "POST");
    assert_eq!(plan.url, format!("{}/compute/clusters", api.uri()));
    assert_eq!(
        plan.headers,
        pairs(&[
            ("accept", "application/json"),
            ("content-type", "application/json"),
            ("api-version", "2.0.0"),
            ("authorization", "Bearer REDACTED")
        ])
    );
    let body = json!({
        "cluster_name": "train-42", "gpu_type": "H100_SXM", "num_gpus": 16, "region": "us-central-8",
        "billing_type": "ON_DEMAND", "nvidia_version_id": "cuda-12.8-driver-570",
    });
    assert_eq!(plan.body, body);
    let shown = plan.to_string();
    assert!(
        shown.starts_with(&format!(
            "POST {}/compute/clusters\naccept: application/json\n",
            api.uri()
        )),
        "{shown}"
    );
    assert!(api.all().await.is_empty(), "a plan sends nothing");

    // The plan is what create sends.
    Mock::given(method("GET"))
        .and(path("/compute/clusters"))
        .respond_with(json_response(200, &together_list(&[])))
        .mount(&api.server)
        .await;
    Mock::given(method("POST"))
        .and(path("/compute/clusters"))
        .respond_with(json_response(
            200,
            &together_cluster("c-1", "train-42", "WaitingForControlPlaneNodes", &[]),
        ))
        .mount(&api.server)
        .await;
    client.create(&spec).await.unwrap();
    let posts = api.requests("POST", "/compute/clusters").await;
    assert_eq!(posts.len(), 1);
    assert_plan_was_sent(&plan, &posts[0], TOGETHER_KEY);
    api.assert_all_matched();
}

#[tokio::test]
async fn runcrate_plan_shows_the_idempotency_key_and_environment() {
    let api = Api::start().await;
    let client = api.runcrate();
    let spec = ClusterSpec::new("train", ClusterSize::Nodes(4)).with_options(
        RuncrateOptions::for_offer("offer-h100x8")
            .with_community(false)
            .with_idempotency_key("plan-key-1")
            .with_environment("staging env"),
    );

    let plan = client.plan(&spec).await.unwrap();

    assert_eq!(plan.provider, ProviderKind::Runcrate);
    assert_eq!(plan.method, "POST");
    assert_eq!(
        plan.url,
        format!("{}/clusters?environment=staging+env", api.uri())
    );
    assert_eq!(plan.header("Idempotency-Key"), Some("plan-key-1"));
    assert_eq!(plan.header("authorization"), Some("Bearer REDACTED"));
    assert_eq!(
        plan.headers,
        pairs(&[
            ("accept", "application/json"),
            ("content-type", "application/json"),
            ("api-version", "v1"),
            ("idempotency-key", "plan-key-1"),
            ("authorization", "Bearer REDACTED")
        ])
    );
    assert_eq!(
        plan.body,
        json!({"name": "train", "offer_id": "offer-h100x8", "node_count": 4, "stack": "none", "include_community": false})
    );
    assert!(api.all().await.is_empty(), "a plan sends nothing");

    // The plan is what create sends, key included.
    Mock::given(method("POST"))
        .and(path("/clusters"))
        .respond_with(json_response(
            201,
            &runcrate_cluster("3c90c3cc-0d44-4b50-8888-8dd25736052a", "train"),
        ))
        .mount(&api.server)
        .await;
    client.create(&spec).await.unwrap();
    let posts = api.requests("POST", "/clusters").await;
    assert_eq!(posts.len(), 1);
    assert_eq!(
        query(&posts[0]).get("environment").map(String::as_str),
        Some("staging env")
    );
    assert_plan_was_sent(&plan, &posts[0], RUNCRATE_KEY);
    api.assert_all_matched();
}

#[tokio::test]
async fn runcrate_plan_without_a_key_shows_a_fresh_uuid() {
    let api = Api::start().await;
    let spec = ClusterSpec::new("train", ClusterSize::Nodes(2))
        .with_options(RuncrateOptions::for_offer("o"));

    let plan = api.runcrate().plan(&spec).await.unwrap();

    assert_eq!(plan.url, format!("{}/clusters", api.uri()));
    let key = plan.header("Idempotency-Key").unwrap();
    assert!(key.parse::<uuid::Uuid>().is_ok(), "{key}");
    assert!(api.all().await.is_empty());
}

#[tokio::test]
async fn e2e_plan_redacts_the_apikey_in_the_url() {
    let api = Api::start().await;
    let client = api.e2e();
    let spec = ClusterSpec::new("train-e2e", ClusterSize::Nodes(2))
        .with_ssh_keys(["1001", "1002"])
        .with_options(
            E2eOptions::default()
                .with_sku(139, 645)
                .with_image_version_id(2)
                .with_security_group_id(1001)
                .with_lifecycle_script("#!/bin/sh\necho hi")
                .with_sfs_mount(gpucloud::E2eSfsMount::new(5, "data", "/mnt/data")),
        );

    let plan = client.plan(&spec).await.unwrap();

    assert_eq!(plan.provider, ProviderKind::E2e);
    assert_eq!(plan.method, "POST");
    assert_eq!(
        plan.url,
        format!(
            "{}/distributed_jobs_v2/cluster/?location=Delhi&project_id=4242&apikey=REDACTED",
            api.uri()
        )
    );
    assert_eq!(
        plan.headers,
        pairs(&[
            ("accept", "application/json"),
            ("content-type", "application/json"),
            ("api-version", "v1"),
            ("authorization", "Bearer REDACTED")
        ])
    );
    assert_eq!(
        plan.body,
        json!({
            "name": "train-e2e", "image_version_id": 2, "ssh_key_ids": [1001, 1002], "security_group_id": 1001,
            "script_added": true, "lifecycle_script": "#!/bin/sh\necho hi",
            "sfs_mount_list": [{"id": 5, "name": "data", "mount_path": "/mnt/data"}],
            "sku_id": 139, "no_of_nodes": 2, "sku_item_price_id": 645,
        })
    );
    assert!(api.all().await.is_empty(), "a plan sends nothing");

    // The plan is what create sends (with the real apikey in place of REDACTED).
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
            201,
            &fixture("e2e", "create_cluster.response.201.json"),
        ))
        .mount(&api.server)
        .await;
    client.create(&spec).await.unwrap();
    let posts = api.requests("POST", "/distributed_jobs_v2/cluster/").await;
    assert_eq!(posts.len(), 1);
    // Both E2E credentials are redacted in the plan; the apikey stands in the URL, the token
    // in the header.
    let sent_as_planned = {
        let mut plan = plan.clone();
        plan.url = plan.url.replace("REDACTED", E2E_API_KEY);
        plan
    };
    assert_plan_was_sent(&sent_as_planned, &posts[0], E2E_TOKEN);
    let sent = query(&posts[0]);
    assert_eq!(sent.get("project_id").map(String::as_str), Some("4242"));
    assert_eq!(sent.get("location").map(String::as_str), Some("Delhi"));
    assert_eq!(sent.get("apikey").map(String::as_str), Some(E2E_API_KEY));
    api.assert_all_matched();
}

#[tokio::test]
async fn e2e_plan_uses_the_spec_location_and_active_iam() {
    let api = Api::start().await;
    // A client for Chennai (a create is sent only to the client's own location).
    let client = ClusterClient::e2e(
        api.e2e_config()
            .with_active_iam(77)
            .with_location(gpucloud::e2e::types::Location::Chennai),
    )
    .unwrap();
    let spec = ClusterSpec::new("x", ClusterSize::Nodes(1))
        .with_region("chennai")
        .with_ssh_keys(["1"])
        .with_options(
            E2eOptions::default()
                .with_sku(1, 1)
                .with_image_version_id(1)
                .with_security_group_id(1),
        );

    let plan = client.plan(&spec).await.unwrap();

    assert_eq!(
        plan.url,
        format!(
            "{}/distributed_jobs_v2/cluster/?active_iam=77&location=Chennai&project_id=4242&apikey=REDACTED",
            api.uri()
        )
    );
    assert!(api.all().await.is_empty());
}

#[tokio::test]
async fn an_invalid_spec_has_no_plan() {
    let api = Api::start().await;
    // Every catalog id given, one documented rule broken: nothing is fetched or sent.
    let together = ClusterSpec::new("train", ClusterSize::Gpus(16))
        .with_gpu_model("H100_SXM")
        .with_region("us-central-8")
        .with_ssh_keys(["ssh-ed25519 AAAA"])
        .with_options(
            gpucloud::TogetherOptions::default().with_nvidia_version_id("cuda-12.8-driver-570"),
        );
    let runcrate = ClusterSpec::new("train", ClusterSize::Nodes(2))
        .with_billing(gpucloud::Billing::Reserved { days: 30 })
        .with_options(gpucloud::RuncrateOptions::for_offer("offer-1"));
    let e2e = ClusterSpec::new("train", ClusterSize::Gpus(16)).with_options(
        gpucloud::E2eOptions::default()
            .with_sku(201, 811)
            .with_image_version_id(2)
            .with_security_group_id(1),
    );

    for (client, spec) in [
        (api.together(), together),
        (api.runcrate(), runcrate),
        (api.e2e(), e2e),
    ] {
        let error = client.plan(&spec).await.unwrap_err();
        assert!(
            matches!(error, Error::Validation(_)),
            "{:?}: {error:?}",
            client.provider()
        );
    }
    assert!(api.all().await.is_empty());
}
