//! Plans and deployment images, and path segments percent-encoded below the base URL.

use gpucloud_e2e::Client;
use gpucloud_e2e::types::Location;
use gpucloud_integration_tests::{mock_server, query_map, single_request};
use serde_json::json;
use wiremock::matchers::method;
use wiremock::{Mock, ResponseTemplate};

use crate::harness::{Expect, assert_request, client, credentials, serve};
use crate::{PROJECT, STEM};

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
