//! The E2E Networks client against a local mock server and E2E's documented examples: the exact
//! request of every operation (both credentials, scoping query, trailing slashes), the typed
//! decoding of documented responses and error shapes, forward compatibility, secret hygiene and
//! client-side validation.

#![allow(
    clippy::unwrap_used,
    reason = "test helpers fail loudly; clippy's allow-unwrap-in-tests only covers #[test] fns"
)]

use std::collections::BTreeMap;

use gpucloud_e2e::auth::Credentials;
use gpucloud_e2e::types::{self, ClusterAction, Location, PlanSkuType};
use gpucloud_e2e::{Client, Error, ResponseValue};
use gpucloud_integration_tests::{
    fixture, fixture_index, header, json_body, mock_server, query_map, query_pairs, single_request,
};
use serde_json::{Value, json};
use wiremock::matchers::{method, path};
use wiremock::{Mock, MockServer, Request, ResponseTemplate};

const PROVIDER: &str = "e2e";
const API_KEY: &str = "e2eKEY-Qv7Lm2Pz9x";
const TOKEN: &str = "e2eTOKEN.Hb4Ns8Wd3k";
/// Distinctive fragments: neither may appear anywhere, even truncated.
const SECRET_FRAGMENTS: &[&str] = &[API_KEY, TOKEN, "Qv7Lm2Pz9x", "Hb4Ns8Wd3k"];
/// The path stem of the production base URL.
const STEM: &str = "/myaccount/api/v1/gpu";
const PROJECT: i64 = 10001;
const CLUSTER: i64 = 101;

// ---------------------------------------------------------------------------------------------
// Helpers
// ---------------------------------------------------------------------------------------------

fn credentials() -> Credentials {
    Credentials::new(API_KEY, TOKEN).unwrap()
}

fn client(server: &MockServer) -> Client {
    Client::from_credentials(&format!("{}{STEM}", server.uri()), credentials()).unwrap()
}

/// A client whose requests cannot connect (nothing listens on the loopback discard port).
fn unreachable_client() -> Client {
    Client::from_credentials(&format!("http://127.0.0.1:9{STEM}"), credentials()).unwrap()
}

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

fn all_headers(request: &Request, name: &str) -> Vec<String> {
    request
        .headers
        .get_all(name)
        .iter()
        .map(|v| v.to_str().unwrap().to_string())
        .collect()
}

/// What one request must look like, exactly. `query` lists the operation's parameters; the
/// `apikey` pair is checked separately (present exactly once, with the key).
struct Expect<'a> {
    method: &'a str,
    /// Path below the base URL, trailing slash included.
    path: &'a str,
    query: &'a [(&'a str, &'a str)],
    body: Option<Value>,
}

