//! E2E's documented examples (`tests/fixtures/e2e`): the requests sent unchanged, the response
//! decoded value by value, and the typed bodies the other modules send.

use gpucloud_e2e::types::{self, ClusterAction, Location, PlanSkuType};
use gpucloud_integration_tests::{fixture, fixture_index, mock_server, single_request};
use serde_json::{Value, json};

use crate::harness::{Expect, assert_request, client, serve};
use crate::{PROJECT, PROVIDER};

pub fn doc_cluster_envelope(code: i64) -> Value {
    let mut body = fixture(PROVIDER, "create_cluster.response.201.json");
    body["code"] = json!(code);
    body
}

/// A create body built with the typed builder, every optional field set.
pub fn full_body() -> types::builder::CreateClusterRequest {
    types::CreateClusterRequest::builder()
        .name("llm-train")
        .image_version_id(2)
        .ssh_key_ids(vec![1001, 1002])
        .security_group_id(77)
        .script_added(true)
        .lifecycle_script("#!/bin/bash\necho ready".to_string())
        .sfs_mount_list(vec![types::SfsMount {
            id: Some(5),
            name: Some("datasets".into()),
            mount_path: Some("/mnt/sfs".into()),
        }])
        .pfs_mount_list(vec![types::PfsMount(
            json!({"id": 9}).as_object().unwrap().clone(),
        )])
        .dataset_mount_list(vec![types::DatasetMount(serde_json::Map::new())])
        .sku_id(139)
        .no_of_nodes(2)
        .sku_item_price_id(645)
}

pub fn full_body_json() -> Value {
    json!({
        "name": "llm-train",
        "image_version_id": 2,
        "ssh_key_ids": [1001, 1002],
        "security_group_id": 77,
        "script_added": true,
        "lifecycle_script": "#!/bin/bash\necho ready",
        "sfs_mount_list": [{"id": 5, "name": "datasets", "mount_path": "/mnt/sfs"}],
        "pfs_mount_list": [{"id": 9}],
        "dataset_mount_list": [{}],
        "sku_id": 139,
        "no_of_nodes": 2,
        "sku_item_price_id": 645
    })
}

/// Every value of the documented create response's `data`.
pub fn assert_documented_cluster(c: &types::TrainingCluster) {
    assert_eq!(c.id, Some(101));
    assert_eq!(c.name.as_deref(), Some("training-cluster-010125103045"));
    let creator = c.created_by.as_ref().unwrap();
    assert_eq!(creator.id, Some(1001));
    assert_eq!(creator.name.as_deref(), Some("John Doe"));
    assert_eq!(creator.email.as_deref(), Some("user@example.com"));
    assert_eq!(creator.username.as_deref(), Some("user@example.com"));
    assert_eq!(creator.is_primary_contact, Some(true));
    assert_eq!(creator.currency.as_deref(), Some("INR"));
    assert_eq!(creator.is_suspended, Some(false));
    assert_eq!(c.no_of_nodes, Some(1));
    assert_eq!(c.created_at, Some("2025-01-15T10:30:00Z".parse().unwrap()));
    assert_eq!(c.private_cloud_id, None);
    assert_eq!(c.private_cloud_name, None);

    let sku = c.sku_details.as_ref().unwrap();
    let specs = sku.specs.as_ref().unwrap();
    assert_eq!(specs.sku_id, Some(139));
    assert_eq!(specs.name.as_deref(), Some("C3.32GB"));
    assert_eq!(specs.series.as_deref(), Some("CPU"));
    assert_eq!(specs.cpu, Some(8));
    assert_eq!(specs.gpu, Some(0));
    assert_eq!(specs.memory, Some(32));
    assert_eq!(specs.ephemeral_storage, Some(0));
    assert_eq!(specs.gpu_memory, Some(0));
    assert_eq!(specs.is_free, Some(false));
    assert_eq!(specs.is_active, Some(true));
    assert_eq!(specs.local_storage_in_gb, Some(0));
    assert_eq!(specs.sku_type.as_deref(), Some("C3-250GB"));
    assert_eq!(specs.gpu_card_type, None);
    assert_eq!(specs.category.as_deref(), Some("distributed_job"));
    assert_eq!(specs.variant.as_deref(), Some("e2e"));
    assert_eq!(specs.no_of_nodes, Some(1));
    let plan = sku.plan.as_ref().unwrap();
    assert_eq!(plan.sku_item_price_id, Some(645));
    assert_eq!(plan.sku_type, Some(PlanSkuType::Hourly));
    assert_eq!(plan.committed_days, Some(0));
    assert_eq!(plan.unit_price, Some(12.3));
    assert_eq!(plan.currency.as_deref(), Some("INR"));
    assert_eq!(plan.is_active, Some(true));
    assert_eq!(plan.description, None);
    assert_eq!(plan.location.as_deref(), Some("Delhi"));

    assert_eq!(c.total_gpu, Some(0));
    assert_eq!(c.total_cpu, Some(0));
    assert_eq!(c.total_memory.as_deref(), Some("0 GB"));
    assert_eq!(c.available_gpu, Some(0));
    assert_eq!(c.available_cpu, Some(0));
    assert_eq!(c.available_memory.as_deref(), Some("0 GB"));
    assert!(c.worker_nodes.is_empty());
    assert_eq!(c.has_local_storage, Some(false));
    assert_eq!(c.local_storage_per_node, None);
    assert_eq!(c.status.as_deref(), Some("Creating"));
    assert_eq!(c.image_pull_policy.as_deref(), Some("IfNotPresent"));

    let image = c.image_version.as_ref().unwrap();
    assert_eq!(image.id, Some(2));
    assert_eq!(image.version.as_deref(), Some("v2-slurm25.11-ubuntu24.04"));
    assert_eq!(image.description.as_deref(), Some(""));
    assert!(image.tags.is_empty());
    assert_eq!(image.name.as_deref(), Some("Ubuntu Slurm"));
    assert_eq!(image.slug_name.as_deref(), Some("ubuntu-slurm"));
    assert_eq!(image.framework.as_deref(), Some("Slurm"));
    assert_eq!(image.is_internal, Some(false));

    assert_eq!(c.ssh_keys.len(), 1);
    assert_eq!(c.ssh_keys[0].pk, Some(1001));
    assert_eq!(c.ssh_keys[0].label.as_deref(), Some("my-ssh-key"));
    assert!(
        c.ssh_keys[0]
            .ssh_key
            .as_deref()
            .unwrap()
            .starts_with("ssh-rsa AAAAB3NzaC1yc2E")
    );
    assert_eq!(c.ssh_public_ip.as_deref(), Some(""));
    assert_eq!(c.has_floating_ip, Some(true));
    assert!(c.reserve_ip.is_empty());

    let clone = c.clone_data.as_ref().unwrap();
    assert_eq!(clone.name.as_deref(), Some("training-cluster-010125103045"));
    assert_eq!(clone.image_version_id, Some(2));
    assert_eq!(clone.ssh_key_ids, vec![1001]);
    assert_eq!(clone.security_group_id, Some(1001));
    assert_eq!(clone.script_added, Some(false));
    assert_eq!(clone.lifecycle_script.as_deref(), Some(""));
    assert!(clone.sfs_mount_list.is_empty());
    assert!(clone.pfs_mount_list.is_empty());
    assert!(clone.dataset_mount_list.is_empty());
    assert_eq!(clone.sku_id, Some(139));
    assert_eq!(clone.no_of_nodes, Some(1));
    assert_eq!(clone.sku_item_price_id, Some(645));
    assert_eq!(clone.project_id, Some(10001));
}

