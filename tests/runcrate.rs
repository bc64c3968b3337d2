//! The Runcrate client against a local mock server and Runcrate's documented examples: the exact
//! request of every operation, the typed decoding of every documented response and error
//! envelope, forward compatibility, key hygiene and client-side validation.

#![allow(
    clippy::unwrap_used,
    reason = "test helpers fail loudly; clippy's allow-unwrap-in-tests only covers #[test] fns"
)]

use chrono::{DateTime, Utc};
use gpucloud_integration_tests::{
    fixture, fixture_index, header, json_body, mock_server, query_pairs, single_request,
};
use gpucloud_runcrate::types::{self, Stack};
use gpucloud_runcrate::{BuildError, Client, Error, ResponseValue};
use serde_json::{Value, json};
use uuid::Uuid;
use wiremock::matchers::{method, path};
use wiremock::{Mock, MockServer, Request, ResponseTemplate};

const PROVIDER: &str = "runcrate";
const KEY: &str = "rc_live_Zx81TestKeyDoNotLeak";
/// The path stem of the production base URL, kept so that joining base URL and path is tested.
const STEM: &str = "/api/v1";
const CLUSTER_ID: &str = "3c90c3cc-0d44-4b50-8888-8dd25736052a";
const SSH_KEY_ID: &str = "0f8fad5b-d9cb-469f-a165-70867728950e";
const STORAGE_ID: &str = "7c9e6679-7425-40de-944b-e07fc1f90ae7";
const DOC_TIME: &str = "2023-11-07T05:31:56Z";

// ---------------------------------------------------------------------------------------------
// Helpers
// ---------------------------------------------------------------------------------------------

fn client(server: &MockServer) -> Client {
    Client::from_api_key(&format!("{}{STEM}", server.uri()), KEY).unwrap()
}

fn uuid(s: &str) -> Uuid {
    s.parse().unwrap()
}

fn ts(s: &str) -> DateTime<Utc> {
    s.parse().unwrap()
}

/// Answers `verb STEM+route` with `status` and a JSON body.
async fn serve(server: &MockServer, verb: &str, route: &str, status: u16, body: Value) {
    serve_template(
        server,
        verb,
        route,
        ResponseTemplate::new(status).set_body_json(body),
    )
    .await;
}

async fn serve_template(server: &MockServer, verb: &str, route: &str, template: ResponseTemplate) {
    Mock::given(method(verb))
        .and(path(format!("{STEM}{route}")))
        .respond_with(template)
        .mount(server)
        .await;
}

/// What one request must look like, exactly.
struct Expect<'a> {
    method: &'a str,
    /// Path below the base URL.
    path: &'a str,
    query: &'a [(&'a str, &'a str)],
    idempotency_key: Option<&'a str>,
    body: Option<Value>,
}

fn all_headers(request: &Request, name: &str) -> Vec<String> {
    request
        .headers
        .get_all(name)
        .iter()
        .map(|v| v.to_str().unwrap().to_string())
        .collect()
}

fn assert_request(request: &Request, expect: Expect<'_>) {
    assert_eq!(request.method.as_str(), expect.method);
    assert_eq!(request.url.path(), format!("{STEM}{}", expect.path));
    let query: Vec<(String, String)> = expect
        .query
        .iter()
        .map(|(k, v)| (k.to_string(), v.to_string()))
        .collect();
    assert_eq!(query_pairs(request), query);
    if expect.query.is_empty() {
        assert_eq!(request.url.query(), None, "no query string expected");
    }
    assert_eq!(
        all_headers(request, "authorization"),
        vec![format!("Bearer {KEY}")]
    );
    assert_eq!(
        all_headers(request, "idempotency-key"),
        expect
            .idempotency_key
            .map(str::to_string)
            .into_iter()
            .collect::<Vec<_>>()
    );
    assert_eq!(
        header(request, "accept").as_deref(),
        Some("application/json")
    );
    assert!(
        header(request, "user-agent")
            .unwrap_or_default()
            .starts_with("gpucloud/"),
        "user agent names the SDK"
    );
    match expect.body {
        Some(body) => {
            assert_eq!(
                header(request, "content-type").as_deref(),
                Some("application/json")
            );
            assert_eq!(json_body(request), body);
        }
        None => {
            assert!(request.body.is_empty(), "no body expected");
            assert_eq!(header(request, "content-type"), None);
        }
    }
}

async fn assert_no_request(server: &MockServer) {
    let received = server.received_requests().await.unwrap();
    assert!(received.is_empty(), "nothing may be sent: {received:?}");
}

/// Neither the Display (plain and alternate) nor the Debug of `value` shows the key.
fn assert_no_key<T: std::fmt::Display + std::fmt::Debug>(value: &T) {
    let text = format!("{value} | {value:#} | {value:?} | {value:#?}");
    assert!(!text.contains(KEY), "the API key leaked: {text}");
    assert!(!text.contains("Zx81"), "part of the API key leaked: {text}");
}

fn error_response<T: std::fmt::Debug>(
    result: Result<T, Error<types::ErrorEnvelope>>,
) -> ResponseValue<types::ErrorEnvelope> {
    match result {
        Err(Error::ErrorResponse(value)) => value,
        other => panic!("expected Error::ErrorResponse, got {other:?}"),
    }
}

