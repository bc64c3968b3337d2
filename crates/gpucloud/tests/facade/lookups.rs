//! The look-up by name before a create is shared: a batch of creates through one client lists
//! the account once (concurrent creates wait for one list), a name it made meanwhile is found
//! without another list, and a max age of zero lists before every create.

use std::time::Duration;

use gpucloud::{ClusterClient, ClusterSpec, CreateOutcome, ReconcilePolicy};

use crate::support::*;

async fn together(api: &Api, max_age: Duration) -> ClusterClient {
    let taken = together_cluster("c-taken", "taken", "Ready", &[]);
    mount(
        api,
        "GET",
        "/compute/clusters",
        json_response(200, &together_list(&[taken])),
    )
    .await;
    let created = together_cluster("c-new", "batch-made", "Queued", &[]);
    mount(
        api,
        "POST",
        "/compute/clusters",
        json_response(200, &created),
    )
    .await;
    ClusterClient::together(
        api.together_config()
            .with_reconcile_policy(ReconcilePolicy::default().with_name_lookup_max_age(max_age)),
    )
    .unwrap()
}

fn named(name: &str) -> ClusterSpec {
    let mut spec = together_spec();
    spec.name = name.to_string();
    spec
}

#[tokio::test]
async fn a_batch_of_creates_lists_the_account_once() {
    let api = Api::start().await;
    let client = together(&api, Duration::from_secs(5)).await;

    let creates = (0..8).map(|i| {
        let client = client.clone();
        async move { client.create(&named(&format!("batch-{i}"))).await }
    });
    let made = futures_util::future::join_all(creates).await;

    assert!(made.iter().all(|c| {
        c.as_ref()
            .is_ok_and(|c| c.outcome == CreateOutcome::Created)
    }));
    assert_eq!(
        api.count("GET", "/compute/clusters").await,
        1,
        "one list for the batch"
    );
    assert_eq!(api.count("POST", "/compute/clusters").await, 8);

    // Within the same window: a name in the list (someone else's), and a name this client
    // made since (its own, even without a journal).
    let taken = client.create(&named("taken")).await.unwrap_err();
    assert!(
        matches!(&taken, gpucloud::Error::NameTaken { cluster, .. } if cluster.as_str() == "c-taken"),
        "{taken:?}"
    );
    let again = client.create(&named("batch-made")).await.unwrap();
    assert_eq!(
        (again.cluster.id.as_str(), again.outcome),
        ("c-new", CreateOutcome::AlreadyExisted),
        "made by this client: in the shared list too"
    );
    assert_eq!(api.count("GET", "/compute/clusters").await, 1);
    assert_eq!(
        api.count("POST", "/compute/clusters").await,
        8,
        "nothing doubled"
    );
}

#[tokio::test]
async fn a_max_age_of_zero_lists_before_every_create() {
    let api = Api::start().await;
    let client = together(&api, Duration::ZERO).await;
    for i in 0..3 {
        client.create(&named(&format!("alone-{i}"))).await.unwrap();
    }
    assert_eq!(api.count("GET", "/compute/clusters").await, 3);
}
