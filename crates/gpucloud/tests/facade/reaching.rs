//! Which client reaches a cluster a journal recorded: the client of the create's own origin
//! (endpoint and credentials; for E2E, project and location too), moved to the create's
//! scope where that is where it was sent, and none where the same id would be another
//! endpoint's or account's cluster.

use gpucloud::{ClusterClient, ClusterSpec, ProviderKind};

/// A client of `provider` whose variables are `vars` (its credentials, endpoint, settings).
fn client(provider: ProviderKind, vars: &[(&str, &str)]) -> ClusterClient {
    let vars: Vec<(String, String)> = vars
        .iter()
        .map(|(k, v)| (k.to_string(), v.to_string()))
        .collect();
    let lookup = |name: &str| vars.iter().find(|(k, _)| k == name).map(|(_, v)| v.clone());
    ClusterClient::from_vars(provider, &lookup, |_| {}).unwrap()
}

const E2E: [(&str, &str); 4] = [
    ("E2E_API_KEY", "e2e-key-0000001"),
    ("E2E_AUTH_TOKEN", "e2e-token-000001"),
    ("E2E_PROJECT_ID", "4242"),
    ("E2E_LOCATION", "Delhi"),
];

#[test]
fn the_origin_is_the_endpoint_and_a_fingerprint_of_the_credentials() {
    let key = [("TOGETHER_API_KEY", "tg-key-000000001")];
    let together = client(ProviderKind::Together, &key);
    let origin = together.origin();
    let (endpoint, fingerprint) = origin.split_once(" as ").unwrap();
    assert_eq!(
        endpoint,
        gpucloud::together::DEFAULT_BASE_URL.trim_end_matches('/')
    );
    assert_eq!(fingerprint.len(), 16, "{origin}");
    assert!(
        fingerprint.chars().all(|c| c.is_ascii_hexdigit()),
        "{origin}"
    );
    assert!(!origin.contains("tg-key"), "{origin}");
    // Another key is another origin; the same key at another endpoint too.
    let other_key = client(
        ProviderKind::Together,
        &[("TOGETHER_API_KEY", "tg-key-000000002")],
    );
    assert_ne!(other_key.origin(), origin);
    let elsewhere = client(
        ProviderKind::Together,
        &[key[0], ("TOGETHER_BASE_URL", "http://127.0.0.1:9/v1")],
    );
    assert_ne!(elsewhere.origin(), origin);
}

#[test]
fn a_client_reaches_only_its_own_origins_clusters() {
    let key = [("TOGETHER_API_KEY", "tg-key-000000001")];
    let together = client(ProviderKind::Together, &key);
    let origin = together.origin().to_string();
    // Recorded by this origin, or by a create that recorded none: this client.
    let same = together.reaching(Some(&origin), None).unwrap();
    assert_eq!(same.origin(), origin);
    assert_eq!(together.reaching(None, None).unwrap().origin(), origin);
    // Another account's cluster: no client here reaches it.
    let other = client(
        ProviderKind::Together,
        &[("TOGETHER_API_KEY", "tg-key-000000002")],
    );
    assert!(together.reaching(Some(other.origin()), None).is_none());
    assert!(
        together
            .reaching(Some(other.origin()), Some("anything"))
            .is_none()
    );
}

#[test]
fn an_e2e_client_reaches_its_projects_clusters_in_any_location_and_no_other_projects() {
    let delhi = client(ProviderKind::E2e, &E2E);
    let chennai_vars = [E2E[0], E2E[1], E2E[2], ("E2E_LOCATION", "Chennai")];
    let chennai = client(ProviderKind::E2e, &chennai_vars);
    assert_ne!(delhi.origin(), chennai.origin());
    // A create sent to Chennai is reached through a client moved there.
    let moved = delhi
        .reaching(Some(chennai.origin()), Some("4242/Chennai"))
        .unwrap();
    assert_eq!(moved.origin(), chennai.origin());
    assert_eq!(moved.list_scope().as_deref(), Some("4242/Chennai"));
    // Another project's Chennai is not this account's to reach.
    let other_project = [
        E2E[0],
        E2E[1],
        ("E2E_PROJECT_ID", "999"),
        ("E2E_LOCATION", "Chennai"),
    ];
    let theirs = client(ProviderKind::E2e, &other_project);
    assert!(
        delhi
            .reaching(Some(theirs.origin()), Some("999/Chennai"))
            .is_none()
    );
    // A request pinned to a location is resolved and made there.
    let spec = ClusterSpec::new("x", gpucloud::ClusterSize::Nodes(1)).with_region("Chennai");
    assert_eq!(delhi.for_request(&spec).origin(), chennai.origin());
    assert_eq!(
        delhi
            .for_request(&ClusterSpec::new("x", gpucloud::ClusterSize::Nodes(1)))
            .origin(),
        delhi.origin()
    );
}