fn invalid_request<T: std::fmt::Debug>(result: Result<T, Error<types::ErrorEnvelope>>) -> String {
    match result {
        Err(Error::InvalidRequest(message)) => message,
        other => panic!("expected Error::InvalidRequest, got {other:?}"),
    }
}

/// The body of the documented request, built with the typed builder.
fn documented_body_builder() -> types::builder::CreateClusterRequest {
    types::CreateClusterRequest::builder()
        .name("train")
        .offer_id("<string>")
        .node_count(33)
        .stack(Stack::None)
        .ssh_key_ids(vec![uuid(CLUSTER_ID)])
        .storage_id(uuid(CLUSTER_ID))
        .include_community(false)
}

/// Every value of the documented success example (`create_cluster.response.{200,201}.json`).
fn assert_documented_cluster(c: &types::Cluster) {
    assert_eq!(c.id, uuid(CLUSTER_ID));
    assert_eq!(c.name.as_deref(), Some("<string>"));
    assert_eq!(c.status.as_deref(), Some("provisioning"));
    assert_eq!(c.stack, Some(Stack::None));
    assert_eq!(c.stack_status.as_deref(), Some("pending"));
    assert_eq!(c.stack_detail.as_deref(), Some("<string>"));
    assert_eq!(c.node_count, Some(123));
    assert_eq!(c.gpu_type.as_deref(), Some("<string>"));
    assert_eq!(c.gpus_per_node, Some(123));
    assert_eq!(c.deployment_type.as_deref(), Some("vm"));
    assert_eq!(c.host_tier.as_deref(), Some("datacenter"));
    assert_eq!(c.location.as_deref(), Some("<string>"));
    let interconnect = c.interconnect.as_ref().unwrap();
    assert_eq!(interconnect.kind.as_deref(), Some("infiniband"));
    assert_eq!(interconnect.label.as_deref(), Some("<string>"));
    assert_eq!(interconnect.rate_gbps, Some(123.0));
    assert_eq!(interconnect.note.as_deref(), Some("<string>"));
    assert_eq!(c.hourly_rate_per_node, Some(123.0));
    assert_eq!(c.hourly_rate, Some(123.0));
    for at in [c.created_at, c.up_at, c.ready_at, c.terminated_at] {
        assert_eq!(at, Some(ts(DOC_TIME)));
    }

    assert_eq!(c.nodes.len(), 1);
    let node = &c.nodes[0];
    assert_eq!(node.rank, Some(123));
    assert_eq!(node.role.as_deref(), Some("head"));
    assert_eq!(node.instance_id, Some(uuid(CLUSTER_ID)));
    assert_eq!(node.name.as_deref(), Some("train-1"));
    assert_eq!(node.status.as_deref(), Some("<string>"));
    assert_eq!(node.stage.as_deref(), Some("<string>"));
    assert_eq!(node.overlay_address.as_deref(), Some("<string>"));
    assert_eq!(node.gpus, Some(123));
    assert_eq!(node.ip.as_deref(), Some("<string>"));
    assert_eq!(node.ssh_command.as_deref(), Some("<string>"));

    let connection = c.connection.as_ref().unwrap();
    assert_eq!(connection.head_ssh.as_deref(), Some("<string>"));
    assert_eq!(connection.hostfile.as_deref(), Some("<string>"));
    let env = connection.env.as_ref().unwrap();
    assert_eq!(env.master_addr.as_deref(), Some("<string>"));
    assert_eq!(env.master_port.as_deref(), Some("<string>"));
    assert_eq!(env.nccl_socket_ifname.as_deref(), Some("<string>"));
    let snippets = connection.snippets.as_ref().unwrap();
    for snippet in [
        &snippets.torchrun,
        &snippets.mpirun,
        &snippets.deepspeed,
        &snippets.sbatch,
        &snippets.kubectl_tunnel,
        &snippets.ray_tunnel,
    ] {
        assert_eq!(snippet.as_deref(), Some("<string>"));
    }

    let shared = c.shared.as_ref().unwrap();
    assert_eq!(shared.path.as_deref(), Some("/shared"));
    assert_eq!(shared.available, Some(true));
    assert_eq!(shared.detail.as_deref(), Some("<string>"));
    let volume = shared.volume.as_ref().unwrap();
    assert_eq!(volume.id.as_deref(), Some("<string>"));
    assert_eq!(volume.name.as_deref(), Some("<string>"));
    assert_eq!(volume.path.as_deref(), Some("/shared/volume"));

    assert_eq!(c.events.len(), 1);
    let event = &c.events[0];
    assert_eq!(event.id, Some(123));
    assert_eq!(event.at, Some(ts(DOC_TIME)));
    assert_eq!(event.kind.as_deref(), Some("<string>"));
    assert_eq!(event.rank, Some(123));
    assert_eq!(event.message.as_deref(), Some("<string>"));

    let test = c.last_test.as_ref().unwrap();
    assert_eq!(test.id, Some(uuid(CLUSTER_ID)));
    assert_eq!(test.kind.as_deref(), Some("nccl_all_reduce"));
    assert_eq!(test.status.as_deref(), Some("running"));
    assert_eq!(test.started_at, Some(ts(DOC_TIME)));
    assert_eq!(test.finished_at, Some(ts(DOC_TIME)));
    let result = test.result.as_ref().unwrap();
    assert_eq!(result.sizes.len(), 1);
    let size = &result.sizes[0];
    assert_eq!(size.bytes, Some(123));
    assert_eq!(size.algbw_gb_s, Some(123.0));
    assert_eq!(size.busbw_gb_s, Some(123.0));
    assert_eq!(size.time_us, Some(123.0));
    assert_eq!(result.peak_busbw_gb_s, Some(123.0));
    assert_eq!(result.nodes, Some(123));
    assert_eq!(result.gpus, Some(123));
    assert_eq!(result.error.as_deref(), Some("<string>"));
    assert_eq!(result.note.as_deref(), Some("<string>"));

    let billing = c.billing.as_ref().unwrap();
    assert_eq!(billing.billed_since, Some(ts(DOC_TIME)));
    assert_eq!(billing.nodes_billed, Some(123));
    assert_eq!(c.resize, Some(true));
    assert_eq!(c.country_code.as_deref(), Some("<string>"));
    assert_eq!(c.failure_reason.as_deref(), Some("<string>"));
    assert_eq!(c.failure_detail.as_deref(), Some("<string>"));
}

