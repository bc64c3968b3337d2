//! Documented and realistic error envelopes, undeclared statuses and bodies that are not JSON.

use gpucloud_integration_tests::{error_response, fixture, mock_server};
use gpucloud_runcrate::{Error, types};
use serde_json::{Value, json};
use wiremock::ResponseTemplate;

use crate::harness::{assert_no_key, client, create_cluster_answered, serve};
use crate::{CLUSTER_ID, PROVIDER};

/// The documented `error` object of an envelope (failing the test when it is not there).
fn documented(envelope: types::ErrorEnvelope) -> types::ErrorBody {
    match envelope.error {
        Some(types::ErrorEnvelopeError::ErrorBody(body)) => body,
        other => panic!("expected the documented error object, got {other:?}"),
    }
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
        let error = documented(value.into_inner());
        assert_eq!(error.code.as_deref(), Some("<string>"));
        assert_eq!(error.message.as_deref(), Some("<string>"));
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
        let error = documented(value.into_inner());
        assert_eq!(error.code.as_deref(), Some(case.code));
        assert_eq!(
            error.message.as_deref(),
            case.body["error"]["message"].as_str()
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
    let error = documented(not_found.into_inner());
    assert_eq!(error.code.as_deref(), Some("not_found"));
    assert_eq!(error.message.as_deref(), Some("Cluster not found"));

    let unauthorized = error_response(c.list_offers().send().await);
    assert_eq!(unauthorized.status().as_u16(), 401);
    let error = documented(unauthorized.into_inner());
    assert_eq!(error.code.as_deref(), Some("unauthorized"));
}

/// The three other error shapes Runcrate's Python SDK 0.5.0 reads (`_extract_error_info`)
/// decode as the typed envelope, not as an undecodable payload.
#[tokio::test]
async fn the_other_error_shapes_the_python_sdk_reads_decode() {
    let cases = [
        (401, json!({"error": "Invalid API key"})),
        (409, json!({"message": "Key in use", "code": "conflict"})),
        (422, json!({"detail": "node_count: must be at least 2"})),
        (
            400,
            json!({"detail": [{"loc": ["body", "name"], "msg": "required"}]}),
        ),
    ];
    for (status, body) in cases {
        let (_server, result) =
            create_cluster_answered(ResponseTemplate::new(status).set_body_json(&body)).await;
        let value = error_response(result);
        assert_eq!(value.status().as_u16(), status);
        let envelope = value.into_inner();
        assert_eq!(serde_json::to_value(&envelope).unwrap(), body, "round trip");
        match status {
            401 => assert_eq!(
                envelope.error,
                Some(types::ErrorEnvelopeError::String("Invalid API key".into()))
            ),
            409 => {
                assert_eq!(envelope.message.as_deref(), Some("Key in use"));
                assert_eq!(envelope.code, Some(json!("conflict")));
            }
            _ => assert_eq!(envelope.detail.as_ref(), body.get("detail")),
        }
    }
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
