//! Journaled calls: the intent is recorded before anything is sent (a journal that cannot
//! record stops the call with no request at all), the outcome after, and no secret is in
//! either.

use std::sync::{Arc, Mutex};

use crate::support::*;
use gpucloud::journal::{CreateIntent, CreateRecord, IntentId, Journal, JournalError};
use gpucloud::{ClusterClient, ClusterId, CreateOutcome, Error, ProviderKind};
use serde_json::json;
use wiremock::Mock;
use wiremock::matchers::{method, path};

#[derive(Debug, Default)]
struct Memory {
    events: Mutex<Vec<String>>,
    intents: Mutex<Vec<CreateIntent>>,
    refuse: bool,
}

impl Journal for Memory {
    fn create_started(&self, intent: &CreateIntent) -> Result<IntentId, JournalError> {
        if self.refuse {
            return Err(JournalError::new("the ledger is locked"));
        }
        self.intents.lock().unwrap().push(intent.clone());
        self.events
            .lock()
            .unwrap()
            .push(format!("create started {}", intent.name));
        Ok(7)
    }

    fn create_finished(&self, id: IntentId, record: &CreateRecord<'_>) -> Result<(), JournalError> {
        let line = match record {
            CreateRecord::Cluster {
                id: cluster,
                outcome,
            } => {
                format!("create {id} finished {cluster} {outcome:?}")
            }
            CreateRecord::Failed { error } => {
                format!("create {id} failed ambiguous={}", error.is_ambiguous())
            }
        };
        self.events.lock().unwrap().push(line);
        Ok(())
    }

    fn delete_started(
        &self,
        provider: ProviderKind,
        cluster: &ClusterId,
    ) -> Result<IntentId, JournalError> {
        self.events
            .lock()
            .unwrap()
            .push(format!("delete started {provider} {cluster}"));
        Ok(8)
    }

    fn delete_finished(&self, id: IntentId, error: Option<&Error>) -> Result<(), JournalError> {
        self.events
            .lock()
            .unwrap()
            .push(format!("delete {id} finished ok={}", error.is_none()));
        Ok(())
    }
}

#[tokio::test]
async fn creates_and_deletes_are_recorded_before_and_after() {
    let api = Api::start().await;
    Mock::given(method("POST"))
        .and(path("/clusters"))
        .respond_with(json_response(
            201,
            &runcrate_cluster("3c90c3cc-0d44-4b50-8888-8dd25736052a", "train"),
        ))
        .mount(&api.server)
        .await;
    let journal = Arc::new(Memory::default());
    let client =
        ClusterClient::runcrate(api.runcrate_config().with_journal(journal.clone())).unwrap();
    let spec = gpucloud::ClusterSpec::new("train", gpucloud::ClusterSize::Nodes(2))
        .with_options(
            gpucloud::RuncrateOptions::for_offer("offer-h100x8").with_idempotency_key("key-42"),
        )
        .with_ttl(std::time::Duration::from_secs(3600));

    let created = client.create(&spec).await.unwrap();

    assert_eq!(created.outcome, CreateOutcome::Created);
    // The create's answer carries the deadline its intent recorded (an hour from the send).
    let recorded = journal.intents.lock().unwrap()[0].deadline;
    assert!(recorded.is_some());
    assert_eq!(created.deadline, recorded);
    assert_eq!(
        *journal.events.lock().unwrap(),
        [
            "create started train",
            "create 7 finished 3c90c3cc-0d44-4b50-8888-8dd25736052a Created"
        ]
    );
    let intent = journal.intents.lock().unwrap()[0].clone();
    assert_eq!(intent.provider, ProviderKind::Runcrate);
    assert_eq!(intent.idempotency_key.as_deref(), Some("key-42"));
    assert_eq!(intent.request_sha256.len(), 64);
    assert!(
        !serde_json::to_string(&intent)
            .unwrap()
            .contains(RUNCRATE_KEY)
    );

    // A Together delete: started, then finished.
    Mock::given(method("DELETE"))
        .and(path("/compute/clusters/c-1"))
        .respond_with(json_response(200, &json!({"cluster_id": "c-1"})))
        .mount(&api.server)
        .await;
    let together =
        ClusterClient::together(api.together_config().with_journal(journal.clone())).unwrap();
    together.delete(&ClusterId::new("c-1")).await.unwrap();
    let events = journal.events.lock().unwrap().clone();
    assert_eq!(
        events[2..],
        ["delete started together c-1", "delete 8 finished ok=true"]
    );
}

#[tokio::test]
async fn an_ambiguous_failure_is_recorded_as_such() {
    let api = Api::start().await;
    Mock::given(method("GET"))
        .and(path("/compute/clusters"))
        .respond_with(json_response(200, &together_list(&[])))
        .mount(&api.server)
        .await;
    Mock::given(method("POST"))
        .and(path("/compute/clusters"))
        .respond_with(json_response(500, &json!({"error": {"message": "boom"}})))
        .mount(&api.server)
        .await;
    let journal = Arc::new(Memory::default());
    let client = ClusterClient::together(
        api.together_config()
            .with_journal(journal.clone())
            .with_reconcile_policy(gpucloud::ReconcilePolicy::default().with_max_resends(0)),
    )
    .unwrap();

    let error = create_ends(client.create(&together_spec()))
        .await
        .unwrap_err();

    assert!(error.is_ambiguous());
    assert_eq!(
        *journal.events.lock().unwrap(),
        ["create started train-42", "create 7 failed ambiguous=true"]
    );
    assert_eq!(journal.intents.lock().unwrap()[0].scope, None);
}

