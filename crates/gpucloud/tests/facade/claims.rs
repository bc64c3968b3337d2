//! What the client does with a journal's answer to its claim on a name: a cluster the journal
//! names is the answer only while the provider still has it (not deleting, not deleted), a
//! claim taken over from a caller that stopped is sent only under that caller's key, and the
//! claim is renewed while the create runs.

use std::sync::atomic::{AtomicUsize, Ordering};
use std::sync::{Arc, Mutex};
use std::time::Duration;

use gpucloud::journal::{
    Claim, ClaimPolicy, CreateIntent, CreateRecord, IntentId, Journal, JournalError, TakenOver,
};
use gpucloud::{ClusterClient, ClusterId, CreateOutcome, Error, ProviderKind};
use wiremock::ResponseTemplate;

use crate::support::*;

const OLD: &str = "c-old";
const NEW: &str = "c-new";

/// A journal whose first claim answers `first` and every later one grants the name; it counts
/// claims and lease renewals and returns `earlier_key` as an earlier create's key.
#[derive(Debug)]
struct Scripted {
    first: Mutex<Option<Claim>>,
    claims: AtomicUsize,
    renewals: Mutex<Vec<Duration>>,
    earlier_key: Option<String>,
}

impl Scripted {
    fn new(first: Claim) -> Arc<Self> {
        Self::with_key(first, None)
    }

    fn with_key(first: Claim, earlier_key: Option<&str>) -> Arc<Self> {
        Arc::new(Self {
            first: Mutex::new(Some(first)),
            claims: AtomicUsize::new(0),
            renewals: Mutex::new(Vec::new()),
            earlier_key: earlier_key.map(str::to_owned),
        })
    }
}

impl Journal for Scripted {
    fn create_started(&self, _: &CreateIntent) -> Result<IntentId, JournalError> {
        Ok(2)
    }
    fn create_finished(&self, _: IntentId, _: &CreateRecord<'_>) -> Result<(), JournalError> {
        Ok(())
    }
    fn delete_started(&self, _: ProviderKind, _: &ClusterId) -> Result<IntentId, JournalError> {
        Ok(3)
    }
    fn delete_finished(&self, _: IntentId, _: Option<&Error>) -> Result<(), JournalError> {
        Ok(())
    }
    fn claim_create(&self, _: &CreateIntent, _: Duration) -> Result<Claim, JournalError> {
        self.claims.fetch_add(1, Ordering::SeqCst);
        Ok(self.first.lock().unwrap().take().unwrap_or(Claim::Owned {
            intent: 2,
            took_over: None,
        }))
    }
    fn renew_claim(&self, _: IntentId, lease: Duration) -> Result<(), JournalError> {
        self.renewals.lock().unwrap().push(lease);
        Ok(())
    }
    fn earlier_key(&self, _: &CreateIntent) -> Result<Option<String>, JournalError> {
        Ok(self.earlier_key.clone())
    }
}

fn names(cluster: &str) -> Claim {
    Claim::Exists {
        intent: 1,
        cluster: ClusterId::new(cluster),
        same_request: true,
        request: None,
        deadline: None,
    }
}

/// A claim naming `cluster`, made by another request: `request` as the journal recorded it.
fn names_for_another_request(cluster: &str, request: Option<serde_json::Value>) -> Claim {
    Claim::Exists {
        intent: 1,
        cluster: ClusterId::new(cluster),
        same_request: false,
        request,
        deadline: None,
    }
}

/// A Together client with `journal`, a list without the name and a create that makes `NEW`.
async fn together_with(api: &Api, journal: Arc<Scripted>) -> ClusterClient {
    let list = together_list(&[]);
    mount(api, "GET", "/compute/clusters", json_response(200, &list)).await;
    let created = together_cluster(NEW, "train", "Queued", &[]);
    mount(
        api,
        "POST",
        "/compute/clusters",
        json_response(200, &created),
    )
    .await;
    ClusterClient::together(api.together_config().with_journal(journal)).unwrap()
}

