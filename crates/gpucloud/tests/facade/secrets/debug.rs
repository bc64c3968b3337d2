//! The `Debug` of configs and clients, and plans in every rendering: no credential shows.

use super::{assert_no_secret, runcrate_spec};
use crate::support::*;

#[tokio::test]
async fn configs_clients_and_plans_show_no_secret() {
    let api = Api::start().await;
    let configs = [
        format!("{:?}", api.together_config()),
        format!("{:#?}", api.runcrate_config()),
        format!("{:?}", api.e2e_config()),
        format!(
            "{:?}",
            api.e2e_config()
                .with_credentials(E2E_API_KEY, E2E_TOKEN)
                .with_active_iam(7)
        ),
    ];
    for text in &configs {
        assert_no_secret("config Debug", text);
        assert!(text.contains("REDACTED"), "{text}");
    }
    let clients = [
        (api.together(), together_spec()),
        (api.runcrate(), runcrate_spec()),
        (api.e2e(), e2e_spec()),
    ];
    for (client, spec) in &clients {
        assert_no_secret("client Debug", &format!("{client:?} {client:#?}"));
        let plan = client.plan(spec).await.unwrap();
        assert_no_secret(
            "plan",
            &format!(
                "{plan}\n{plan:?}\n{}",
                serde_json::to_string(&plan).unwrap()
            ),
        );
    }
    assert!(api.all().await.is_empty());
}

/// Together's cluster object carries the cluster's admin kubeconfig: it is withheld from the
/// cluster's JSON (what `--json` prints) and `Debug` (what logs and errors show), and read
/// only through `Cluster::kubeconfig`.
#[tokio::test]
async fn a_clusters_kubeconfig_is_withheld_from_its_json_and_debug() {
    use base64::Engine as _;
    let api = Api::start().await;
    let kubeconfig = "apiVersion: v1\nusers:\n- name: admin\n  user:\n    token: KUBE-TOKEN-77\n";
    let mut info = together_cluster("c-1", "train-42", "Ready", &["CLUSTER_PHASE_READY"]);
    info["kube_config"] =
        serde_json::json!(base64::engine::general_purpose::STANDARD.encode(kubeconfig));
    mount(
        &api,
        "GET",
        "/compute/clusters/c-1",
        json_response(200, &info),
    )
    .await;

    let cluster = api
        .together()
        .get(&gpucloud::ClusterId::new("c-1"))
        .await
        .unwrap();

    let encoded = base64::engine::general_purpose::STANDARD.encode(kubeconfig);
    for shown in [
        serde_json::to_string(&cluster).unwrap(),
        format!("{cluster:?}"),
        format!("{cluster:#?}"),
    ] {
        assert!(!shown.contains(&encoded[..16]), "{shown}");
        assert!(!shown.contains("KUBE-TOKEN"), "{shown}");
    }
    let json = serde_json::to_value(&cluster).unwrap();
    assert_eq!(json["raw"]["kube_config"], "REDACTED");
    assert_eq!(
        json["raw"]["cluster_id"], "c-1",
        "the rest of the object is kept"
    );
    assert_eq!(cluster.kubeconfig().unwrap().as_deref(), Some(kubeconfig));
}
