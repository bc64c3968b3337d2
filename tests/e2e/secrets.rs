//! Secret hygiene: neither the `apikey` nor the token shows in any error, URL or `Debug` output.

use std::collections::BTreeMap;

use gpucloud_e2e::auth::Credentials;
use gpucloud_e2e::types::Location;
use gpucloud_e2e::{Client, Error};
use gpucloud_integration_tests::{fixture, mock_server, query_map, single_request};
use serde_json::json;
use wiremock::ResponseTemplate;

use crate::documented::full_body;
use crate::harness::{
    assert_no_secret, assert_text_has_no_secret, client, credentials, serve, serve_template,
    unreachable_client,
};
use crate::{API_KEY, CLUSTER, PROJECT, PROVIDER, TOKEN};

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
