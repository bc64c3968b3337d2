//! A provider whose list shows a new cluster only some time after the create that made it
//! (lists of real control planes are eventually consistent), answering the create itself with
//! a 500: the facade must find the cluster instead of creating a second one.

use std::sync::{Arc, Mutex};
use std::time::Duration;

use gpucloud::clock::{Clock, ManualClock};
use gpucloud::{ClusterId, CreateOutcome};
use serde_json::{Value, json};
use wiremock::matchers::{method, path};
use wiremock::{Mock, Request, Respond, ResponseTemplate};

use crate::support::*;

/// One cluster store shared by the create and list mocks, on the test's manual clock.
#[derive(Clone)]
struct LaggingProvider {
    clock: ManualClock,
    lag: Duration,
    created_at: Arc<Mutex<Option<Duration>>>,
    listed: fn(bool) -> Value,
    created: Value,
}

struct Create(LaggingProvider);
struct List(LaggingProvider);

impl Respond for Create {
    fn respond(&self, _: &Request) -> ResponseTemplate {
        let mut created_at = self.0.created_at.lock().unwrap();
        if created_at.is_none() {
            *created_at = Some(self.0.clock.now());
            // The cluster exists, but the answer is lost to a 500.
            return json_response(500, &json!({"error": {"message": "internal"}}));
        }
        json_response(200, &self.0.created)
    }
}

impl Respond for List {
    fn respond(&self, _: &Request) -> ResponseTemplate {
        let visible = self
            .0
            .created_at
            .lock()
            .unwrap()
            .is_some_and(|at| self.0.clock.now() >= at + self.0.lag);
        json_response(200, &(self.0.listed)(visible))
    }
}

async fn mount(api: &Api, provider: &LaggingProvider, collection: &str) {
    Mock::given(method("POST"))
        .and(path(collection))
        .respond_with(Create(provider.clone()))
        .mount(&api.server)
        .await;
    Mock::given(method("GET"))
        .and(path(collection))
        .respond_with(List(provider.clone()))
        .mount(&api.server)
        .await;
}

/// Lags inside the default 90 s settle window, from none to nearly all of it.
const LAGS: [u64; 6] = [0, 1, 5, 30, 60, 85];

#[tokio::test]
async fn together_creates_once_whatever_the_lists_lag() {
    for lag in LAGS {
        let api = Api::start().await;
        let provider = LaggingProvider {
            clock: api.clock.clone(),
            lag: Duration::from_secs(lag),
            created_at: Arc::default(),
            listed: |visible| {
                let clusters = if visible {
                    vec![together_cluster(
                        "c-1",
                        "train-42",
                        "WaitingForControlPlaneNodes",
                        &[],
                    )]
                } else {
                    vec![]
                };
                together_list(&clusters)
            },
            created: together_cluster("c-1", "train-42", "WaitingForControlPlaneNodes", &[]),
        };
        mount(&api, &provider, "/compute/clusters").await;

        let result = api.together().create(&together_spec()).await.unwrap();

        assert_eq!(
            api.count("POST", "/compute/clusters").await,
            1,
            "lag {lag} s"
        );
        assert_eq!(
            result.outcome,
            CreateOutcome::CreatedReconciled,
            "lag {lag} s"
        );
        assert_eq!(result.cluster.id, ClusterId::new("c-1"));
        api.assert_all_matched();
    }
}

#[tokio::test]
async fn e2e_creates_once_whatever_the_lists_lag() {
    for lag in LAGS {
        let api = Api::start().await;
        let provider = LaggingProvider {
            clock: api.clock.clone(),
            lag: Duration::from_secs(lag),
            created_at: Arc::default(),
            listed: |visible| {
                let clusters = if visible {
                    vec![e2e_cluster(101, "train-e2e", "Creating")]
                } else {
                    vec![]
                };
                e2e_envelope(200, Value::Array(clusters))
            },
            created: e2e_envelope(200, e2e_cluster(101, "train-e2e", "Creating")),
        };
        mount(&api, &provider, "/distributed_jobs_v2/cluster/").await;
        e2e_list_ends_after_page_1(&api, "/distributed_jobs_v2/cluster/").await;

        let result = api.e2e().create(&e2e_spec()).await.unwrap();

        assert_eq!(
            api.count("POST", "/distributed_jobs_v2/cluster/").await,
            1,
            "lag {lag} s"
        );
        assert_eq!(
            result.outcome,
            CreateOutcome::CreatedReconciled,
            "lag {lag} s"
        );
        assert_eq!(result.cluster.id, ClusterId::new("101"));
        api.assert_all_matched();
    }
}

#[tokio::test]
async fn a_list_that_lags_beyond_the_window_costs_one_resend_at_most() {
    let api = Api::start().await;
    let provider = LaggingProvider {
        clock: api.clock.clone(),
        lag: Duration::from_secs(3600),
        created_at: Arc::default(),
        listed: |_| together_list(&[]),
        created: together_cluster("c-2", "train-42", "WaitingForControlPlaneNodes", &[]),
    };
    mount(&api, &provider, "/compute/clusters").await;

    let result = api.together().create(&together_spec()).await.unwrap();

    // The default policy re-sends once after a full settle window without the cluster.
    assert_eq!(result.outcome, CreateOutcome::Created);
    assert_eq!(api.count("POST", "/compute/clusters").await, 2);
    assert_eq!(api.clock.now(), Duration::from_secs(90));
}

#[tokio::test]
async fn max_resends_zero_never_sends_a_second_post() {
    let api = Api::start().await;
    let provider = LaggingProvider {
        clock: api.clock.clone(),
        lag: Duration::from_secs(3600),
        created_at: Arc::default(),
        listed: |_| together_list(&[]),
        created: together_cluster("c-2", "train-42", "WaitingForControlPlaneNodes", &[]),
    };
    mount(&api, &provider, "/compute/clusters").await;
    let client = gpucloud::ClusterClient::together(
        api.together_config()
            .with_reconcile_policy(gpucloud::ReconcilePolicy::default().with_max_resends(0)),
    )
    .unwrap();

    let error = create_ends(client.create(&together_spec()))
        .await
        .unwrap_err();

    assert_eq!(error.status(), Some(500));
    assert!(error.is_ambiguous());
    assert_eq!(api.count("POST", "/compute/clusters").await, 1);
}