#[tokio::test]
async fn documented_request_fixtures_are_sent_unchanged() {
    let requests: Vec<_> = fixture_index(PROVIDER)
        .into_iter()
        .filter(|e| e.kind == "request")
        .collect();
    let files: Vec<_> = requests.iter().map(|e| e.file.as_str()).collect();
    assert_eq!(
        files,
        [
            "create_cluster.request.json",
            "create_cluster.request.curl.json"
        ]
    );

    for entry in &requests {
        assert_eq!(entry.schema, "CreateClusterRequest");
        let doc = fixture(PROVIDER, &entry.file);
        let typed: types::CreateClusterRequest = serde_json::from_value(doc.clone()).unwrap();
        assert_eq!(typed.sfs_mount_list.len(), 1);
        assert_eq!(typed.pfs_mount_list.len(), 1);
        assert!(typed.pfs_mount_list[0].is_empty());
        assert_eq!(typed.dataset_mount_list.len(), 1);
        assert_eq!(typed.ssh_key_ids.len(), 1);
        assert!(typed.script_added.is_some());

        let server = mock_server().await;
        serve(
            &server,
            "POST",
            "/distributed_jobs_v2/cluster/",
            201,
            fixture(PROVIDER, "create_cluster.response.201.json"),
        )
        .await;
        client(&server)
            .create_cluster()
            .project_id(PROJECT)
            .location(Location::Delhi)
            .body(typed)
            .send()
            .await
            .unwrap();
        // Every key and value survives, `script_added: false` and the `{}` mounts included.
        assert_request(
            &single_request(&server).await,
            Expect {
                method: "POST",
                path: "/distributed_jobs_v2/cluster/",
                query: &[("project_id", "10001"), ("location", "Delhi")],
                body: Some(doc),
            },
        );
    }
}

#[test]
fn empty_optional_lists_are_dropped_but_required_ssh_key_ids_is_kept() {
    // The typed round trip drops an optional list when it is empty (skip_serializing_if
    // Vec::is_empty); the required `ssh_key_ids` is always sent, even empty.
    let doc = json!({
        "name": "n",
        "image_version_id": 1,
        "ssh_key_ids": [],
        "security_group_id": 1,
        "sfs_mount_list": [],
        "pfs_mount_list": [],
        "dataset_mount_list": [],
        "sku_id": 1,
        "no_of_nodes": 1,
        "sku_item_price_id": 1
    });
    let typed: types::CreateClusterRequest = serde_json::from_value(doc).unwrap();
    assert_eq!(
        serde_json::to_value(&typed).unwrap(),
        json!({
            "name": "n",
            "image_version_id": 1,
            "ssh_key_ids": [],
            "security_group_id": 1,
            "sku_id": 1,
            "no_of_nodes": 1,
            "sku_item_price_id": 1
        })
    );

    // Likewise `update_ssh_keys` with an empty list goes out without `ssh_key_ids`.
    let action = types::ClusterActionRequest::try_from(
        types::ClusterActionRequest::builder()
            .action(ClusterAction::UpdateSshKeys)
            .ssh_key_ids(Vec::<i64>::new()),
    )
    .unwrap();
    assert_eq!(
        serde_json::to_value(&action).unwrap(),
        json!({"action": "update_ssh_keys"})
    );
}

#[test]
fn documented_response_fixture_decodes() {
    let responses: Vec<_> = fixture_index(PROVIDER)
        .into_iter()
        .filter(|e| e.kind == "response")
        .collect();
    assert_eq!(responses.len(), 1);
    assert_eq!(responses[0].status, Some(201));
    let typed: types::ClusterResponse =
        serde_json::from_value(fixture(PROVIDER, &responses[0].file)).unwrap();
    assert_eq!(typed.code, Some(201));
    assert_documented_cluster(typed.data.as_ref().unwrap());
}