#[tokio::test]
async fn a_named_cluster_that_is_deleting_or_gone_is_not_the_answer() {
    for old in [
        json_response(200, &together_cluster(OLD, "train", "Deleting", &[])),
        json_response(404, &serde_json::json!({"error": {"message": "not found"}})),
    ] {
        let api = Api::start().await;
        mount(&api, "GET", format!("/compute/clusters/{OLD}"), old).await;
        let journal = Scripted::new(names(OLD));
        let client = together_with(&api, journal.clone()).await;

        let created = client.create(&together_spec()).await.unwrap();

        assert_eq!(
            (created.cluster.id.as_str(), created.outcome),
            (NEW, CreateOutcome::Created)
        );
        assert_eq!(journal.claims.load(Ordering::SeqCst), 2, "claimed again");
        assert_eq!(
            api.count("GET", &format!("/compute/clusters/{OLD}")).await,
            1
        );
        assert_eq!(api.count("POST", "/compute/clusters").await, 1);
    }
}

#[tokio::test]
async fn a_named_cluster_the_provider_still_has_is_the_answer() {
    let api = Api::start().await;
    let old = together_cluster(OLD, "train", "Ready", &[]);
    mount(
        &api,
        "GET",
        format!("/compute/clusters/{OLD}"),
        json_response(200, &old),
    )
    .await;
    let journal = Scripted::new(names(OLD));
    let client = together_with(&api, journal.clone()).await;

    let created = client.create(&together_spec()).await.unwrap();

    assert_eq!(
        (created.cluster.id.as_str(), created.outcome),
        (OLD, CreateOutcome::AlreadyExisted)
    );
    assert_eq!(journal.claims.load(Ordering::SeqCst), 1);
    assert_eq!(api.count("POST", "/compute/clusters").await, 0);
}

fn taken_over(key: Option<&str>) -> Claim {
    Claim::Owned {
        intent: 2,
        took_over: Some(TakenOver {
            intent: 1,
            owner: "host-a:41".into(),
            idempotency_key: key.map(str::to_owned),
            same_request: true,
            age: Duration::from_secs(5),
        }),
    }
}

/// A Runcrate create under `journal`; the keys its POSTs carried.
async fn runcrate_create(journal: Arc<Scripted>) -> (Result<CreateOutcome, Error>, Vec<String>) {
    let api = Api::start().await;
    let cluster = runcrate_cluster("3c90c3cc-0d44-4b50-8888-8dd25736052a", "train");
    mount(&api, "POST", "/clusters", json_response(201, &cluster)).await;
    let client = ClusterClient::runcrate(api.runcrate_config().with_journal(journal)).unwrap();
    let outcome = client
        .create(&runcrate_spec())
        .await
        .map(|created| created.outcome);
    let keys = api
        .requests("POST", "/clusters")
        .await
        .iter()
        .filter_map(|request| header(request, "idempotency-key"))
        .collect();
    (outcome, keys)
}

#[tokio::test]
async fn a_taken_over_keyed_create_is_sent_only_under_the_stopped_caller_s_key() {
    // The stopped caller's key is this create's own (the journal's earlier key): sent under it.
    let (outcome, keys) =
        runcrate_create(Scripted::with_key(taken_over(Some("k-1")), Some("k-1"))).await;
    assert_eq!(
        (outcome.unwrap(), keys),
        (CreateOutcome::Created, vec!["k-1".to_owned()])
    );
    // The stopped caller recorded no key: nothing it sent can be replayed, so the create goes.
    let (outcome, keys) = runcrate_create(Scripted::new(taken_over(None))).await;
    assert_eq!(outcome.unwrap(), CreateOutcome::Created);
    assert_eq!(keys.len(), 1);
    // Another key: sending under a new one could make a second cluster, so nothing is sent.
    let (outcome, keys) = runcrate_create(Scripted::new(taken_over(Some("k-other")))).await;
    assert!(
        matches!(outcome, Err(Error::NameClaimed { .. })),
        "{outcome:?}"
    );
    assert_eq!(keys, Vec::<String>::new());
}

