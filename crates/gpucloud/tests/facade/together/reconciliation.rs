//! Creates looked up by name before the POST and again after any failure that may have
//! reached Together, so an ambiguous failure never becomes a second cluster.

use std::time::Duration;

use gpucloud::{ClusterClient, ClusterId, ClusterState, CreateOutcome};

use super::{CLUSTERS, ID, NAME, created, envelope, expected_body, mount_create, mount_list};
use crate::support::*;

#[tokio::test]
async fn create_posts_once_when_no_cluster_has_the_name() {
    let api = Api::start().await;
    let other = together_cluster("c-other", "someone-else", "Ready", &["CLUSTER_PHASE_READY"]);
    mount_list(&api, json_response(200, &together_list(&[other]))).await;
    mount_create(&api, json_response(200, &created())).await;

    let result = api.together().create(&together_spec()).await.unwrap();

    assert_eq!(result.outcome, CreateOutcome::Created);
    assert_eq!(result.attempts, 1);
    assert_eq!(result.cluster.id, ClusterId::new(ID));
    assert_eq!(result.cluster.name, NAME);
    assert_eq!(result.cluster.state, ClusterState::Provisioning);
    let posts = api.requests("POST", CLUSTERS).await;
    assert_eq!(posts.len(), 1);
    assert_eq!(body_json(&posts[0]), expected_body());
    assert_eq!(
        header(&posts[0], "authorization").as_deref(),
        Some(format!("Bearer {TOGETHER_KEY}").as_str())
    );
    assert_eq!(
        header(&posts[0], "content-type").as_deref(),
        Some("application/json")
    );
    assert_eq!(
        api.count("GET", CLUSTERS).await,
        1,
        "one look-up by name before the POST"
    );
    assert!(api.sleeps().is_empty());
    api.assert_all_matched();
}

/// A cluster of the name that this create did not make (a teammate's, one from the console)
/// is not ours: nothing is sent and it is not returned as the create's result.
#[tokio::test]
async fn create_sends_nothing_and_takes_nothing_when_someone_else_has_the_name() {
    let api = Api::start().await;
    let existing = together_cluster(ID, NAME, "Ready", &["CLUSTER_PHASE_READY"]);
    mount_list(&api, json_response(200, &together_list(&[existing]))).await;
    mount_create(&api, json_response(200, &created())).await;

    let error = api.together().create(&together_spec()).await.unwrap_err();

    let gpucloud::Error::NameTaken {
        cluster,
        name,
        adoptable,
        ..
    } = &error
    else {
        panic!("{error:?}")
    };
    assert_eq!(
        (cluster.as_str(), name.as_str(), *adoptable),
        (ID, NAME, true)
    );
    assert_eq!(error.kind(), gpucloud::ErrorKind::NameTaken);
    assert_eq!(api.count("POST", CLUSTERS).await, 0);
    assert_eq!(api.count("GET", CLUSTERS).await, 1);

    // Adopted on request: the cluster is the result, and nothing is sent.
    let result = api
        .together()
        .create(&together_spec().with_adopt(true))
        .await
        .unwrap();
    assert_eq!(result.outcome, CreateOutcome::Adopted);
    assert_eq!(result.attempts, 0);
    assert_eq!(result.cluster.id, ClusterId::new(ID));
    assert_eq!(result.cluster.state, ClusterState::Ready);
    assert_eq!(api.count("POST", CLUSTERS).await, 0);
    api.assert_all_matched();
}

/// A same-name cluster that is failed or being deleted is never the result of a create, not
/// even adopted: a failed one returned would be "ready" to nobody, and deleted as if it were
/// the new cluster's clean-up.
#[tokio::test]
async fn a_failed_or_deleting_cluster_of_the_name_is_never_taken() {
    for (status, phase, state) in [
        (
            "RunningAcceptanceTests",
            "CLUSTER_PHASE_ACCEPTANCE_TESTS_FAILED",
            "failed",
        ),
        ("Deleting", "CLUSTER_PHASE_DELETING", "deleting"),
    ] {
        let api = Api::start().await;
        let existing = together_cluster(ID, NAME, status, &[phase]);
        mount_list(&api, json_response(200, &together_list(&[existing]))).await;
        for adopt in [false, true] {
            let error = api
                .together()
                .create(&together_spec().with_adopt(adopt))
                .await
                .unwrap_err();
            let gpucloud::Error::NameTaken {
                adoptable,
                state: s,
                ..
            } = &error
            else {
                panic!("{status}: {error:?}")
            };
            assert!(!adoptable, "{status}");
            assert!(s.starts_with(state), "{s}");
            assert!(error.to_string().contains("cannot be adopted"), "{error}");
        }
        assert_eq!(api.count("POST", CLUSTERS).await, 0, "{status}");
    }
}

#[tokio::test]
async fn create_after_a_502_finds_the_cluster_instead_of_posting_again() {
    let api = Api::start().await;
    let listed = together_cluster(
        ID,
        NAME,
        "WaitingForControlPlaneNodes",
        &["CLUSTER_PHASE_QUEUED"],
    );
    mount_list(
        &api,
        seq([
            json_response(200, &together_list(&[])),
            json_response(200, &together_list(&[listed])),
        ]),
    )
    .await;
    mount_create(
        &api,
        json_response(502, &envelope("upstream connect error")),
    )
    .await;

    let result = api.together().create(&together_spec()).await.unwrap();

    assert_eq!(result.outcome, CreateOutcome::CreatedReconciled);
    assert_eq!(result.attempts, 1);
    assert_eq!(result.cluster.id, ClusterId::new(ID));
    assert_eq!(api.count("POST", CLUSTERS).await, 1);
    assert_eq!(
        api.count("GET", CLUSTERS).await,
        2,
        "look-up before and after the ambiguous failure"
    );
    assert!(
        api.sleeps().is_empty(),
        "the look-up follows the failure at once"
    );
    api.assert_all_matched();
}