// ---------------------------------------------------------------------------------------------
// 1. Every operation: exact request, typed response
// ---------------------------------------------------------------------------------------------

#[tokio::test]
async fn create_cluster_sends_every_field_header_and_query_and_decodes_201() {
    let server = mock_server().await;
    serve(
        &server,
        "POST",
        "/clusters",
        201,
        fixture(PROVIDER, "create_cluster.response.201.json"),
    )
    .await;

    let response = client(&server)
        .create_cluster()
        .environment("staging")
        .idempotency_key("job-42:attempt/1")
        .body(
            types::CreateClusterRequest::builder()
                .name("train-a1")
                .offer_id("offer_h100_8x")
                .node_count(4)
                .stack(Stack::Slurm)
                .ssh_key_ids(vec![uuid(SSH_KEY_ID)])
                .storage_id(uuid(STORAGE_ID))
                .include_community(true),
        )
        .send()
        .await
        .unwrap();

    assert_request(
        &single_request(&server).await,
        Expect {
            method: "POST",
            path: "/clusters",
            query: &[("environment", "staging")],
            idempotency_key: Some("job-42:attempt/1"),
            body: Some(json!({
                "name": "train-a1",
                "offer_id": "offer_h100_8x",
                "node_count": 4,
                "stack": "slurm",
                "ssh_key_ids": [SSH_KEY_ID],
                "storage_id": STORAGE_ID,
                "include_community": true
            })),
        },
    );
    assert_eq!(response.status().as_u16(), 201);
    assert_documented_cluster(&response.into_inner().data);
}

#[tokio::test]
async fn create_cluster_minimal_sends_no_idempotency_key_no_query_and_only_required_fields() {
    let server = mock_server().await;
    serve(
        &server,
        "POST",
        "/clusters",
        201,
        json!({"data": {"id": CLUSTER_ID, "status": "provisioning", "nodes": []}}),
    )
    .await;

    let response = client(&server)
        .create_cluster()
        .body_map(|b| {
            b.name("n1")
                .offer_id("o")
                .node_count(2)
                .stack(Stack::Ray)
                // An empty optional list is left out of the body, not sent as `[]`.
                .ssh_key_ids(Vec::<Uuid>::new())
        })
        .send()
        .await
        .unwrap();

    assert_request(
        &single_request(&server).await,
        Expect {
            method: "POST",
            path: "/clusters",
            query: &[],
            idempotency_key: None,
            body: Some(json!({"name": "n1", "offer_id": "o", "node_count": 2, "stack": "ray"})),
        },
    );
    let cluster = response.into_inner().data;
    assert_eq!(cluster.id, uuid(CLUSTER_ID));
    assert_eq!(cluster.status.as_deref(), Some("provisioning"));
    assert!(cluster.nodes.is_empty());
    assert_eq!(cluster.stack, None);
}

#[tokio::test]
async fn create_cluster_idempotent_replay_decodes_200() {
    let server = mock_server().await;
    serve(
        &server,
        "POST",
        "/clusters",
        200,
        fixture(PROVIDER, "create_cluster.response.200.json"),
    )
    .await;

    let response = client(&server)
        .create_cluster()
        .idempotency_key("same-key")
        .body(documented_body_builder())
        .send()
        .await
        .unwrap();

    assert_eq!(
        header(&single_request(&server).await, "idempotency-key").as_deref(),
        Some("same-key")
    );
    assert_eq!(response.status().as_u16(), 200);
    assert_documented_cluster(&response.into_inner().data);
}