fn assert_request(request: &Request, expect: Expect<'_>) {
    assert_eq!(request.method.as_str(), expect.method);
    assert_eq!(request.url.path(), format!("{STEM}{}", expect.path));

    let pairs = query_pairs(request);
    let apikeys: Vec<_> = pairs.iter().filter(|(k, _)| k == "apikey").collect();
    assert_eq!(
        apikeys,
        vec![&("apikey".to_string(), API_KEY.to_string())],
        "apikey exactly once: {pairs:?}"
    );
    let mut expected: BTreeMap<String, String> = expect
        .query
        .iter()
        .map(|(k, v)| (k.to_string(), v.to_string()))
        .collect();
    expected.insert("apikey".into(), API_KEY.into());
    assert_eq!(query_map(request), expected);
    assert_eq!(
        pairs.len(),
        expected.len(),
        "no duplicated parameter: {pairs:?}"
    );

    assert_eq!(
        all_headers(request, "authorization"),
        vec![format!("Bearer {TOKEN}")]
    );
    assert_eq!(
        header(request, "accept").as_deref(),
        Some("application/json")
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

async fn received(server: &MockServer) -> Vec<Request> {
    server.received_requests().await.unwrap()
}

/// Neither Display (plain and alternate) nor Debug of `value` shows a credential.
fn assert_no_secret<T: std::fmt::Display + std::fmt::Debug>(value: &T) {
    let text = format!("{value} | {value:#} | {value:?} | {value:#?}");
    assert_text_has_no_secret(&text);
}

fn assert_text_has_no_secret(text: &str) {
    for secret in SECRET_FRAGMENTS {
        assert!(!text.contains(secret), "a credential leaked: {text}");
    }
}

fn error_response<T: std::fmt::Debug>(
    result: Result<T, Error<types::E2eError>>,
) -> ResponseValue<types::E2eError> {
    match result {
        Err(Error::ErrorResponse(value)) => value,
        other => panic!("expected Error::ErrorResponse, got {other:?}"),
    }
}

fn invalid_request<T: std::fmt::Debug>(result: Result<T, Error<types::E2eError>>) -> String {
    match result {
        Err(Error::InvalidRequest(message)) => message,
        other => panic!("expected Error::InvalidRequest, got {other:?}"),
    }
}

fn doc_cluster_envelope(code: i64) -> Value {
    let mut body = fixture(PROVIDER, "create_cluster.response.201.json");
    body["code"] = json!(code);
    body
}

/// A create body built with the typed builder, every optional field set.
fn full_body() -> types::builder::CreateClusterRequest {
    types::CreateClusterRequest::builder()
        .name("llm-train")
        .image_version_id(2)
        .ssh_key_ids(vec![1001, 1002])
        .security_group_id(77)
        .script_added(true)
        .lifecycle_script("#!/bin/bash\necho ready".to_string())
        .sfs_mount_list(vec![types::SfsMount {
            id: Some(5),
            name: Some("datasets".into()),
            mount_path: Some("/mnt/sfs".into()),
        }])
        .pfs_mount_list(vec![types::PfsMount(
            json!({"id": 9}).as_object().unwrap().clone(),
        )])
        .dataset_mount_list(vec![types::DatasetMount(serde_json::Map::new())])
        .sku_id(139)
        .no_of_nodes(2)
        .sku_item_price_id(645)
}

fn full_body_json() -> Value {
    json!({
        "name": "llm-train",
        "image_version_id": 2,
        "ssh_key_ids": [1001, 1002],
        "security_group_id": 77,
        "script_added": true,
        "lifecycle_script": "#!/bin/bash\necho ready",
        "sfs_mount_list": [{"id": 5, "name": "datasets", "mount_path": "/mnt/sfs"}],
        "pfs_mount_list": [{"id": 9}],
        "dataset_mount_list": [{}],
        "sku_id": 139,
        "no_of_nodes": 2,
        "sku_item_price_id": 645
    })
}

/// Every value of the documented create response's `data`.
fn assert_documented_cluster(c: &types::TrainingCluster) {
    assert_eq!(c.id, Some(101));
    assert_eq!(c.name.as_deref(), Some("training-cluster-010125103045"));
    let creator = c.created_by.as_ref().unwrap();
    assert_eq!(creator.id, Some(1001));
    assert_eq!(creator.name.as_deref(), Some("John Doe"));
    assert_eq!(creator.email.as_deref(), Some("user@example.com"));
    assert_eq!(creator.username.as_deref(), Some("user@example.com"));
    assert_eq!(creator.is_primary_contact, Some(true));
    assert_eq!(creator.currency.as_deref(), Some("INR"));
    assert_eq!(creator.is_suspended, Some(false));
    assert_eq!(c.no_of_nodes, Some(1));
    assert_eq!(c.created_at, Some("2025-01-15T10:30:00Z".parse().unwrap()));
    assert_eq!(c.private_cloud_id, None);
    assert_eq!(c.private_cloud_name, None);

    let sku = c.sku_details.as_ref().unwrap();
    let specs = sku.specs.as_ref().unwrap();
    assert_eq!(specs.sku_id, Some(139));
    assert_eq!(specs.name.as_deref(), Some("C3.32GB"));
    assert_eq!(specs.series.as_deref(), Some("CPU"));
    assert_eq!(specs.cpu, Some(8));
    assert_eq!(specs.gpu, Some(0));
    assert_eq!(specs.memory, Some(32));
    assert_eq!(specs.ephemeral_storage, Some(0));
    assert_eq!(specs.gpu_memory, Some(0));
    assert_eq!(specs.is_free, Some(false));
    assert_eq!(specs.is_active, Some(true));
    assert_eq!(specs.local_storage_in_gb, Some(0));
    assert_eq!(specs.sku_type.as_deref(), Some("C3-250GB"));
    assert_eq!(specs.gpu_card_type, None);
    assert_eq!(specs.category.as_deref(), Some("distributed_job"));
    assert_eq!(specs.variant.as_deref(), Some("e2e"));
    assert_eq!(specs.no_of_nodes, Some(1));
    let plan = sku.plan.as_ref().unwrap();
    assert_eq!(plan.sku_item_price_id, Some(645));
    assert_eq!(plan.sku_type, Some(PlanSkuType::Hourly));
    assert_eq!(plan.committed_days, Some(0));
    assert_eq!(plan.unit_price, Some(12.3));
    assert_eq!(plan.currency.as_deref(), Some("INR"));
    assert_eq!(plan.is_active, Some(true));
    assert_eq!(plan.description, None);
    assert_eq!(plan.location.as_deref(), Some("Delhi"));

    assert_eq!(c.total_gpu, Some(0));
    assert_eq!(c.total_cpu, Some(0));
    assert_eq!(c.total_memory.as_deref(), Some("0 GB"));
    assert_eq!(c.available_gpu, Some(0));
    assert_eq!(c.available_cpu, Some(0));
    assert_eq!(c.available_memory.as_deref(), Some("0 GB"));
    assert!(c.worker_nodes.is_empty());
    assert_eq!(c.has_local_storage, Some(false));
    assert_eq!(c.local_storage_per_node, None);
    assert_eq!(c.status.as_deref(), Some("Creating"));
    assert_eq!(c.image_pull_policy.as_deref(), Some("IfNotPresent"));

    let image = c.image_version.as_ref().unwrap();
    assert_eq!(image.id, Some(2));
    assert_eq!(image.version.as_deref(), Some("v2-slurm25.11-ubuntu24.04"));
    assert_eq!(image.description.as_deref(), Some(""));
    assert!(image.tags.is_empty());
    assert_eq!(image.name.as_deref(), Some("Ubuntu Slurm"));
    assert_eq!(image.slug_name.as_deref(), Some("ubuntu-slurm"));
    assert_eq!(image.framework.as_deref(), Some("Slurm"));
    assert_eq!(image.is_internal, Some(false));

    assert_eq!(c.ssh_keys.len(), 1);
    assert_eq!(c.ssh_keys[0].pk, Some(1001));
    assert_eq!(c.ssh_keys[0].label.as_deref(), Some("my-ssh-key"));
    assert!(
        c.ssh_keys[0]
            .ssh_key
            .as_deref()
            .unwrap()
            .starts_with("ssh-rsa AAAAB3NzaC1yc2E")
    );
    assert_eq!(c.ssh_public_ip.as_deref(), Some(""));
    assert_eq!(c.has_floating_ip, Some(true));
    assert!(c.reserve_ip.is_empty());

    let clone = c.clone_data.as_ref().unwrap();
    assert_eq!(clone.name.as_deref(), Some("training-cluster-010125103045"));
    assert_eq!(clone.image_version_id, Some(2));
    assert_eq!(clone.ssh_key_ids, vec![1001]);
    assert_eq!(clone.security_group_id, Some(1001));
    assert_eq!(clone.script_added, Some(false));
    assert_eq!(clone.lifecycle_script.as_deref(), Some(""));
    assert!(clone.sfs_mount_list.is_empty());
    assert!(clone.pfs_mount_list.is_empty());
    assert!(clone.dataset_mount_list.is_empty());
    assert_eq!(clone.sku_id, Some(139));
    assert_eq!(clone.no_of_nodes, Some(1));
    assert_eq!(clone.sku_item_price_id, Some(645));
    assert_eq!(clone.project_id, Some(10001));
}

// ---------------------------------------------------------------------------------------------
// 1. Every operation: exact request, typed response
// ---------------------------------------------------------------------------------------------

#[tokio::test]
async fn create_cluster_sends_both_credentials_scope_and_body_and_decodes_201() {
    let server = mock_server().await;
    serve(
        &server,
        "POST",
        "/distributed_jobs_v2/cluster/",
        201,
        fixture(PROVIDER, "create_cluster.response.201.json"),
    )
    .await;

    let response = client(&server)
        .create_cluster()
        .project_id(PROJECT)
        .location(Location::Delhi)
        .active_iam(55)
        .body(full_body())
        .send()
        .await
        .unwrap();

    assert_request(
        &single_request(&server).await,
        Expect {
            method: "POST",
            path: "/distributed_jobs_v2/cluster/",
            query: &[
                ("project_id", "10001"),
                ("location", "Delhi"),
                ("active_iam", "55"),
            ],
            body: Some(full_body_json()),
        },
    );
    assert_eq!(response.status().as_u16(), 201);
    let envelope = response.into_inner();
    assert_eq!(envelope.code, Some(201));
    assert_eq!(envelope.errors, Some(json!({})));
    assert_eq!(
        envelope.message.as_deref(),
        Some("Cluster created successfully")
    );
    assert_documented_cluster(envelope.data.as_ref().unwrap());
}

#[tokio::test]
async fn list_clusters_sends_paging_and_decodes_each_cluster() {
    let server = mock_server().await;
    let documented = fixture(PROVIDER, "create_cluster.response.201.json")["data"].clone();
    serve(
        &server,
        "GET",
        "/distributed_jobs_v2/cluster/",
        200,
        json!({
            "code": 200,
            "data": [
                documented,
                {"id": 102, "status": "Running", "worker_nodes": [{"name": "w-0", "ip": "10.0.0.5"}], "reserve_ip": [{"ip": "203.0.113.7"}]}
            ],
            "errors": {},
            "message": "Success"
        }),
    )
    .await;

    let response = client(&server)
        .list_clusters()
        .project_id(PROJECT)
        .location(Location::Chennai)
        .active_iam(7)
        .page_no(2)
        .per_page(50)
        .send()
        .await
        .unwrap();

    assert_request(
        &single_request(&server).await,
        Expect {
            method: "GET",
            path: "/distributed_jobs_v2/cluster/",
            query: &[
                ("project_id", "10001"),
                ("location", "Chennai"),
                ("active_iam", "7"),
                ("page_no", "2"),
                ("per_page", "50"),
            ],
            body: None,
        },
    );
    let list = response.into_inner();
    assert_eq!(list.code, Some(200));
    assert_eq!(list.message.as_deref(), Some("Success"));
    assert_eq!(list.data.len(), 2);
    assert_documented_cluster(&list.data[0]);
    let running = &list.data[1];
    assert_eq!(running.id, Some(102));
    assert_eq!(running.status.as_deref(), Some("Running"));
    assert_eq!(running.worker_nodes[0].get("ip"), Some(&json!("10.0.0.5")));
    assert_eq!(running.reserve_ip[0].get("ip"), Some(&json!("203.0.113.7")));
    assert_eq!(running.name, None);
}

#[tokio::test]
async fn list_clusters_without_optional_params_sends_only_scope_and_apikey() {
    let server = mock_server().await;
    serve(
        &server,
        "GET",
        "/distributed_jobs_v2/cluster/",
        200,
        json!({"code": 200, "data": [], "errors": {}, "message": "Success"}),
    )
    .await;

    let list = client(&server)
        .list_clusters()
        .project_id(PROJECT)
        .location(Location::Delhi)
        .send()
        .await
        .unwrap()
        .into_inner();

    assert_request(
        &single_request(&server).await,
        Expect {
            method: "GET",
            path: "/distributed_jobs_v2/cluster/",
            query: &[("project_id", "10001"), ("location", "Delhi")],
            body: None,
        },
    );
    assert!(list.data.is_empty());
}

#[tokio::test]
async fn list_plans_sends_variant_and_keeps_undocumented_plan_items() {
    let server = mock_server().await;
    serve(
        &server,
        "GET",
        "/distributed_jobs_v2/cluster/plans/",
        200,
        json!({
            "code": 200,
            "data": [{"name": "C3.32GB", "sku_id": 139, "plans": [{"sku_item_price_id": 645, "sku_type": "hourly"}]}],
            "errors": {},
            "message": "Success"
        }),
    )
    .await;

    let plans = client(&server)
        .list_plans()
        .project_id(PROJECT)
        .location(Location::Delhi)
        .variant("e2e")
        .send()
        .await
        .unwrap()
        .into_inner();

    assert_request(
        &single_request(&server).await,
        Expect {
            method: "GET",
            path: "/distributed_jobs_v2/cluster/plans/",
            query: &[
                ("project_id", "10001"),
                ("location", "Delhi"),
                ("variant", "e2e"),
            ],
            body: None,
        },
    );
    assert_eq!(plans.code, Some(200));
    assert_eq!(plans.data.len(), 1);
    assert_eq!(plans.data[0].get("sku_id"), Some(&json!(139)));
    assert_eq!(plans.data[0]["plans"][0]["sku_item_price_id"], json!(645));
}

#[tokio::test]
async fn get_cluster_sends_id_with_trailing_slash_and_decodes() {
    let server = mock_server().await;
    serve(
        &server,
        "GET",
        &format!("/distributed_jobs_v2/cluster/{CLUSTER}/"),
        200,
        doc_cluster_envelope(200),
    )
    .await;

    let response = client(&server)
        .get_cluster()
        .cluster_id(CLUSTER)
        .project_id(PROJECT)
        .location(Location::Delhi)
        .active_iam(3)
        .send()
        .await
        .unwrap();

    assert_request(
        &single_request(&server).await,
        Expect {
            method: "GET",
            path: "/distributed_jobs_v2/cluster/101/",
            query: &[
                ("project_id", "10001"),
                ("location", "Delhi"),
                ("active_iam", "3"),
            ],
            body: None,
        },
    );
    assert_eq!(response.status().as_u16(), 200);
    let envelope = response.into_inner();
    assert_eq!(envelope.code, Some(200));
    assert_documented_cluster(envelope.data.as_ref().unwrap());
}

#[tokio::test]
async fn update_cluster_sends_each_action_with_only_its_fields() {
    let cases: Vec<(types::builder::ClusterActionRequest, Value)> = vec![
        (
            types::ClusterActionRequest::builder()
                .action(ClusterAction::UpdateSshKeys)
                .ssh_key_ids(vec![1001, 1002]),
            json!({"action": "update_ssh_keys", "ssh_key_ids": [1001, 1002]}),
        ),
        (
            types::ClusterActionRequest::builder()
                .action(ClusterAction::UpdateImage)
                .image_version_id(3_i64),
            json!({"action": "update_image", "image_version_id": 3}),
        ),
        (
            types::ClusterActionRequest::builder().action(ClusterAction::RestartWorkers),
            json!({"action": "restart_workers"}),
        ),
        (
            types::ClusterActionRequest::builder().action(ClusterAction::RestartCluster),
            json!({"action": "restart_cluster"}),
        ),
        (
            types::ClusterActionRequest::builder()
                .action(ClusterAction::ScaleCluster)
                .additional_nodes(2_i64),
            json!({"action": "scale_cluster", "additional_nodes": 2}),
        ),
        (
            types::ClusterActionRequest::builder()
                .action(ClusterAction::AttachIp)
                .reserved_ip_id(88_i64),
            json!({"action": "attach_ip", "reserved_ip_id": 88}),
        ),
        (
            types::ClusterActionRequest::builder()
                .action(ClusterAction::DetachIp)
                .reserved_ip_id(88_i64)
                .ip_type("public".to_string()),
            json!({"action": "detach_ip", "reserved_ip_id": 88, "ip_type": "public"}),
        ),
        (
            types::ClusterActionRequest::builder()
                .action(ClusterAction::AddSecurityGroup)
                .security_groups_ids(vec![11, 12]),
            json!({"action": "add_security_group", "security_groups_ids": [11, 12]}),
        ),
        (
            types::ClusterActionRequest::builder()
                .action(ClusterAction::RemoveSecurityGroup)
                .security_group_id(11_i64),
            json!({"action": "remove_security_group", "security_group_id": 11}),
        ),
    ];
    assert_eq!(cases.len(), ClusterAction::KNOWN_VALUES.len());

    for (body, expected) in cases {
        let server = mock_server().await;
        serve(
            &server,
            "PUT",
            "/distributed_jobs_v2/cluster/101/",
            200,
            json!({"code": 200, "data": {"id": CLUSTER, "status": "Updating"}, "errors": {}, "message": "Success"}),
        )
        .await;
        let response = client(&server)
            .update_cluster()
            .cluster_id(CLUSTER)
            .project_id(PROJECT)
            .location(Location::Chennai)
            .body(body)
            .send()
            .await
            .unwrap();
        assert_request(
            &single_request(&server).await,
            Expect {
                method: "PUT",
                path: "/distributed_jobs_v2/cluster/101/",
                query: &[("project_id", "10001"), ("location", "Chennai")],
                body: Some(expected),
            },
        );
        let envelope = response.into_inner();
        assert_eq!(envelope.code, Some(200));
        assert_eq!(
            envelope.data,
            Some(json!({"id": 101, "status": "Updating"}))
        );
        assert_eq!(envelope.message.as_deref(), Some("Success"));
    }
}

#[tokio::test]
async fn update_cluster_action_data_of_every_documented_shape_decodes() {
    // `data` is a cluster, a reserved-IP object, an empty object or a confirmation string.
    for data in [
        json!({"id": 101}),
        json!({"reserved_ip_id": 88, "ip": "203.0.113.7"}),
        json!({}),
        json!("Security group added successfully"),
    ] {
        let server = mock_server().await;
        serve(
            &server,
            "PUT",
            "/distributed_jobs_v2/cluster/101/",
            200,
            json!({"code": 200, "data": data, "errors": {}, "message": "Success"}),
        )
        .await;
        let envelope = client(&server)
            .update_cluster()
            .cluster_id(CLUSTER)
            .project_id(PROJECT)
            .location(Location::Delhi)
            .body_map(|b| b.action(ClusterAction::AttachIp).reserved_ip_id(88_i64))
            .send()
            .await
            .unwrap()
            .into_inner();
        assert_eq!(envelope.data, Some(data));
    }
}

#[tokio::test]
async fn delete_cluster_sends_delete_without_body_and_decodes_confirmation() {
    let server = mock_server().await;
    serve(
        &server,
        "DELETE",
        "/distributed_jobs_v2/cluster/101/",
        200,
        json!({"code": 200, "data": "Cluster deleted successfully", "errors": {}, "message": "Success"}),
    )
    .await;

    let envelope = client(&server)
        .delete_cluster()
        .cluster_id(CLUSTER)
        .project_id(PROJECT)
        .location(Location::Delhi)
        .active_iam(9)
        .send()
        .await
        .unwrap()
        .into_inner();

    assert_request(
        &single_request(&server).await,
        Expect {
            method: "DELETE",
            path: "/distributed_jobs_v2/cluster/101/",
            query: &[
                ("project_id", "10001"),
                ("location", "Delhi"),
                ("active_iam", "9"),
            ],
            body: None,
        },
    );
    assert_eq!(envelope.code, Some(200));
    assert_eq!(
        envelope.data.as_deref(),
        Some("Cluster deleted successfully")
    );
    assert_eq!(envelope.errors, Some(json!({})));
    assert_eq!(envelope.message.as_deref(), Some("Success"));
}

#[tokio::test]
async fn list_images_sends_framework_in_path_and_job_type_in_query() {
    let server = mock_server().await;
    serve(
        &server,
        "GET",
        "/distributed_jobs_v2/deployment_images/Slurm/",
        200,
        json!({
            "code": 200,
            "data": [{"name": "Ubuntu Slurm", "slug_name": "ubuntu-slurm", "framework": "Slurm", "versions": [{"id": 2, "version": "v2-slurm25.11-ubuntu24.04"}]}],
            "errors": {},
            "message": "Success"
        }),
    )
    .await;

    let images = client(&server)
        .list_images()
        .framework("Slurm")
        .job_type("Slurm")
        .project_id(PROJECT)
        .location(Location::Delhi)
        .send()
        .await
        .unwrap()
        .into_inner();

    assert_request(
        &single_request(&server).await,
        Expect {
            method: "GET",
            path: "/distributed_jobs_v2/deployment_images/Slurm/",
            query: &[
                ("project_id", "10001"),
                ("location", "Delhi"),
                ("job_type", "Slurm"),
            ],
            body: None,
        },
    );
    assert_eq!(images.data.len(), 1);
    assert_eq!(
        images.data[0].get("slug_name"),
        Some(&json!("ubuntu-slurm"))
    );
    assert_eq!(images.data[0]["versions"][0]["id"], json!(2));
}

#[tokio::test]
async fn path_segments_are_percent_encoded_and_base_url_slash_is_not_doubled() {
    let server = mock_server().await;
    Mock::given(method("GET"))
        .respond_with(
            ResponseTemplate::new(200)
                .set_body_json(json!({"code": 200, "data": [], "errors": {}, "message": "ok"})),
        )
        .mount(&server)
        .await;
    let c = Client::from_credentials(&format!("{}{STEM}/", server.uri()), credentials()).unwrap();
    c.list_images()
        .framework("a b/c")
        .job_type("a b/c")
        .project_id(PROJECT)
        .location(Location::Delhi)
        .send()
        .await
        .unwrap();
    let request = single_request(&server).await;
    assert_eq!(
        request.url.path(),
        format!("{STEM}/distributed_jobs_v2/deployment_images/a%20b%2Fc/")
    );
    assert_eq!(query_map(&request)["job_type"], "a b/c");
}

// ---------------------------------------------------------------------------------------------
// 2. The documented example requests
// ---------------------------------------------------------------------------------------------

#[tokio::test]
async fn documented_request_fixtures_are_sent_unchanged() {
    let requests: Vec<_> = fixture_index(PROVIDER)
        .into_iter()
        .filter(|e| e.kind == "request")
        .collect();
    let files: Vec<_> = requests.iter().map(|e| e.file.as_str()).collect();
    assert_eq!(
        files,
        [
            "create_cluster.request.json",
            "create_cluster.request.curl.json"
        ]
    );

    for entry in &requests {
        assert_eq!(entry.schema, "CreateClusterRequest");
        let doc = fixture(PROVIDER, &entry.file);
        let typed: types::CreateClusterRequest = serde_json::from_value(doc.clone()).unwrap();
        assert_eq!(typed.sfs_mount_list.len(), 1);
        assert_eq!(typed.pfs_mount_list.len(), 1);
        assert!(typed.pfs_mount_list[0].is_empty());
        assert_eq!(typed.dataset_mount_list.len(), 1);
        assert_eq!(typed.ssh_key_ids.len(), 1);
        assert!(typed.script_added.is_some());

        let server = mock_server().await;
        serve(
            &server,
            "POST",
            "/distributed_jobs_v2/cluster/",
            201,
            fixture(PROVIDER, "create_cluster.response.201.json"),
        )
        .await;
        client(&server)
            .create_cluster()
            .project_id(PROJECT)
            .location(Location::Delhi)
            .body(typed)
            .send()
            .await
            .unwrap();
        // Every key and value survives, `script_added: false` and the `{}` mounts included.
        assert_request(
            &single_request(&server).await,
            Expect {
                method: "POST",
                path: "/distributed_jobs_v2/cluster/",
                query: &[("project_id", "10001"), ("location", "Delhi")],
                body: Some(doc),
            },
        );
    }
}

#[test]
fn empty_optional_lists_are_dropped_but_required_ssh_key_ids_is_kept() {
    // The typed round trip drops an optional list when it is empty (skip_serializing_if
    // Vec::is_empty); the required `ssh_key_ids` is always sent, even empty.
    let doc = json!({
        "name": "n",
        "image_version_id": 1,
        "ssh_key_ids": [],
        "security_group_id": 1,
        "sfs_mount_list": [],
        "pfs_mount_list": [],
        "dataset_mount_list": [],
        "sku_id": 1,
        "no_of_nodes": 1,
        "sku_item_price_id": 1
    });
    let typed: types::CreateClusterRequest = serde_json::from_value(doc).unwrap();
    assert_eq!(
        serde_json::to_value(&typed).unwrap(),
        json!({
            "name": "n",
            "image_version_id": 1,
            "ssh_key_ids": [],
            "security_group_id": 1,
            "sku_id": 1,
            "no_of_nodes": 1,
            "sku_item_price_id": 1
        })
    );

    // Likewise `update_ssh_keys` with an empty list goes out without `ssh_key_ids`.
    let action = types::ClusterActionRequest::try_from(
        types::ClusterActionRequest::builder()
            .action(ClusterAction::UpdateSshKeys)
            .ssh_key_ids(Vec::<i64>::new()),
    )
    .unwrap();
    assert_eq!(
        serde_json::to_value(&action).unwrap(),
        json!({"action": "update_ssh_keys"})
    );
}

// ---------------------------------------------------------------------------------------------
// 3. Documented responses and error shapes
// ---------------------------------------------------------------------------------------------

#[test]
fn documented_response_fixture_decodes() {
    let responses: Vec<_> = fixture_index(PROVIDER)
        .into_iter()
        .filter(|e| e.kind == "response")
        .collect();
    assert_eq!(responses.len(), 1);
    assert_eq!(responses[0].status, Some(201));
    let typed: types::ClusterResponse =
        serde_json::from_value(fixture(PROVIDER, &responses[0].file)).unwrap();
    assert_eq!(typed.code, Some(201));
    assert_documented_cluster(typed.data.as_ref().unwrap());
}

async fn create_answered(
    template: ResponseTemplate,
) -> Result<ResponseValue<types::ClusterResponse>, Error<types::E2eError>> {
    let server = mock_server().await;
    serve_template(&server, "POST", "/distributed_jobs_v2/cluster/", template).await;
    client(&server)
        .create_cluster()
        .project_id(PROJECT)
        .location(Location::Delhi)
        .body(full_body())
        .send()
        .await
}

#[tokio::test]
async fn every_indexed_error_fixture_is_an_error_response() {
    let errors: Vec<_> = fixture_index(PROVIDER)
        .into_iter()
        .filter(|e| e.kind == "error")
        .collect();
    assert_eq!(errors.len(), 3);
    for entry in errors {
        assert_eq!(entry.schema, "E2eError");
        let status = entry.status.unwrap();
        let doc = fixture(PROVIDER, &entry.file);
        let result = create_answered(ResponseTemplate::new(status).set_body_json(&doc)).await;
        assert_no_secret(result.as_ref().unwrap_err());
        let value = error_response(result);
        assert_eq!(value.status().as_u16(), status);
        let error = value.into_inner();
        match entry.file.as_str() {
            "error.400.json" => {
                assert_eq!(error.code, Some(400));
                assert_eq!(error.message.as_deref(), Some("Bad Request"));
                assert_eq!(
                    error.errors,
                    Some(json!({"sku_id": ["This field is required."]}))
                );
                assert_eq!(error.detail, None);
            }
            "error.401.json" => {
                assert_eq!(error.code, Some(401));
                assert_eq!(error.message.as_deref(), Some("Unauthorized access."));
                assert_eq!(error.errors, None);
                assert_eq!(error.detail, None);
            }
            "error.401.detail.json" => {
                assert_eq!(
                    error,
                    types::E2eError {
                        detail: Some("Authentication credentials were not provided.".into()),
                        ..Default::default()
                    }
                );
            }
            other => panic!("unexpected error fixture {other}"),
        }
    }
}

#[tokio::test]
async fn status_code_error_shape_and_other_operations_errors_decode() {
    let server = mock_server().await;
    serve(
        &server,
        "GET",
        "/distributed_jobs_v2/cluster/",
        401,
        json!({"status_code": 401, "message": "Invalid token"}),
    )
    .await;
    serve(
        &server,
        "DELETE",
        "/distributed_jobs_v2/cluster/101/",
        400,
        json!({"code": 400, "errors": {"cluster_id": ["Cluster is still creating."]}, "message": "Bad Request"}),
    )
    .await;
    let c = client(&server);

    let value = error_response(
        c.list_clusters()
            .project_id(PROJECT)
            .location(Location::Delhi)
            .send()
            .await,
    );
    assert_eq!(value.status().as_u16(), 401);
    assert_eq!(value.status_code, Some(401));
    assert_eq!(value.message.as_deref(), Some("Invalid token"));
    assert_eq!(value.code, None);

    let value = error_response(
        c.delete_cluster()
            .cluster_id(CLUSTER)
            .project_id(PROJECT)
            .location(Location::Delhi)
            .send()
            .await,
    );
    assert_eq!(value.status().as_u16(), 400);
    assert_eq!(
        value.errors.as_ref().unwrap()["cluster_id"][0],
        json!("Cluster is still creating.")
    );
}

#[tokio::test]
async fn failure_reported_with_http_200_is_an_ok_envelope_the_caller_must_check() {
    // E2E sometimes answers HTTP 200 with `code >= 400` or `errors: true`; the generated client
    // returns Ok and the envelope carries the failure.
    let server = mock_server().await;
    serve(
        &server,
        "GET",
        "/distributed_jobs_v2/cluster/",
        200,
        json!({"code": 400, "data": [], "errors": true, "message": "Invalid project"}),
    )
    .await;
    let list = client(&server)
        .list_clusters()
        .project_id(PROJECT)
        .location(Location::Delhi)
        .send()
        .await
        .unwrap()
        .into_inner();
    assert_eq!(list.code, Some(400));
    assert_eq!(list.errors, Some(json!(true)));
    assert_eq!(list.message.as_deref(), Some("Invalid project"));
}

// ---------------------------------------------------------------------------------------------
// 4. Forward compatibility
// ---------------------------------------------------------------------------------------------

#[tokio::test]
async fn unknown_plan_type_unknown_fields_and_documented_nulls_decode() {
    let mut body = doc_cluster_envelope(200);
    let data = &mut body["data"];
    data["sku_details"]["plan"]["sku_type"] = json!("spot");
    data["sku_details"]["plan"]["location"] = json!("Mumbai");
    data["sku_details"]["plan"]["brand_new_plan_field"] = json!({"x": 1});
    data["brand_new_field"] = json!([1, 2, 3]);
    data["status"] = json!("Hibernating");
    // The five documented nullable fields are explicit nulls in the example, not absent keys.
    for key in [
        "private_cloud_id",
        "private_cloud_name",
        "local_storage_per_node",
    ] {
        assert_eq!(data.get(key), Some(&Value::Null), "{key}");
    }
    body["request_id"] = json!("abc");

    let server = mock_server().await;
    serve(
        &server,
        "GET",
        "/distributed_jobs_v2/cluster/101/",
        200,
        body,
    )
    .await;
    let cluster = client(&server)
        .get_cluster()
        .cluster_id(CLUSTER)
        .project_id(PROJECT)
        .location(Location::Delhi)
        .send()
        .await
        .unwrap()
        .into_inner()
        .data
        .unwrap();

    let plan = cluster.sku_details.as_ref().unwrap().plan.as_ref().unwrap();
    let sku_type = plan.sku_type.clone().unwrap();
    assert_eq!(sku_type, PlanSkuType::Unknown("spot".into()));
    assert!(!sku_type.is_known());
    assert_eq!(sku_type.as_str(), "spot");
    assert_eq!(serde_json::to_value(&sku_type).unwrap(), json!("spot"));
    assert_eq!(
        serde_json::from_value::<PlanSkuType>(json!("spot")).unwrap(),
        sku_type
    );
    // Response locations are plain strings: an undocumented region decodes as is.
    assert_eq!(plan.location.as_deref(), Some("Mumbai"));
    assert_eq!(cluster.status.as_deref(), Some("Hibernating"));

    // Documented nullable fields.
    assert_eq!(cluster.private_cloud_id, None);
    assert_eq!(cluster.private_cloud_name, None);
    assert_eq!(cluster.local_storage_per_node, None);
    assert_eq!(
        cluster
            .sku_details
            .as_ref()
            .unwrap()
            .specs
            .as_ref()
            .unwrap()
            .gpu_card_type,
        None
    );
    assert_eq!(plan.description, None);

    // Re-serialized: unknown enum kept verbatim, unknown fields and nulls dropped.
    let again = serde_json::to_value(&cluster).unwrap();
    assert_eq!(again["sku_details"]["plan"]["sku_type"], json!("spot"));
    assert!(again.get("brand_new_field").is_none());
    assert!(again.get("private_cloud_id").is_none());
    assert_eq!(
        serde_json::from_value::<types::TrainingCluster>(again).unwrap(),
        cluster
    );
}

#[tokio::test]
async fn unknown_location_and_action_are_sent_verbatim() {
    assert_eq!(Location::KNOWN_VALUES, &["Delhi", "Chennai"]);
    let mumbai = Location::from("Mumbai");
    assert_eq!(mumbai, Location::Unknown("Mumbai".into()));
    assert!(!mumbai.is_known());
    assert_eq!(serde_json::to_value(&mumbai).unwrap(), json!("Mumbai"));
    assert_eq!(
        serde_json::from_value::<Location>(json!("Mumbai")).unwrap(),
        mumbai
    );
    assert_eq!(
        serde_json::from_value::<Location>(json!("Delhi")).unwrap(),
        Location::Delhi
    );
    for raw in ClusterAction::KNOWN_VALUES {
        assert_eq!(ClusterAction::from(*raw).as_str(), *raw);
        assert!(ClusterAction::from(*raw).is_known());
    }

    let server = mock_server().await;
    serve(
        &server,
        "PUT",
        "/distributed_jobs_v2/cluster/101/",
        200,
        json!({"code": 200, "data": {}, "errors": {}, "message": "Success"}),
    )
    .await;
    client(&server)
        .update_cluster()
        .cluster_id(CLUSTER)
        .project_id(PROJECT)
        .location("Mumbai")
        .body_map(|b| b.action(ClusterAction::Unknown("resize_disk".into())))
        .send()
        .await
        .unwrap();
    assert_request(
        &single_request(&server).await,
        Expect {
            method: "PUT",
            path: "/distributed_jobs_v2/cluster/101/",
            query: &[("project_id", "10001"), ("location", "Mumbai")],
            body: Some(json!({"action": "resize_disk"})),
        },
    );
}

// ---------------------------------------------------------------------------------------------
// 5. Secret hygiene
// ---------------------------------------------------------------------------------------------

#[tokio::test]
async fn transport_errors_show_neither_apikey_nor_token() {
    let c = unreachable_client();
    let errors = [
        c.create_cluster()
            .project_id(PROJECT)
            .location(Location::Delhi)
            .body(full_body())
            .send()
            .await
            .map(|_| ())
            .unwrap_err(),
        c.list_clusters()
            .project_id(PROJECT)
            .location(Location::Delhi)
            .send()
            .await
            .map(|_| ())
            .unwrap_err(),
        c.delete_cluster()
            .cluster_id(CLUSTER)
            .project_id(PROJECT)
            .location(Location::Delhi)
            .send()
            .await
            .map(|_| ())
            .unwrap_err(),
    ];
    for err in errors {
        assert!(matches!(err, Error::CommunicationError(_)), "{err:?}");
        assert_no_secret(&err);
        if let Error::CommunicationError(inner) = &err {
            assert!(inner.url().is_none(), "the URL (with apikey) is stripped");
            let mut source: Option<&dyn std::error::Error> = Some(inner);
            while let Some(s) = source {
                assert_text_has_no_secret(&format!("{s} {s:?}"));
                source = s.source();
            }
        }
    }
}

#[tokio::test]
async fn error_response_shows_neither_apikey_nor_token() {
    let server = mock_server().await;
    serve(
        &server,
        "POST",
        "/distributed_jobs_v2/cluster/",
        400,
        fixture(PROVIDER, "error.400.json"),
    )
    .await;
    let err = client(&server)
        .create_cluster()
        .project_id(PROJECT)
        .location(Location::Delhi)
        .body(full_body())
        .send()
        .await
        .unwrap_err();
    // The credentials were really sent, so their absence from the error means something.
    let request = single_request(&server).await;
    assert_eq!(query_map(&request)["apikey"], API_KEY);
    assert!(matches!(err, Error::ErrorResponse(_)));
    assert_no_secret(&err);
}

#[tokio::test]
async fn unexpected_responses_show_the_redacted_url_only() {
    for status in [418, 503, 404] {
        let server = mock_server().await;
        // None of these is declared for create_cluster (201, 200, 400, 401).
        serve(
            &server,
            "POST",
            "/distributed_jobs_v2/cluster/",
            status,
            json!({"detail": "nope"}),
        )
        .await;
        let err = client(&server)
            .create_cluster()
            .project_id(PROJECT)
            .location(Location::Delhi)
            .body(full_body())
            .send()
            .await
            .unwrap_err();
        assert_eq!(query_map(&single_request(&server).await)["apikey"], API_KEY);
        assert_no_secret(&err);
        let text = err.to_string();
        assert!(text.contains("apikey=REDACTED"), "{text}");
        match err {
            Error::UnexpectedResponse(response) => {
                assert_eq!(response.status().as_u16(), status);
                let url = response.url().clone();
                assert_eq!(
                    url.query_pairs().find(|(k, _)| k == "apikey").unwrap().1,
                    "REDACTED"
                );
                assert_eq!(query_map_of(&url)["project_id"], "10001");
                assert_no_secret(&format!("{response:?}"));
                // The body is still readable.
                assert_eq!(response.text().await.unwrap(), r#"{"detail":"nope"}"#);
            }
            other => panic!("expected UnexpectedResponse, got {other:?}"),
        }
    }
}

fn query_map_of(url: &reqwest::Url) -> BTreeMap<String, String> {
    url.query_pairs()
        .map(|(k, v)| (k.into_owned(), v.into_owned()))
        .collect()
}

#[tokio::test]
async fn invalid_response_payloads_show_neither_apikey_nor_token() {
    let html = "<html><head><title>502 Bad Gateway</title></head><body>nginx</body></html>";
    // Declared statuses (200 success, 400 and 401 errors) whose body is not the JSON declared.
    for status in [200, 400, 401] {
        let server = mock_server().await;
        serve_template(
            &server,
            "GET",
            "/distributed_jobs_v2/cluster/",
            ResponseTemplate::new(status).set_body_raw(html, "text/html"),
        )
        .await;
        let err = client(&server)
            .list_clusters()
            .project_id(PROJECT)
            .location(Location::Delhi)
            .send()
            .await
            .unwrap_err();
        assert_no_secret(&err);
        match err {
            Error::InvalidResponsePayload(bytes, _) => assert_eq!(&bytes[..], html.as_bytes()),
            other => panic!("expected InvalidResponsePayload, got {other:?}"),
        }
    }

    // An undeclared 502 HTML page is an UnexpectedResponse, also clean.
    let server = mock_server().await;
    serve_template(
        &server,
        "GET",
        "/distributed_jobs_v2/cluster/",
        ResponseTemplate::new(502).set_body_raw(html, "text/html"),
    )
    .await;
    let err = client(&server)
        .list_clusters()
        .project_id(PROJECT)
        .location(Location::Delhi)
        .send()
        .await
        .unwrap_err();
    assert!(matches!(err, Error::UnexpectedResponse(_)), "{err:?}");
    assert_no_secret(&err);
}

#[tokio::test]
async fn client_and_credentials_debug_show_neither_secret() {
    let server = mock_server().await;
    let c = client(&server);
    let debug = format!("{c:?} {c:#?}");
    assert_text_has_no_secret(&debug);
    assert!(debug.contains("REDACTED"), "{debug}");

    let creds = credentials();
    let debug = format!("{creds:?} {creds:#?}");
    assert_text_has_no_secret(&debug);
    assert_eq!(
        format!("{creds:?}"),
        "Credentials { api_key: Secret([REDACTED]), auth_token: Secret([REDACTED]) }"
    );
}

#[test]
fn bad_credentials_are_named_not_shown() {
    let err = Credentials::new("e2eKEY-Qv7Lm2Pz9x with space", TOKEN).unwrap_err();
    assert_eq!(
        err.to_string(),
        "the API key contains whitespace, control or non-ASCII characters"
    );
    assert_no_secret(&err);
    let err = Credentials::new(API_KEY, "").unwrap_err();
    assert_eq!(err.to_string(), "the auth token is empty");
    let err = Credentials::new(API_KEY, "e2eTOKEN.Hb4Ns8Wd3k\n").unwrap_err();
    assert_eq!(err.credential, "auth token");
    assert_no_secret(&err);
}

#[test]
fn base_url_error_does_not_echo_an_apikey_in_the_url() {
    let url = format!("https://api.e2enetworks.com/myaccount/api/v1/gpu/?apikey={API_KEY}");
    let err = Client::from_credentials(&url, credentials()).unwrap_err();
    assert!(err.to_string().starts_with("invalid base URL"));
    assert_no_secret(&err);
}

// ---------------------------------------------------------------------------------------------
// 6. Client-side validation before any network call
// ---------------------------------------------------------------------------------------------

#[tokio::test]
async fn missing_required_parameters_and_body_fields_are_rejected_before_sending() {
    let server = mock_server().await;
    let c = client(&server);

    assert_eq!(
        invalid_request(c.list_clusters().project_id(PROJECT).send().await),
        "location was not initialized"
    );
    assert_eq!(
        invalid_request(c.list_clusters().location(Location::Delhi).send().await),
        "project_id was not initialized"
    );
    assert_eq!(
        invalid_request(
            c.list_plans()
                .project_id(PROJECT)
                .location(Location::Delhi)
                .send()
                .await
        ),
        "variant was not initialized"
    );
    assert_eq!(
        invalid_request(
            c.get_cluster()
                .project_id(PROJECT)
                .location(Location::Delhi)
                .send()
                .await
        ),
        "cluster_id was not initialized"
    );
    assert_eq!(
        invalid_request(
            c.delete_cluster()
                .project_id(PROJECT)
                .location(Location::Delhi)
                .send()
                .await
        ),
        "cluster_id was not initialized"
    );
    assert_eq!(
        invalid_request(
            c.list_images()
                .job_type("Slurm")
                .project_id(PROJECT)
                .location(Location::Delhi)
                .send()
                .await
        ),
        "framework was not initialized"
    );
    assert_eq!(
        invalid_request(
            c.list_images()
                .framework("Slurm")
                .project_id(PROJECT)
                .location(Location::Delhi)
                .send()
                .await
        ),
        "job_type was not initialized"
    );
    assert_eq!(
        invalid_request(
            c.create_cluster()
                .project_id(PROJECT)
                .location(Location::Delhi)
                .body_map(|b| {
                    b.name("n")
                        .image_version_id(1)
                        .ssh_key_ids(vec![1])
                        .security_group_id(1)
                        .no_of_nodes(1)
                        .sku_item_price_id(1)
                })
                .send()
                .await
        ),
        "no value supplied for sku_id"
    );
    assert_eq!(
        invalid_request(
            c.create_cluster()
                .project_id(PROJECT)
                .location(Location::Delhi)
                .send()
                .await
        ),
        "no value supplied for image_version_id"
    );
    assert_eq!(
        invalid_request(
            c.update_cluster()
                .cluster_id(CLUSTER)
                .project_id(PROJECT)
                .location(Location::Delhi)
                .body_map(|b| b.additional_nodes(2_i64))
                .send()
                .await
        ),
        "no value supplied for action"
    );

    assert!(received(&server).await.is_empty(), "nothing may be sent");
}