#[tokio::test]
async fn the_claim_is_renewed_every_third_of_its_lease_while_the_create_runs() {
    let api = Api::start().await;
    let cluster = runcrate_cluster("3c90c3cc-0d44-4b50-8888-8dd25736052a", "train");
    // The answer takes 1 s of real time; the lease is 600 ms, renewed every 200 ms.
    let slow = ResponseTemplate::new(201)
        .set_body_json(cluster)
        .set_delay(Duration::from_secs(1));
    mount(&api, "POST", "/clusters", slow).await;
    let journal = Scripted::new(Claim::Owned {
        intent: 2,
        took_over: None,
    });
    let lease = Duration::from_millis(600);
    let policy = ClaimPolicy {
        lease,
        ..ClaimPolicy::default()
    };
    let config = api
        .runcrate_config()
        .with_journal(journal.clone())
        .with_claim_policy(policy);
    let client = ClusterClient::runcrate(config).unwrap();

    client.create(&runcrate_spec()).await.unwrap();

    let renewals = journal.renewals.lock().unwrap().clone();
    // Four are due (200, 400, 600, 800 ms); a loaded machine may fit fewer, never none.
    assert!((2..=5).contains(&renewals.len()), "{renewals:?}");
    assert!(
        renewals.iter().all(|renewed| *renewed == lease),
        "{renewals:?}"
    );
}

#[tokio::test]
async fn a_live_cluster_made_by_another_request_is_an_error_naming_each_difference() {
    let api = Api::start().await;
    let old = together_cluster(OLD, "train", "Ready", &[]);
    mount(
        &api,
        "GET",
        format!("/compute/clusters/{OLD}"),
        json_response(200, &old),
    )
    .await;
    // What the journal recorded of the request that made OLD: this one, but 2 H100 GPUs.
    let plan = ClusterClient::together(api.together_config())
        .unwrap()
        .plan(&together_spec())
        .await
        .unwrap();
    let mut earlier = plan.body.clone();
    earlier["num_gpus"] = serde_json::json!(2);
    earlier["gpu_type"] = serde_json::json!("H200_SXM");
    for (recorded, differences) in [(Some(earlier), 2), (None, 0)] {
        let journal = Scripted::new(names_for_another_request(OLD, recorded));
        let client = together_with(&api, journal.clone()).await;

        let error = client.create(&together_spec()).await.unwrap_err();

        let Error::NameInUse {
            provider,
            name,
            cluster,
            differences: found,
        } = &error
        else {
            panic!("{error:?}")
        };
        assert_eq!(
            (*provider, name.as_str(), cluster.as_str()),
            (ProviderKind::Together, "train-42", OLD)
        );
        assert_eq!(found.len(), differences, "{found:?}");
        if differences > 0 {
            let fields: Vec<_> = found.iter().map(|d| d.field.as_str()).collect();
            assert_eq!(fields, ["/gpu_type", "/num_gpus"]);
            assert_eq!(found[1].earlier.as_deref(), Some("2"));
            assert_eq!(
                found[1].requested,
                Some(plan.body["num_gpus"].to_string()),
                "{found:?}"
            );
            let text = error.to_string();
            assert!(text.contains("/num_gpus: 2 then,"), "{text}");
        }
        assert_eq!(error.kind(), gpucloud::ErrorKind::NameInUse);
        assert_eq!(journal.claims.load(Ordering::SeqCst), 1);
    }
    assert_eq!(
        api.count("POST", "/compute/clusters").await,
        0,
        "nothing sent"
    );
}

#[tokio::test]
async fn a_taken_over_create_of_another_request_does_not_take_that_requests_cluster() {
    let api = Api::start().await;
    // The stopped caller sent another request under the name, and its cluster is listed.
    let theirs = together_cluster(OLD, "train-42", "Ready", &[]);
    mount(
        &api,
        "GET",
        "/compute/clusters",
        json_response(200, &together_list(&[theirs])),
    )
    .await;
    let Claim::Owned {
        took_over: Some(stale),
        ..
    } = taken_over(None)
    else {
        panic!("not a take-over")
    };
    let journal = Scripted::new(Claim::Owned {
        intent: 2,
        took_over: Some(TakenOver {
            same_request: false,
            ..stale
        }),
    });
    let client = ClusterClient::together(api.together_config().with_journal(journal)).unwrap();

    let error = client.create(&together_spec()).await.unwrap_err();

    assert!(
        matches!(&error, Error::NameInUse { cluster, .. } if cluster.as_str() == OLD),
        "{error:?}"
    );
    assert_eq!(
        api.count("POST", "/compute/clusters").await,
        0,
        "nothing sent"
    );
}