#[tokio::test]
async fn get_cluster_sends_id_in_path_and_environment_and_decodes() {
    let server = mock_server().await;
    let mut body = fixture(PROVIDER, "create_cluster.response.201.json");
    body["data"]["status"] = json!("ready");
    serve(
        &server,
        "GET",
        &format!("/clusters/{CLUSTER_ID}"),
        200,
        body,
    )
    .await;

    let response = client(&server)
        .get_cluster()
        .id(CLUSTER_ID)
        .environment("prod-eu")
        .send()
        .await
        .unwrap();

    assert_request(
        &single_request(&server).await,
        Expect {
            method: "GET",
            path: &format!("/clusters/{CLUSTER_ID}"),
            query: &[("environment", "prod-eu")],
            idempotency_key: None,
            body: None,
        },
    );
    assert_eq!(response.status().as_u16(), 200);
    let cluster = response.into_inner().data;
    assert_eq!(cluster.status.as_deref(), Some("ready"));
    assert_eq!(cluster.id, uuid(CLUSTER_ID));
    assert_eq!(cluster.nodes[0].name.as_deref(), Some("train-1"));
}

#[tokio::test]
async fn get_cluster_without_environment_sends_no_query() {
    let server = mock_server().await;
    serve(
        &server,
        "GET",
        &format!("/clusters/{CLUSTER_ID}"),
        200,
        json!({"data": {"id": CLUSTER_ID}}),
    )
    .await;

    let cluster = client(&server)
        .get_cluster()
        .id(uuid(CLUSTER_ID))
        .send()
        .await
        .unwrap()
        .into_inner()
        .data;

    assert_request(
        &single_request(&server).await,
        Expect {
            method: "GET",
            path: &format!("/clusters/{CLUSTER_ID}"),
            query: &[],
            idempotency_key: None,
            body: None,
        },
    );
    assert_eq!(cluster.id, uuid(CLUSTER_ID));
    assert_eq!(cluster.name, None);
}

#[tokio::test]
async fn list_offers_sends_volume_and_keeps_undocumented_offer_fields() {
    let server = mock_server().await;
    serve(
        &server,
        "GET",
        "/clusters/offers",
        200,
        json!({"data": [
            {
                "id": "offer_h100_8x",
                "gpu_type": "H100",
                "hourly_rate": 2.49,
                "min_nodes": 2,
                "max_nodes": 16,
                "allowed_node_counts": [2, 4, 8, 16],
                "stacks": ["none", "slurm", "kubernetes", "ray"]
            },
            {"id": "offer_community", "min_nodes": 2, "max_nodes": 4, "allowed_node_counts": null, "stacks": []}
        ]}),
    )
    .await;

    let offers = client(&server)
        .list_offers()
        .volume(true)
        .send()
        .await
        .unwrap()
        .into_inner()
        .data;

    assert_request(
        &single_request(&server).await,
        Expect {
            method: "GET",
            path: "/clusters/offers",
            query: &[("volume", "true")],
            idempotency_key: None,
            body: None,
        },
    );
    assert_eq!(offers.len(), 2);
    let first = &offers[0];
    assert_eq!(first.min_nodes, Some(2));
    assert_eq!(first.max_nodes, Some(16));
    assert_eq!(first.allowed_node_counts, Some(vec![2, 4, 8, 16]));
    assert_eq!(
        first.stacks,
        vec![Stack::None, Stack::Slurm, Stack::Kubernetes, Stack::Ray]
    );
    // The offer's identifier (the `offer_id` of create_cluster) survives as an extra field.
    assert_eq!(first.extra.get("id"), Some(&json!("offer_h100_8x")));
    assert_eq!(first.extra.get("gpu_type"), Some(&json!("H100")));
    assert_eq!(first.extra.get("hourly_rate"), Some(&json!(2.49)));
    assert_eq!(first.extra.len(), 3);
    let second = &offers[1];
    assert_eq!(second.allowed_node_counts, None);
    assert!(second.stacks.is_empty());
    assert_eq!(second.extra.get("id"), Some(&json!("offer_community")));
}

#[tokio::test]
async fn list_offers_without_volume_sends_no_query_and_false_is_sent() {
    let server = mock_server().await;
    serve(&server, "GET", "/clusters/offers", 200, json!({"data": []})).await;
    let c = client(&server);

    assert!(
        c.list_offers()
            .send()
            .await
            .unwrap()
            .into_inner()
            .data
            .is_empty()
    );
    assert!(
        c.list_offers()
            .volume(false)
            .send()
            .await
            .unwrap()
            .into_inner()
            .data
            .is_empty()
    );

    let requests = server.received_requests().await.unwrap();
    assert_eq!(requests.len(), 2);
    for (request, query) in requests.iter().zip([&[][..], &[("volume", "false")][..]]) {
        assert_request(
            request,
            Expect {
                method: "GET",
                path: "/clusters/offers",
                query,
                idempotency_key: None,
                body: None,
            },
        );
    }
}

#[tokio::test]
async fn base_url_with_trailing_slash_does_not_double_the_slash() {
    let server = mock_server().await;
    serve(&server, "GET", "/clusters/offers", 200, json!({"data": []})).await;
    let c = Client::from_api_key(&format!("{}{STEM}/", server.uri()), KEY).unwrap();
    c.list_offers().send().await.unwrap();
    assert_eq!(
        single_request(&server).await.url.path(),
        "/api/v1/clusters/offers"
    );
}

// ---------------------------------------------------------------------------------------------
// 2. The documented example request
// ---------------------------------------------------------------------------------------------

