//! Reads retried then decoded; list and delete, which Runcrate lacks, send nothing.

use gpucloud::{ClusterId, Error, ProviderKind};
use serde_json::json;
use wiremock::Mock;
use wiremock::matchers::{method, path};

use super::{CLUSTERS, ID, NAME, error_body};
use crate::support::*;

#[tokio::test]
async fn list_and_delete_are_unsupported_and_send_nothing() {
    let api = Api::start().await;
    let client = api.runcrate();

    let list = client.list().await.unwrap_err();
    let delete = client.delete(&ClusterId::new(ID)).await.unwrap_err();

    assert!(
        matches!(
            list,
            Error::Unsupported {
                provider: ProviderKind::Runcrate,
                ..
            }
        ),
        "{list:?}"
    );
    assert!(
        matches!(
            delete,
            Error::Unsupported {
                provider: ProviderKind::Runcrate,
                ..
            }
        ),
        "{delete:?}"
    );
    assert_eq!(
        list.to_string(),
        "runcrate does not support listing clusters"
    );
    assert_eq!(
        delete.to_string(),
        "runcrate does not support deleting clusters"
    );
    assert!(!list.is_retryable());
    assert!(api.all().await.is_empty());
}

#[tokio::test]
async fn get_retries_500_then_decodes() {
    let api = Api::start().await;
    Mock::given(method("GET"))
        .and(path(format!("{CLUSTERS}/{ID}")))
        .respond_with(seq([
            json_response(500, &error_body("internal", "oops", None)),
            json_response(200, &runcrate_cluster(ID, NAME)),
        ]))
        .mount(&api.server)
        .await;

    let cluster = api.runcrate().get(&ClusterId::new(ID)).await.unwrap();

    assert_eq!(cluster.id, ClusterId::new(ID));
    assert_eq!(cluster.phase.as_deref(), Some("provisioning"));
    assert_eq!(api.count("GET", &format!("{CLUSTERS}/{ID}")).await, 2);
    assert_eq!(api.sleeps().len(), 1);
    api.assert_all_matched();
}

#[tokio::test]
async fn get_with_a_non_uuid_id_sends_nothing() {
    let api = Api::start().await;

    let error = api
        .runcrate()
        .get(&ClusterId::new("not-a-uuid"))
        .await
        .unwrap_err();

    assert!(matches!(error, Error::Validation(_)), "{error:?}");
    assert!(api.all().await.is_empty());
}

#[tokio::test]
async fn an_offer_list_marked_incomplete_is_warned_about_and_still_used() {
    let capture = crate::support::capture::Capture::global();
    let api = Api::start().await;
    let offer = json!({"id": "offer-1", "min_nodes": 1, "max_nodes": 4});
    for (total, has_more) in [(424_242, true), (434_343, false)] {
        api.reset().await;
        Mock::given(method("GET"))
            .and(path(format!("{CLUSTERS}/offers")))
            .respond_with(json_response(
                200,
                &json!({"data": [offer], "meta": {"cursor": "c2", "hasMore": has_more, "total": total}}),
            ))
            .expect(1)
            .mount(&api.server)
            .await;
        let catalog = api.runcrate().catalog().await.unwrap();
        assert_eq!(catalog.len(), 1);
        assert_eq!(
            catalog[0].ids,
            gpucloud::catalog::OfferingIds::Runcrate {
                offer_id: "offer-1".into()
            }
        );
        api.server.verify().await;
    }
    let lines = capture.lines();
    let warned = |total: &str| {
        lines
            .iter()
            .filter(|line| line.starts_with("WARN ") && line.contains(total))
            .cloned()
            .collect::<Vec<_>>()
    };
    let incomplete = warned("total=Some(424242)");
    assert_eq!(incomplete.len(), 1, "{lines:#?}");
    assert!(
        incomplete[0].contains("offers=1") && incomplete[0].contains("meta.hasMore"),
        "{incomplete:?}"
    );
    assert_eq!(warned("total=Some(434343)"), Vec::<String>::new());
}