#[tokio::test]
async fn a_journal_that_cannot_record_stops_the_create_before_any_request() {
    let api = Api::start().await;
    let journal = Arc::new(Memory {
        refuse: true,
        ..Memory::default()
    });
    let client = ClusterClient::together(api.together_config().with_journal(journal)).unwrap();

    let error = client.create(&together_spec()).await.unwrap_err();

    assert!(matches!(error, Error::Journal(_)), "{error:?}");
    assert_eq!(error.to_string(), "journal: the ledger is locked");
    assert!(!error.is_ambiguous() && !error.is_retryable());
    assert!(api.all().await.is_empty(), "not even the look-up was sent");
}

/// A journal that keeps no lists of names (the trait's defaults) shares none: a create
/// through it still lists the account itself before its POST, and so finds a same-name
/// cluster someone else made instead of making a second.
#[tokio::test]
async fn a_journal_that_keeps_no_lists_of_names_leaves_the_look_up_to_the_provider() {
    let api = Api::start().await;
    let theirs = together_cluster("c-theirs", "train", "Ready", &[]);
    mount(
        &api,
        "GET",
        "/compute/clusters",
        json_response(200, &together_list(&[theirs])),
    )
    .await;
    let journal = Arc::new(Memory::default());
    let client =
        ClusterClient::together(api.together_config().with_journal(journal.clone())).unwrap();
    let mut spec = together_spec();
    spec.name = "train".into();

    let taken = client.create(&spec).await.unwrap_err();

    assert!(
        matches!(&taken, Error::NameTaken { cluster, .. } if cluster.as_str() == "c-theirs"),
        "{taken:?}"
    );
    assert_eq!(api.count("GET", "/compute/clusters").await, 1);
    assert_eq!(api.count("POST", "/compute/clusters").await, 0);
}

/// A journal that keeps no history knows of no earlier create: a Runcrate create through it
/// sends a key of its own (a fresh UUID for each create), never one taken from nowhere.
#[tokio::test]
async fn a_journal_that_keeps_no_history_gives_each_create_a_fresh_key() {
    let api = Api::start().await;
    let made = runcrate_cluster("3c90c3cc-0d44-4b50-8888-8dd25736052a", "train");
    mount(&api, "POST", "/clusters", json_response(201, &made)).await;
    let journal = Arc::new(Memory::default());
    let client =
        ClusterClient::runcrate(api.runcrate_config().with_journal(journal.clone())).unwrap();
    for name in ["train", "eval"] {
        let spec = gpucloud::ClusterSpec::new(name, gpucloud::ClusterSize::Nodes(2))
            .with_options(gpucloud::RuncrateOptions::for_offer("offer-h100x8"));
        client.create(&spec).await.unwrap();
    }

    let keys: Vec<String> = api
        .requests("POST", "/clusters")
        .await
        .iter()
        .map(|post| header(post, "idempotency-key").unwrap_or_default())
        .collect();
    assert_eq!(keys.len(), 2);
    for key in &keys {
        assert!(
            uuid::Uuid::parse_str(key).is_ok(),
            "not a fresh key: {key:?}"
        );
    }
    assert_ne!(keys[0], keys[1]);
}

/// A journal that lists creates it does not know the outcome of, but cannot settle them, makes
/// the settling an error: nothing is reported settled that was not recorded so.
#[tokio::test]
async fn a_journal_that_lists_unsettled_creates_but_cannot_settle_them_is_an_error() {
    #[derive(Debug)]
    struct ListsOnly;
    impl Journal for ListsOnly {
        fn create_started(&self, _: &CreateIntent) -> Result<IntentId, JournalError> {
            Ok(1)
        }
        fn create_finished(&self, _: IntentId, _: &CreateRecord<'_>) -> Result<(), JournalError> {
            Ok(())
        }
        fn delete_started(&self, _: ProviderKind, _: &ClusterId) -> Result<IntentId, JournalError> {
            Ok(2)
        }
        fn delete_finished(&self, _: IntentId, _: Option<&Error>) -> Result<(), JournalError> {
            Ok(())
        }
        fn unsettled(
            &self,
            _: ProviderKind,
        ) -> Result<Vec<gpucloud::journal::Unsettled>, JournalError> {
            Ok(vec![gpucloud::journal::Unsettled {
                intent: 9,
                name: "train".into(),
                scope: None,
                idempotency_key: None,
                age: std::time::Duration::from_secs(3600),
                origin: None,
            }])
        }
    }
    let api = Api::start().await;
    let made = together_cluster("c-made", "train", "Ready", &[]);
    mount(
        &api,
        "GET",
        "/compute/clusters",
        json_response(200, &together_list(&[made])),
    )
    .await;

    let settled = gpucloud::settle::settle_pending(
        &ListsOnly,
        &api.together(),
        &gpucloud::settle::SettleOptions::default(),
    )
    .await;

    assert!(matches!(settled, Err(Error::Journal(_))), "{settled:?}");
}