#[tokio::test]
async fn documented_request_fixture_is_sent_unchanged() {
    let index = fixture_index(PROVIDER);
    let requests: Vec<_> = index.iter().filter(|e| e.kind == "request").collect();
    assert_eq!(requests.len(), 1, "index lists one request example");
    assert_eq!(requests[0].schema, "CreateClusterRequest");
    let doc = fixture(PROVIDER, &requests[0].file);

    let typed: types::CreateClusterRequest = serde_json::from_value(doc.clone()).unwrap();
    assert_eq!(typed.name.as_str(), "train");
    assert_eq!(typed.node_count, 33);
    assert_eq!(typed.stack, Stack::None);
    assert_eq!(typed.include_community, Some(false));

    let server = mock_server().await;
    serve(
        &server,
        "POST",
        "/clusters",
        201,
        fixture(PROVIDER, "create_cluster.response.201.json"),
    )
    .await;
    client(&server)
        .create_cluster()
        .body(typed.clone())
        .send()
        .await
        .unwrap();
    // Every key survives the typed round trip, including `include_community: false`.
    assert_eq!(json_body(&single_request(&server).await), doc);

    // The same request built with builder calls is the same value and the same JSON.
    let built = types::CreateClusterRequest::try_from(documented_body_builder()).unwrap();
    assert_eq!(built, typed);
    assert_eq!(serde_json::to_value(&built).unwrap(), doc);
}

// ---------------------------------------------------------------------------------------------
// 3. Documented responses and error envelopes
// ---------------------------------------------------------------------------------------------

#[test]
fn every_indexed_response_fixture_decodes_to_the_documented_cluster() {
    let responses: Vec<_> = fixture_index(PROVIDER)
        .into_iter()
        .filter(|e| e.kind == "response")
        .collect();
    let statuses: Vec<_> = responses.iter().map(|e| e.status).collect();
    assert_eq!(statuses, vec![Some(201), Some(200)]);
    for entry in responses {
        assert_eq!(entry.schema, "ClusterResponse");
        let typed: types::ClusterResponse =
            serde_json::from_value(fixture(PROVIDER, &entry.file)).unwrap();
        assert_documented_cluster(&typed.data);
    }
}

/// Runs `create_cluster` (documented body) against a server answering with `template`.
type CreateResult = Result<ResponseValue<types::ClusterResponse>, Error<types::ErrorEnvelope>>;

async fn create_cluster_answered(template: ResponseTemplate) -> (MockServer, CreateResult) {
    let server = mock_server().await;
    serve_template(&server, "POST", "/clusters", template).await;
    let result = client(&server)
        .create_cluster()
        .body(documented_body_builder())
        .send()
        .await;
    (server, result)
}

#[tokio::test]
async fn documented_error_fixture_decodes_for_every_declared_create_status() {
    let doc = fixture(PROVIDER, "error.json");
    for status in [400, 401, 402, 403, 404, 409, 422, 429, 500, 502, 503] {
        let (_server, result) =
            create_cluster_answered(ResponseTemplate::new(status).set_body_json(&doc)).await;
        assert_no_key(result.as_ref().unwrap_err());
        let value = error_response(result);
        assert_eq!(value.status().as_u16(), status);
        let error = value.into_inner().error;
        assert_eq!(error.code, "<string>");
        assert_eq!(error.message, "<string>");
        let details = error.details.unwrap();
        assert_eq!(details.reason, None);
        assert!(details.extra.is_empty());
    }
}

#[tokio::test]
async fn error_envelopes_decode_with_status_code_message_and_details() {
    struct Case {
        status: u16,
        body: Value,
        code: &'static str,
        reason: Option<&'static str>,
        extra: Value,
    }
    let cases = [
        Case {
            status: 400,
            body: json!({"error": {"code": "bad_request", "message": "Malformed JSON"}}),
            code: "bad_request",
            reason: None,
            extra: Value::Null,
        },
        Case {
            status: 402,
            body: json!({"error": {"code": "BUDGET_REACHED", "message": "Monthly budget reached", "details": {"budget_usd": 500, "spent_usd": 500.25}}}),
            code: "BUDGET_REACHED",
            reason: None,
            extra: json!({"budget_usd": 500, "spent_usd": 500.25}),
        },
        Case {
            status: 409,
            body: json!({"error": {"code": "conflict", "message": "A request with this Idempotency-Key is in progress", "details": {"reason": "idempotency_in_progress"}}}),
            code: "conflict",
            reason: Some("idempotency_in_progress"),
            extra: json!({}),
        },
        Case {
            status: 422,
            body: json!({"error": {"code": "validation_error", "message": "node_count out of range", "details": {"reason": "node_count", "min_nodes": 2, "max_nodes": 8}}}),
            code: "validation_error",
            reason: Some("node_count"),
            extra: json!({"min_nodes": 2, "max_nodes": 8}),
        },
        Case {
            status: 429,
            body: json!({"error": {"code": "rate_limited", "message": "Slow down", "details": {}}}),
            code: "rate_limited",
            reason: None,
            extra: json!({}),
        },
        Case {
            status: 500,
            body: json!({"error": {"code": "internal_error", "message": "Something broke", "details": {}}}),
            code: "internal_error",
            reason: None,
            extra: json!({}),
        },
        Case {
            status: 502,
            body: json!({"error": {"code": "launch_refused", "message": "Upstream refused the launch"}}),
            code: "launch_refused",
            reason: None,
            extra: Value::Null,
        },
    ];
    for case in cases {
        let template = ResponseTemplate::new(case.status)
            .insert_header("retry-after", "7")
            .set_body_json(&case.body);
        let (_server, result) = create_cluster_answered(template).await;
        assert_no_key(result.as_ref().unwrap_err());
        let value = error_response(result);
        assert_eq!(value.status().as_u16(), case.status);
        assert_eq!(
            value
                .headers()
                .get("retry-after")
                .unwrap()
                .to_str()
                .unwrap(),
            "7"
        );
        let error = value.into_inner().error;
        assert_eq!(error.code, case.code);
        assert_eq!(
            error.message,
            case.body["error"]["message"].as_str().unwrap()
        );
        match case.extra {
            Value::Null => assert_eq!(error.details, None, "status {}", case.status),
            Value::Object(extra) => {
                let details = error.details.unwrap();
                assert_eq!(details.reason.as_deref(), case.reason);
                assert_eq!(details.extra, extra);
            }
            _ => unreachable!(),
        }
    }
}

