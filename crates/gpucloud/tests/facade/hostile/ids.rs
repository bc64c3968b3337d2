//! Ids that are paths, and answers about another cluster: an id from a user or from a
//! provider's answer is one path segment or it is refused, and every get's answer must be
//! about the cluster asked for.

use gpucloud::{ClusterId, ClusterSize, Error};

use crate::support::*;

const RUNCRATE_ID: &str = "0b7c3f7e-4b8e-4f6a-9d58-3c1f0d3a9e11";
const OTHER_UUID: &str = "9a1f2e3d-0000-4c5b-8a7d-6e5f4d3c2b1a";

/// `.` and `..` would be resolved by the URL to the collection or its parent (so a DELETE of
/// `..` would go to `/compute/`, and its 404 read as "already gone"); `\` is read as `/`.
#[tokio::test]
async fn dot_segments_and_backslashes_are_refused_before_the_network() {
    let api = Api::start().await;
    for client in [api.together(), api.runcrate(), api.e2e()] {
        for bad in [".", "..", "..\\..", "c\\1"] {
            let id = ClusterId::new(bad);
            let get = client.get(&id).await.unwrap_err();
            let delete = client.delete(&id).await.unwrap_err();
            let resize = client.resize(&id, ClusterSize::Gpus(8)).await.unwrap_err();
            for error in [get, delete, resize] {
                let Error::Validation(rule) = &error else {
                    panic!("{:?} {bad:?}: {error:?}", client.provider())
                };
                assert_eq!(rule.field, "cluster id", "{bad:?}");
            }
        }
    }
    assert!(api.all().await.is_empty(), "nothing was sent");
}

/// `/`, `?` and `#` are refused like `\\` (the one rule the CLI checks too); `%` stays inside
/// the id's one path segment, percent-encoded, so `%2e%2e` is never read as `..`.
#[tokio::test]
async fn path_characters_in_an_id_are_refused_or_stay_in_one_segment() {
    let api = Api::start().await;
    for bad in ["a/b", "a?b", "a#b"] {
        let error = api.together().get(&ClusterId::new(bad)).await.unwrap_err();
        assert!(matches!(error, Error::Validation(_)), "{bad}: {error:?}");
    }
    assert!(api.all().await.is_empty());

    let error = api
        .together()
        .get(&ClusterId::new("d%2e%2e"))
        .await
        .unwrap_err();

    assert_eq!(error.status(), Some(UNMATCHED_STATUS), "{error:?}");
    let sent = api.all().await;
    assert_eq!(sent.len(), 1);
    assert_eq!(sent[0].url.path(), "/compute/clusters/d%252e%252e");
    assert_eq!(sent[0].url.query(), None);
}

/// An id in a provider's answer is checked like a user's: a list or a create that names a
/// cluster `..` (or nothing) is a decoding failure, never a cluster to get or delete later.
#[tokio::test]
async fn an_answer_whose_id_is_a_path_is_not_a_cluster() {
    for bad in ["..", ".", "x\\..", " "] {
        let api = Api::start().await;
        let listed = together_cluster(bad, "train-42", "Ready", &["CLUSTER_PHASE_READY"]);
        mount(
            &api,
            "GET",
            "/compute/clusters",
            json_response(200, &together_list(&[listed])),
        )
        .await;
        let error = api.together().list().await.unwrap_err();
        let Error::Decode(decode) = &error else {
            panic!("{bad:?}: {error:?}")
        };
        assert_eq!(decode.path, "id", "{bad:?}");

        // The create that would look the name up first stops there too: nothing is sent.
        let error = api.together().create(&together_spec()).await.unwrap_err();
        assert!(matches!(error, Error::Decode(_)), "{bad:?}: {error:?}");
        assert_eq!(api.count("POST", "/compute/clusters").await, 0);
    }
}

/// A get answered with another cluster (a cache or proxy that mixed answers up) is a
/// decoding failure on every provider: the waiter never reports "ready" from it.
#[tokio::test]
async fn a_get_answered_about_another_cluster_is_refused_on_every_provider() {
    let api = Api::start().await;
    mount(
        &api,
        "GET",
        "/compute/clusters/c-1",
        json_response(
            200,
            &together_cluster("c-2", "other", "Ready", &["CLUSTER_PHASE_READY"]),
        ),
    )
    .await;
    mount(
        &api,
        "GET",
        format!("/clusters/{RUNCRATE_ID}"),
        json_response(200, &runcrate_cluster(OTHER_UUID, "other")),
    )
    .await;
    mount(
        &api,
        "GET",
        "/distributed_jobs_v2/cluster/101/",
        json_response(
            200,
            &e2e_envelope(200, e2e_cluster(102, "other", "Running")),
        ),
    )
    .await;

    for (client, asked, answered) in [
        (api.together(), "c-1", "c-2"),
        (api.runcrate(), RUNCRATE_ID, OTHER_UUID),
        (api.e2e(), "101", "102"),
    ] {
        let error = client.get(&ClusterId::new(asked)).await.unwrap_err();
        let Error::Decode(decode) = &error else {
            panic!("{:?}: {error:?}", client.provider())
        };
        assert_eq!(decode.path, "id");
        assert!(
            decode
                .message
                .contains(&format!("about cluster {answered}, not cluster {asked}")),
            "{}",
            decode.message
        );
        assert_eq!(decode.status, Some(200));
    }
}

/// The same cluster in another spelling is the same cluster: a Runcrate UUID asked in upper
/// case, an E2E id with a leading zero.
#[tokio::test]
async fn the_same_id_in_another_canonical_spelling_is_accepted() {
    let api = Api::start().await;
    mount(
        &api,
        "GET",
        format!("/clusters/{RUNCRATE_ID}"),
        json_response(200, &runcrate_cluster(RUNCRATE_ID, "train")),
    )
    .await;
    mount(
        &api,
        "GET",
        "/distributed_jobs_v2/cluster/101/",
        json_response(
            200,
            &e2e_envelope(200, e2e_cluster(101, "train-e2e", "Running")),
        ),
    )
    .await;

    let upper = ClusterId::new(RUNCRATE_ID.to_uppercase());
    let found = api.runcrate().get(&upper).await.unwrap();
    assert_eq!(found.id.as_str(), RUNCRATE_ID);
    let found = api.e2e().get(&ClusterId::new("0101")).await.unwrap();
    assert_eq!(found.id.as_str(), "101");
}

/// A wait never ends "ready" on an answer about another cluster.
#[tokio::test]
async fn a_wait_fed_another_clusters_answer_does_not_end_ready() {
    let api = Api::start().await;
    mount(
        &api,
        "GET",
        "/compute/clusters/c-1",
        json_response(
            200,
            &together_cluster("c-9", "other", "Ready", &["CLUSTER_PHASE_READY"]),
        ),
    )
    .await;
    let client = api.together();
    let id = ClusterId::new("c-1");
    let error = client
        .wait(&id, &gpucloud::Ready)
        .run(|_| {})
        .await
        .unwrap_err();
    assert!(
        matches!(
            error,
            gpucloud::WaitError::OperationFailed {
                error: Error::Decode(_),
                ..
            }
        ),
        "{error:?}"
    );
}
