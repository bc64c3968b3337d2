//! Money safety after the create: deletes verified until the provider no longer has the
//! cluster, and `create_and_wait` deleting a cluster that fails while it is waited for.

use std::time::Duration;

use crate::support::*;
use gpucloud::{Cleanup, ClusterId, CreateAndWait, Error, WaitOptions};
use serde_json::json;
use wiremock::matchers::{method, path};
use wiremock::{Mock, ResponseTemplate};

const CLUSTER: &str = "/compute/clusters/c-1";

async fn answer(api: &Api, verb: &str, at: &str, response: impl wiremock::Respond + 'static) {
    Mock::given(method(verb))
        .and(path(at))
        .respond_with(response)
        .mount(&api.server)
        .await;
}

fn cluster(status: &str, phases: &[&str]) -> ResponseTemplate {
    json_response(200, &together_cluster("c-1", "train-42", status, phases))
}

fn gone() -> ResponseTemplate {
    json_response(
        404,
        &json!({"error": {"code": "NotFound", "message": "no such cluster"}}),
    )
}

fn quick() -> WaitOptions {
    WaitOptions::up_to(Duration::from_secs(60))
        .with_intervals(Duration::from_secs(5), Duration::from_secs(10))
}

#[tokio::test]
async fn delete_and_wait_returns_once_the_cluster_is_gone() {
    let api = Api::start().await;
    answer(
        &api,
        "DELETE",
        CLUSTER,
        json_response(200, &json!({"cluster_id": "c-1"})),
    )
    .await;
    answer(
        &api,
        "GET",
        CLUSTER,
        seq([cluster("Deleting", &[]), cluster("Deleting", &[]), gone()]),
    )
    .await;

    let deletion = api
        .together()
        .delete_and_wait(&ClusterId::new("c-1"), &quick(), |_| {})
        .await
        .unwrap();

    assert!(!deletion.already_gone);
    assert_eq!(api.count("DELETE", CLUSTER).await, 1);
    assert_eq!(
        api.count("GET", CLUSTER).await,
        3,
        "polled through deleting to the 404"
    );
    assert_eq!(deletion.took, api.sleeps().iter().sum::<Duration>());
    assert_eq!(
        deletion.took,
        Duration::from_secs(10),
        "5 s then 5 s: the pause is held at the first interval while a quarter of the time \
         waited is shorter"
    );
}

#[tokio::test]
async fn deleting_a_cluster_that_is_already_gone_says_so() {
    let api = Api::start().await;
    answer(&api, "DELETE", CLUSTER, gone()).await;

    let deletion = api
        .together()
        .delete_and_wait(&ClusterId::new("c-1"), &quick(), |_| {})
        .await
        .unwrap();

    assert!(deletion.already_gone);
    assert_eq!(api.count("GET", CLUSTER).await, 0);
    // A plain delete still reports the 404 as an error: only the verified delete knows the
    // caller wanted the cluster gone.
    let error = api
        .together()
        .delete(&ClusterId::new("c-1"))
        .await
        .unwrap_err();
    assert!(matches!(error, Error::NotFound(_)), "{error:?}");
}

async fn created_then(api: &Api, polls: impl wiremock::Respond + 'static) {
    answer(
        api,
        "GET",
        "/compute/clusters",
        json_response(200, &together_list(&[])),
    )
    .await;
    answer(
        api,
        "POST",
        "/compute/clusters",
        json_response(
            200,
            &together_cluster("c-1", "train-42", "WaitingForControlPlaneNodes", &[]),
        ),
    )
    .await;
    answer(api, "GET", CLUSTER, polls).await;
}

#[tokio::test]
async fn a_cluster_that_fails_while_waited_for_is_deleted_and_the_delete_verified() {
    let api = Api::start().await;
    created_then(
        &api,
        seq([
            cluster(
                "RunningAcceptanceTests",
                &["CLUSTER_PHASE_RUNNING_ACCEPTANCE_TESTS"],
            ),
            cluster(
                "RunningAcceptanceTests",
                &["CLUSTER_PHASE_ACCEPTANCE_TESTS_FAILED"],
            ),
            cluster("Deleting", &[]),
            gone(),
        ]),
    )
    .await;
    answer(
        &api,
        "DELETE",
        CLUSTER,
        json_response(200, &json!({"cluster_id": "c-1"})),
    )
    .await;

    let failure = api
        .together()
        .create_and_wait(
            &together_spec(),
            &CreateAndWait::default().with_wait(quick()),
            |_| {},
        )
        .await
        .unwrap_err();
    let failure = not_ready(failure);

    assert!(
        matches!(failure.error, Error::ClusterFailed { .. }),
        "{:?}",
        failure.error
    );
    assert_eq!(failure.cluster, ClusterId::new("c-1"));
    let Cleanup::Deleted(deletion) = &failure.cleanup else {
        panic!("{:?}", failure.cleanup)
    };
    assert!(!deletion.already_gone);
    assert_eq!(api.count("POST", "/compute/clusters").await, 1);
    assert_eq!(api.count("DELETE", CLUSTER).await, 1);
    assert!(
        failure.to_string().ends_with("; cluster c-1 was deleted"),
        "{failure}"
    );
    let source = std::error::Error::source(&failure).map(ToString::to_string);
    assert_eq!(
        source,
        Some(failure.error.to_string()),
        "the source is the wait's error"
    );
}