#[tokio::test]
async fn get_cluster_404_and_list_offers_401_are_error_responses() {
    let server = mock_server().await;
    serve(
        &server,
        "GET",
        &format!("/clusters/{CLUSTER_ID}"),
        404,
        json!({"error": {"code": "not_found", "message": "Cluster not found"}}),
    )
    .await;
    serve(
        &server,
        "GET",
        "/clusters/offers",
        401,
        json!({"error": {"code": "unauthorized", "message": "Invalid API key"}}),
    )
    .await;
    let c = client(&server);

    let not_found = error_response(c.get_cluster().id(CLUSTER_ID).send().await);
    assert_eq!(not_found.status().as_u16(), 404);
    assert_eq!(not_found.error.code, "not_found");
    assert_eq!(not_found.error.message, "Cluster not found");

    let unauthorized = error_response(c.list_offers().send().await);
    assert_eq!(unauthorized.status().as_u16(), 401);
    assert_eq!(unauthorized.error.code, "unauthorized");
}

#[tokio::test]
async fn undeclared_status_is_unexpected_response_without_the_key() {
    // get_cluster does not declare 400 or 503; create_cluster does not declare 418.
    let server = mock_server().await;
    serve(
        &server,
        "GET",
        &format!("/clusters/{CLUSTER_ID}"),
        503,
        json!({"error": {"code": "unavailable", "message": "later"}}),
    )
    .await;
    let err = client(&server)
        .get_cluster()
        .id(CLUSTER_ID)
        .send()
        .await
        .unwrap_err();
    assert_no_key(&err);
    match err {
        Error::UnexpectedResponse(response) => assert_eq!(response.status().as_u16(), 503),
        other => panic!("expected UnexpectedResponse, got {other:?}"),
    }

    let (_server, result) =
        create_cluster_answered(ResponseTemplate::new(418).set_body_string("teapot")).await;
    let err = result.unwrap_err();
    assert_no_key(&err);
    assert_eq!(err.status().map(|s| s.as_u16()), Some(418));
    assert!(matches!(err, Error::UnexpectedResponse(_)));
}

#[tokio::test]
async fn non_json_bodies_are_invalid_response_payload_without_the_key() {
    // 502 is declared for create_cluster, with a JSON envelope; a proxy's HTML page is not JSON.
    let html = "<html><body><h1>502 Bad Gateway</h1></body></html>";
    let (_server, result) =
        create_cluster_answered(ResponseTemplate::new(502).set_body_raw(html, "text/html")).await;
    let err = result.unwrap_err();
    assert_no_key(&err);
    match err {
        Error::InvalidResponsePayload(bytes, _) => assert_eq!(&bytes[..], html.as_bytes()),
        other => panic!("expected InvalidResponsePayload, got {other:?}"),
    }

    // A success status whose body is not a cluster.
    let (_server, result) = create_cluster_answered(
        ResponseTemplate::new(201).set_body_json(json!({"data": {"name": "no id"}})),
    )
    .await;
    let err = result.unwrap_err();
    assert_no_key(&err);
    assert!(matches!(err, Error::InvalidResponsePayload(..)), "{err:?}");
}

// ---------------------------------------------------------------------------------------------
// 4. Forward compatibility
// ---------------------------------------------------------------------------------------------