#[tokio::test]
async fn create_after_a_502_and_an_empty_list_posts_again() {
    let api = Api::start().await;
    mount_list(&api, json_response(200, &together_list(&[]))).await;
    mount_create(
        &api,
        seq([
            json_response(502, &envelope("bad gateway")),
            json_response(200, &created()),
        ]),
    )
    .await;

    let result = api.together().create(&together_spec()).await.unwrap();

    assert_eq!(result.outcome, CreateOutcome::Created);
    assert_eq!(result.attempts, 2);
    let posts = api.requests("POST", CLUSTERS).await;
    assert_eq!(posts.len(), 2);
    assert_eq!(
        body_json(&posts[0]),
        body_json(&posts[1]),
        "the same request both times"
    );
    assert_eq!(
        api.count("GET", CLUSTERS).await,
        1 + SETTLE_LOOK_UPS,
        "one look-up first, then the settle window's"
    );
    assert_eq!(api.sleeps(), settle_window_pauses());
    api.assert_all_matched();
}

#[tokio::test]
async fn create_with_an_html_502_is_ambiguous_too() {
    let api = Api::start().await;
    let listed = together_cluster(
        ID,
        NAME,
        "WaitingForControlPlaneNodes",
        &["CLUSTER_PHASE_QUEUED"],
    );
    mount_list(
        &api,
        seq([
            json_response(200, &together_list(&[])),
            json_response(200, &together_list(&[listed])),
        ]),
    )
    .await;
    mount_create(&api, raw_response(502, HTML_502, "text/html")).await;

    let result = api.together().create(&together_spec()).await.unwrap();

    assert_eq!(result.outcome, CreateOutcome::CreatedReconciled);
    assert_eq!(api.count("POST", CLUSTERS).await, 1);
    assert_eq!(api.count("GET", CLUSTERS).await, 2);
    api.assert_all_matched();
}

#[tokio::test]
async fn create_timing_out_is_ambiguous_and_reconciled() {
    let api = Api::start().await;
    let listed = together_cluster(
        ID,
        NAME,
        "WaitingForControlPlaneNodes",
        &["CLUSTER_PHASE_QUEUED"],
    );
    mount_list(
        &api,
        seq([
            json_response(200, &together_list(&[])),
            json_response(200, &together_list(&[listed])),
        ]),
    )
    .await;
    mount_create(
        &api,
        json_response(200, &created()).set_delay(Duration::from_secs(10)),
    )
    .await;
    let client =
        ClusterClient::together(api.together_config().with_timeout(Duration::from_secs(1)))
            .unwrap();

    let result = client.create(&together_spec()).await.unwrap();

    assert_eq!(result.outcome, CreateOutcome::CreatedReconciled);
    assert_eq!(result.attempts, 1);
    assert_eq!(api.count("POST", CLUSTERS).await, 1);
    assert_eq!(api.count("GET", CLUSTERS).await, 2);
    api.assert_all_matched();
}

#[tokio::test]
async fn create_that_keeps_failing_is_resent_at_most_once() {
    let api = Api::start().await;
    mount_list(&api, json_response(200, &together_list(&[]))).await;
    mount_create(&api, json_response(503, &envelope("unavailable"))).await;

    let error = create_ends(api.together().create(&together_spec()))
        .await
        .unwrap_err();

    assert_eq!(error.status(), Some(503));
    assert_eq!(
        api.count("POST", CLUSTERS).await,
        2,
        "the first POST and one re-send"
    );
    assert_eq!(
        api.count("GET", CLUSTERS).await,
        1 + 2 * SETTLE_LOOK_UPS,
        "one look-up first, then a settle window after each failure"
    );
    let mut pauses = settle_window_pauses();
    pauses.extend(settle_window_pauses());
    assert_eq!(api.sleeps(), pauses);
    api.assert_all_matched();
}

/// A redirect the client does not follow (to another origin) may come after the provider
/// acted on the POST (a 303 does): the create is looked up by name, never taken as "made
/// nothing".
#[tokio::test]
async fn a_create_answered_with_an_unfollowed_redirect_is_reconciled() {
    let api = Api::start().await;
    let listed = together_cluster(ID, NAME, "WaitingForControlPlaneNodes", &[]);
    mount_list(
        &api,
        seq([
            json_response(200, &together_list(&[])),
            json_response(200, &together_list(&[listed])),
        ]),
    )
    .await;
    mount_create(
        &api,
        wiremock::ResponseTemplate::new(303)
            .insert_header("Location", "https://elsewhere.example/x"),
    )
    .await;

    let result = api.together().create(&together_spec()).await.unwrap();

    assert_eq!(result.outcome, CreateOutcome::CreatedReconciled);
    assert_eq!(result.cluster.id, ClusterId::new(ID));
    assert_eq!(api.count("POST", CLUSTERS).await, 1);
}
