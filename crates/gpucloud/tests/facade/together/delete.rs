//! Deletes: a 404 after an ambiguous failure means the first attempt worked.

use gpucloud::{ClusterId, Error};
use serde_json::json;
use wiremock::Mock;
use wiremock::matchers::{method, path};

use super::{CLUSTERS, ID, envelope};
use crate::support::*;

#[tokio::test]
async fn delete_404_after_a_502_means_the_first_attempt_worked() {
    let api = Api::start().await;
    Mock::given(method("DELETE"))
        .and(path(format!("{CLUSTERS}/{ID}")))
        .respond_with(seq([
            json_response(502, &envelope("bad gateway")),
            json_response(404, &json!({"message": "not found"})),
        ]))
        .mount(&api.server)
        .await;

    api.together().delete(&ClusterId::new(ID)).await.unwrap();

    assert_eq!(api.count("DELETE", &format!("{CLUSTERS}/{ID}")).await, 2);
    assert_eq!(api.sleeps().len(), 1);
    api.assert_all_matched();
}

#[tokio::test]
async fn delete_404_on_the_first_attempt_is_not_found() {
    let api = Api::start().await;
    Mock::given(method("DELETE"))
        .and(path(format!("{CLUSTERS}/{ID}")))
        .respond_with(json_response(404, &json!({"message": "not found"})))
        .mount(&api.server)
        .await;

    let error = api
        .together()
        .delete(&ClusterId::new(ID))
        .await
        .unwrap_err();

    assert!(matches!(error, Error::NotFound(_)), "{error:?}");
    assert_eq!(api.count("DELETE", &format!("{CLUSTERS}/{ID}")).await, 1);
    api.assert_all_matched();
}

#[tokio::test]
async fn delete_succeeds_with_the_documented_body() {
    let api = Api::start().await;
    Mock::given(method("DELETE"))
        .and(path(format!("{CLUSTERS}/{ID}")))
        .respond_with(json_response(200, &json!({"cluster_id": ID})))
        .mount(&api.server)
        .await;

    api.together().delete(&ClusterId::new(ID)).await.unwrap();

    assert_eq!(api.count("DELETE", &format!("{CLUSTERS}/{ID}")).await, 1);
    assert!(api.sleeps().is_empty());
    api.assert_all_matched();
}