#[tokio::test]
async fn unknown_stack_unknown_fields_and_nulls_decode() {
    let server = mock_server().await;
    serve(
        &server,
        "GET",
        &format!("/clusters/{CLUSTER_ID}"),
        200,
        json!({
            "data": {
                "id": CLUSTER_ID,
                "name": "train",
                "status": "provisioning",
                "stack": "slurm-ng",
                "stack_status": "pending",
                "stack_detail": null,
                "interconnect": null,
                "up_at": null,
                "ready_at": null,
                "terminated_at": null,
                "nodes": [{
                    "rank": 0, "role": "head", "instance_id": null, "name": "train-0",
                    "status": "starting", "stage": null, "overlay_address": null, "gpus": 8,
                    "ip": null, "ssh_command": null, "brand_new_node_field": [1, 2]
                }],
                "connection": {"head_ssh": null, "hostfile": null, "env": null, "snippets": null},
                "shared": {"path": "/shared", "available": false, "detail": "container machine", "volume": null},
                "events": [{"id": 1, "at": DOC_TIME, "kind": "created", "rank": null, "message": "requested"}],
                "last_test": null,
                "billing": {"billed_since": null, "nodes_billed": 0},
                "resize": null,
                "failure_reason": null,
                "failure_detail": null,
                "brand_new_field": {"nested": true},
                "region_code": "eu-1"
            },
            "meta": {"request_id": "abc"}
        }),
    )
    .await;

    let cluster = client(&server)
        .get_cluster()
        .id(CLUSTER_ID)
        .send()
        .await
        .unwrap()
        .into_inner()
        .data;

    assert_eq!(cluster.stack, Some(Stack::Unknown("slurm-ng".to_string())));
    let stack = cluster.stack.clone().unwrap();
    assert!(!stack.is_known());
    assert_eq!(stack.as_str(), "slurm-ng");
    assert_eq!(stack.to_string(), "slurm-ng");
    assert_eq!(serde_json::to_value(&stack).unwrap(), json!("slurm-ng"));
    assert_eq!(
        serde_json::from_value::<Stack>(json!("slurm-ng")).unwrap(),
        stack
    );

    assert_eq!(cluster.stack_detail, None);
    assert_eq!(cluster.interconnect, None);
    assert_eq!(cluster.up_at, None);
    assert_eq!(cluster.ready_at, None);
    assert_eq!(cluster.terminated_at, None);
    let node = &cluster.nodes[0];
    assert_eq!(node.rank, Some(0));
    assert_eq!(node.instance_id, None);
    assert_eq!(node.stage, None);
    assert_eq!(node.overlay_address, None);
    assert_eq!(node.ip, None);
    assert_eq!(node.ssh_command, None);
    assert_eq!(node.gpus, Some(8));
    assert_eq!(
        cluster.connection,
        Some(types::ClusterConnection::default())
    );
    let shared = cluster.shared.as_ref().unwrap();
    assert_eq!(shared.available, Some(false));
    assert_eq!(shared.volume, None);
    assert_eq!(cluster.events[0].rank, None);
    assert_eq!(cluster.last_test, None);
    let billing = cluster.billing.as_ref().unwrap();
    assert_eq!(billing.billed_since, None);
    assert_eq!(billing.nodes_billed, Some(0));
    assert_eq!(cluster.resize, None);
    assert_eq!(cluster.failure_reason, None);
    assert_eq!(cluster.failure_detail, None);

    // Re-serialized, the unknown stack is kept verbatim; nulls and unknown fields are dropped.
    let again = serde_json::to_value(&cluster).unwrap();
    assert_eq!(again["stack"], json!("slurm-ng"));
    assert!(again.get("up_at").is_none());
    assert!(again.get("brand_new_field").is_none());
    assert_eq!(
        serde_json::from_value::<types::Cluster>(again).unwrap(),
        cluster
    );
}

#[tokio::test]
async fn stack_values_known_and_unknown_are_sent_verbatim() {
    assert_eq!(Stack::KNOWN_VALUES, &["none", "slurm", "kubernetes", "ray"]);
    for raw in Stack::KNOWN_VALUES {
        let stack = Stack::from(*raw);
        assert!(stack.is_known());
        assert_eq!(stack.as_str(), *raw);
    }

    let server = mock_server().await;
    serve(
        &server,
        "POST",
        "/clusters",
        201,
        json!({"data": {"id": CLUSTER_ID}}),
    )
    .await;
    client(&server)
        .create_cluster()
        .body_map(|b| {
            b.name("n")
                .offer_id("o")
                .node_count(2)
                .stack(Stack::Unknown("slurm-ng".into()))
        })
        .send()
        .await
        .unwrap();
    assert_eq!(
        json_body(&single_request(&server).await)["stack"],
        json!("slurm-ng")
    );
}

// ---------------------------------------------------------------------------------------------
// 5. Key hygiene
// ---------------------------------------------------------------------------------------------

#[tokio::test]
async fn transport_error_does_not_show_the_key() {
    // Nothing listens on the discard port of the loopback address.
    let c = Client::from_api_key("http://127.0.0.1:9/api/v1", KEY).unwrap();
    let err = c
        .create_cluster()
        .body(documented_body_builder())
        .send()
        .await
        .unwrap_err();
    assert!(matches!(err, Error::CommunicationError(_)), "{err:?}");
    assert_no_key(&err);
    let err = c.get_cluster().id(CLUSTER_ID).send().await.unwrap_err();
    assert!(matches!(err, Error::CommunicationError(_)), "{err:?}");
    assert_no_key(&err);
}

