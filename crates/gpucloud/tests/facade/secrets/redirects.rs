//! A credential goes only to the origin the user configured: a redirect to another origin is
//! not followed (whatever it carries: E2E's `apikey` repeated in its query, a downgrade to
//! `http://`), one within the origin is, and a plain `http://` endpoint other than loopback
//! is refused before anything is sent.

use gpucloud::{ClusterClient, ClusterId, Error, TogetherConfig};
use wiremock::matchers::{any, method, path};
use wiremock::{Mock, MockServer, ResponseTemplate};

use crate::support::*;

/// Answers every request at `api` with a redirect to `location`.
async fn redirect_everything(api: &Api, location: &str) {
    Mock::given(any())
        .respond_with(ResponseTemplate::new(302).insert_header("Location", location))
        .with_priority(1)
        .mount(&api.server)
        .await;
}

#[tokio::test]
async fn a_redirect_to_another_origin_is_not_followed_on_any_provider() {
    let elsewhere = MockServer::start().await;
    Mock::given(any())
        .respond_with(ResponseTemplate::new(200))
        .mount(&elsewhere)
        .await;
    // The key repeated in the query, as a server that keeps the query would send it.
    let location = format!("{}/collect?apikey={E2E_API_KEY}", elsewhere.uri());
    let api = Api::start().await;
    redirect_everything(&api, &location).await;

    for client in [api.together(), api.runcrate(), api.e2e()] {
        let id = match client.provider() {
            gpucloud::ProviderKind::Runcrate => "3c90c3cc-0d44-4b50-8888-8dd25736052a",
            gpucloud::ProviderKind::E2e => "101",
            _ => "c-1",
        };
        let error = client.get(&ClusterId::new(id)).await.unwrap_err();
        assert_eq!(
            error.status(),
            Some(302),
            "{:?}: {error:?}",
            client.provider()
        );
        super::assert_no_secret("a refused redirect", &super::renderings(&error));
    }
    let reached = elsewhere.received_requests().await.unwrap_or_default();
    assert!(
        reached.is_empty(),
        "another origin was sent: {:?}",
        reached
            .iter()
            .map(|r| r.url.to_string())
            .collect::<Vec<_>>()
    );
}

#[tokio::test]
async fn a_redirect_within_the_origin_is_followed() {
    let api = Api::start().await;
    Mock::given(method("GET"))
        .and(path("/compute/clusters/c-1"))
        .respond_with(
            ResponseTemplate::new(307).insert_header("Location", "/compute/clusters/c-1-moved"),
        )
        .mount(&api.server)
        .await;
    mount(
        &api,
        "GET",
        "/compute/clusters/c-1-moved",
        json_response(
            200,
            &together_cluster("c-1", "train-42", "Ready", &["CLUSTER_PHASE_READY"]),
        ),
    )
    .await;

    let cluster = api.together().get(&ClusterId::new("c-1")).await.unwrap();

    assert_eq!(cluster.id.as_str(), "c-1");
    let moved = api.requests("GET", "/compute/clusters/c-1-moved").await;
    assert_eq!(moved.len(), 1);
    assert_eq!(
        header(&moved[0], "authorization").as_deref(),
        Some(format!("Bearer {TOGETHER_KEY}").as_str())
    );
}

#[tokio::test]
async fn a_key_over_plain_http_goes_only_to_loopback() {
    let error = ClusterClient::together(
        TogetherConfig::new(TOGETHER_KEY).with_base_url("http://api.together.xyz/v1"),
    )
    .unwrap_err();
    let Error::Configuration { problem, .. } = &error else {
        panic!("{error:?}")
    };
    assert!(problem.contains("loopback"), "{problem}");
    super::assert_no_secret("a refused base URL", &super::renderings(&error));
    assert!(
        ClusterClient::together(
            TogetherConfig::new(TOGETHER_KEY).with_base_url("https://api.together.xyz/v1")
        )
        .is_ok()
    );
}
