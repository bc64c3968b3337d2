//! Deletes: a 404 after an ambiguous failure means the first attempt worked.

use gpucloud::ClusterId;
use serde_json::json;

use super::{ID, one};
use crate::support::*;

#[tokio::test]
async fn delete_404_after_a_503_means_the_first_attempt_worked() {
    let api = Api::start().await;
    mount(
        &api,
        "DELETE",
        &one(),
        seq([
            raw_response(503, "Service Unavailable", "text/plain"),
            json_response(404, &json!({"code": 404, "message": "Not Found"})),
        ]),
    )
    .await;

    api.e2e()
        .delete(&ClusterId::new(ID.to_string()))
        .await
        .unwrap();

    assert_eq!(api.count("DELETE", &one()).await, 2);
    api.assert_all_matched();
}