#[tokio::test]
async fn client_and_credentials_debug_hide_the_key_and_bad_keys_are_named_not_shown() {
    let server = mock_server().await;
    let c = client(&server);
    let debug = format!("{c:?}");
    assert!(!debug.contains(KEY), "{debug}");
    assert!(debug.contains("REDACTED"), "{debug}");

    let credentials = gpucloud_runcrate::auth::Credentials::new(KEY).unwrap();
    assert!(!format!("{credentials:?}").contains(KEY));

    let bad = "rc_live_Zx81 with space";
    let err = Client::from_api_key("http://127.0.0.1:9", bad).unwrap_err();
    assert!(matches!(err, BuildError::Credential(_)));
    assert_eq!(
        err.to_string(),
        "the API key contains whitespace, control or non-ASCII characters"
    );
    assert!(!format!("{err:?}").contains("Zx81"));
    let err = Client::from_api_key("http://127.0.0.1:9", "").unwrap_err();
    assert_eq!(err.to_string(), "the API key is empty");
}

// ---------------------------------------------------------------------------------------------
// 6. Client-side validation before any network call
// ---------------------------------------------------------------------------------------------

#[tokio::test]
async fn missing_required_body_fields_and_path_id_are_rejected_before_sending() {
    let server = mock_server().await;
    let c = client(&server);

    let message = invalid_request(c.create_cluster().send().await);
    assert_eq!(message, "no value supplied for name");

    let message = invalid_request(
        c.create_cluster()
            .body_map(|b| b.name("n").offer_id("o").node_count(2))
            .send()
            .await,
    );
    assert_eq!(message, "no value supplied for stack");

    let message = invalid_request(
        c.create_cluster()
            .body_map(|b| b.name("n").stack(Stack::None).node_count(2))
            .send()
            .await,
    );
    assert_eq!(message, "no value supplied for offer_id");

    let message = invalid_request(c.get_cluster().send().await);
    assert_eq!(message, "id was not initialized");

    let message = invalid_request(c.get_cluster().id("not-a-uuid").send().await);
    assert_eq!(message, "conversion to `:: uuid :: Uuid` for id failed");

    assert_no_request(&server).await;
}

#[tokio::test]
async fn cluster_name_pattern_is_enforced_before_sending() {
    let server = mock_server().await;
    let c = client(&server);
    for bad in ["", "-starts-with-hyphen", "has_underscore", &"a".repeat(64)] {
        let message = invalid_request(
            c.create_cluster()
                .body_map(|b| b.name(bad).offer_id("o").node_count(2).stack(Stack::None))
                .send()
                .await,
        );
        assert!(
            message.starts_with("error converting supplied value for name: "),
            "{bad:?}: {message}"
        );
    }
    assert!(types::CreateClusterRequestName::try_from("a".repeat(63)).is_ok());
    assert_no_request(&server).await;
}

#[tokio::test]
async fn idempotency_key_constraints_are_enforced_before_sending() {
    let server = mock_server().await;
    let c = client(&server);
    let too_long = "k".repeat(256);
    for bad in [
        "",
        too_long.as_str(),
        "has space",
        "tab\tkey",
        "naïve",
        "line\nbreak",
    ] {
        let message = invalid_request(
            c.create_cluster()
                .idempotency_key(bad)
                .body(documented_body_builder())
                .send()
                .await,
        );
        // The generated builder drops the reason; it names the parameter only.
        assert_eq!(
            message, "conversion to `CreateClusterIdempotencyKey` for idempotency_key failed",
            "{bad:?}"
        );
    }
    assert_no_request(&server).await;

    // The boundaries are accepted and sent verbatim: 1 character, and 255 visible ASCII ones.
    serve(
        &server,
        "POST",
        "/clusters",
        201,
        json!({"data": {"id": CLUSTER_ID}}),
    )
    .await;
    let printable: String = (0x21u8..=0x7e).map(char::from).collect();
    let longest: String = printable.chars().cycle().take(255).collect();
    for good in ["x", longest.as_str()] {
        c.create_cluster()
            .idempotency_key(good)
            .body(documented_body_builder())
            .send()
            .await
            .unwrap();
    }
    let sent: Vec<_> = server
        .received_requests()
        .await
        .unwrap()
        .iter()
        .map(|r| all_headers(r, "idempotency-key"))
        .collect();
    assert_eq!(sent, vec![vec!["x".to_string()], vec![longest]]);
}

#[tokio::test]
async fn numeric_and_list_bounds_are_not_enforced_client_side() {
    // The spec bounds node_count to 2..=64 and ssh_key_ids to 20 items; the generated types are
    // a plain i64 and Vec, so out-of-range values go to the server (which answers 422).
    let server = mock_server().await;
    serve(
        &server,
        "POST",
        "/clusters",
        422,
        json!({"error": {"code": "validation_error", "message": "node_count must be >= 2"}}),
    )
    .await;
    let result = client(&server)
        .create_cluster()
        .body_map(|b| {
            b.name("n")
                .offer_id("o")
                .node_count(1)
                .stack(Stack::None)
                .ssh_key_ids(vec![uuid(SSH_KEY_ID); 21])
        })
        .send()
        .await;
    let value = error_response(result);
    assert_eq!(value.status().as_u16(), 422);
    let body = json_body(&single_request(&server).await);
    assert_eq!(body["node_count"], json!(1));
    assert_eq!(body["ssh_key_ids"].as_array().unwrap().len(), 21);
}