#[tokio::test]
async fn a_timeout_keeps_the_cluster_unless_asked_and_names_it() {
    for delete_on_timeout in [false, true] {
        let api = Api::start().await;
        created_then(
            &api,
            seq([
                cluster("WaitingForControlPlaneNodes", &[]),
                cluster("WaitingForControlPlaneNodes", &[]),
                cluster("WaitingForControlPlaneNodes", &[]),
                cluster("WaitingForControlPlaneNodes", &[]),
                cluster("WaitingForControlPlaneNodes", &[]),
                cluster("WaitingForControlPlaneNodes", &[]),
                cluster("WaitingForControlPlaneNodes", &[]),
                cluster("WaitingForControlPlaneNodes", &[]),
                // Polls at 0, 5, 10, 15, 20, 25, 31.25, 39.06, 48.83, 58.83 and 60 s: the
                // pause is at most a quarter of the time waited (and at least the first 5 s).
                cluster("WaitingForControlPlaneNodes", &[]),
                cluster("WaitingForControlPlaneNodes", &[]),
                cluster("WaitingForControlPlaneNodes", &[]),
                gone(),
            ]),
        )
        .await;
        answer(
            &api,
            "DELETE",
            CLUSTER,
            json_response(200, &json!({"cluster_id": "c-1"})),
        )
        .await;
        let options = CreateAndWait::default()
            .with_wait(quick())
            .with_delete_on_timeout(delete_on_timeout);

        let failure = api
            .together()
            .create_and_wait(&together_spec(), &options, |_| {})
            .await
            .unwrap_err();
        let failure = not_ready(failure);

        assert!(
            matches!(failure.error, Error::Timeout { .. }),
            "{:?}",
            failure.error
        );
        assert_eq!(failure.cluster, ClusterId::new("c-1"));
        let deletes = api.count("DELETE", CLUSTER).await;
        if delete_on_timeout {
            assert!(
                matches!(failure.cleanup, Cleanup::Deleted(_)),
                "{:?}",
                failure.cleanup
            );
            assert_eq!(deletes, 1);
        } else {
            assert!(
                matches!(failure.cleanup, Cleanup::Kept),
                "{:?}",
                failure.cleanup
            );
            assert_eq!(deletes, 0);
            assert!(
                failure.to_string().ends_with("; cluster c-1 was kept"),
                "{failure}"
            );
        }
    }
}

#[tokio::test]
async fn a_create_that_fails_has_no_cluster_to_clean_up() {
    let api = Api::start().await;
    answer(
        &api,
        "GET",
        "/compute/clusters",
        json_response(200, &together_list(&[])),
    )
    .await;
    answer(
        &api,
        "POST",
        "/compute/clusters",
        json_response(400, &json!({"error": {"message": "bad region"}})),
    )
    .await;

    let failure = api
        .together()
        .create_and_wait(&together_spec(), &CreateAndWait::default(), |_| {})
        .await
        .unwrap_err();

    // The create's own error: no cluster, so nothing to clean up.
    assert_eq!(failure.status(), Some(400));
    assert!(!matches!(failure, Error::NotReady(_)), "{failure:?}");
    assert_eq!(api.count("DELETE", CLUSTER).await, 0);
}

#[tokio::test]
async fn a_failed_cluster_is_kept_when_asked_and_a_failed_delete_is_reported() {
    for delete_on_failure in [false, true] {
        let api = Api::start().await;
        created_then(
            &api,
            cluster(
                "RunningAcceptanceTests",
                &["CLUSTER_PHASE_NCCL_TESTS_FAILED"],
            ),
        )
        .await;
        answer(
            &api,
            "DELETE",
            CLUSTER,
            json_response(403, &json!({"error": {"message": "not allowed"}})),
        )
        .await;
        let options = CreateAndWait::default()
            .with_wait(quick())
            .with_delete_on_failure(delete_on_failure);

        let failure = api
            .together()
            .create_and_wait(&together_spec(), &options, |_| {})
            .await
            .unwrap_err();
        let failure = not_ready(failure);

        assert!(matches!(failure.error, Error::ClusterFailed { .. }));
        if delete_on_failure {
            let Cleanup::DeleteFailed(error) = &failure.cleanup else {
                panic!("{:?}", failure.cleanup)
            };
            assert!(matches!(**error, Error::Authentication(_)), "{error:?}");
            assert_eq!(api.count("DELETE", CLUSTER).await, 1);
            assert!(
                failure.to_string().contains("deleting cluster c-1 failed")
                    && failure.to_string().ends_with("it may still be billing"),
                "{failure}"
            );
        } else {
            assert!(
                matches!(failure.cleanup, Cleanup::Kept),
                "{:?}",
                failure.cleanup
            );
            assert_eq!(api.count("DELETE", CLUSTER).await, 0);
        }
    }
}

#[tokio::test]
async fn waiting_for_a_delete_that_never_ends_times_out_naming_the_goal() {
    let api = Api::start().await;
    answer(
        &api,
        "DELETE",
        CLUSTER,
        json_response(200, &json!({"cluster_id": "c-1"})),
    )
    .await;
    answer(&api, "GET", CLUSTER, cluster("Deleting", &[])).await;

    let error = api
        .together()
        .delete_and_wait(&ClusterId::new("c-1"), &quick(), |_| {})
        .await
        .unwrap_err();

    let Error::Timeout { what, after } = &error else {
        panic!("{error:?}")
    };
    assert!(
        what.contains("cluster c-1 to be deleted (last state: deleting)"),
        "{what}"
    );
    assert_eq!(*after, Duration::from_secs(60));
}

/// The failure of a create whose cluster did not become ready.
fn not_ready(error: Error) -> Box<gpucloud::NotReady> {
    match error {
        Error::NotReady(failed) => failed,
        other => panic!("expected a cluster that did not become ready: {other:?}"),
    }
}
