//! Forward compatibility: unknown plan types, locations and actions, unknown fields and `null`s.

use gpucloud_e2e::types::{self, ClusterAction, Location, PlanSkuType};
use gpucloud_integration_tests::{mock_server, single_request};
use serde_json::{Value, json};

use crate::documented::doc_cluster_envelope;
use crate::harness::{Expect, assert_request, client, serve};
use crate::{CLUSTER, PROJECT};

#[tokio::test]
async fn unknown_plan_type_unknown_fields_and_documented_nulls_decode() {
    let mut body = doc_cluster_envelope(200);
    let data = &mut body["data"];
    data["sku_details"]["plan"]["sku_type"] = json!("spot");
    data["sku_details"]["plan"]["location"] = json!("Mumbai");
    data["sku_details"]["plan"]["brand_new_plan_field"] = json!({"x": 1});
    data["brand_new_field"] = json!([1, 2, 3]);
    data["status"] = json!("Hibernating");
    // The five documented nullable fields are explicit nulls in the example, not absent keys.
    for key in [
        "private_cloud_id",
        "private_cloud_name",
        "local_storage_per_node",
    ] {
        assert_eq!(data.get(key), Some(&Value::Null), "{key}");
    }
    body["request_id"] = json!("abc");

    let server = mock_server().await;
    serve(
        &server,
        "GET",
        "/distributed_jobs_v2/cluster/101/",
        200,
        body,
    )
    .await;
    let cluster = client(&server)
        .get_cluster()
        .cluster_id(CLUSTER)
        .project_id(PROJECT)
        .location(Location::Delhi)
        .send()
        .await
        .unwrap()
        .into_inner()
        .data
        .unwrap();

    let plan = cluster.sku_details.as_ref().unwrap().plan.as_ref().unwrap();
    let sku_type = plan.sku_type.clone().unwrap();
    assert_eq!(sku_type, PlanSkuType::Unknown("spot".into()));
    assert!(!sku_type.is_known());
    assert_eq!(sku_type.as_str(), "spot");
    assert_eq!(serde_json::to_value(&sku_type).unwrap(), json!("spot"));
    assert_eq!(
        serde_json::from_value::<PlanSkuType>(json!("spot")).unwrap(),
        sku_type
    );
    // Response locations are plain strings: an undocumented region decodes as is.
    assert_eq!(plan.location.as_deref(), Some("Mumbai"));
    assert_eq!(cluster.status.as_deref(), Some("Hibernating"));

    // Documented nullable fields.
    assert_eq!(cluster.private_cloud_id, None);
    assert_eq!(cluster.private_cloud_name, None);
    assert_eq!(cluster.local_storage_per_node, None);
    assert_eq!(
        cluster
            .sku_details
            .as_ref()
            .unwrap()
            .specs
            .as_ref()
            .unwrap()
            .gpu_card_type,
        None
    );
    assert_eq!(plan.description, None);

    // Re-serialized: unknown enum kept verbatim, unknown fields and nulls dropped.
    let again = serde_json::to_value(&cluster).unwrap();
    assert_eq!(again["sku_details"]["plan"]["sku_type"], json!("spot"));
    assert!(again.get("brand_new_field").is_none());
    assert!(again.get("private_cloud_id").is_none());
    assert_eq!(
        serde_json::from_value::<types::TrainingCluster>(again).unwrap(),
        cluster
    );
}

#[tokio::test]
async fn unknown_location_and_action_are_sent_verbatim() {
    assert_eq!(Location::KNOWN_VALUES, &["Delhi", "Chennai"]);
    let mumbai = Location::from("Mumbai");
    assert_eq!(mumbai, Location::Unknown("Mumbai".into()));
    assert!(!mumbai.is_known());
    assert_eq!(serde_json::to_value(&mumbai).unwrap(), json!("Mumbai"));
    assert_eq!(
        serde_json::from_value::<Location>(json!("Mumbai")).unwrap(),
        mumbai
    );
    assert_eq!(
        serde_json::from_value::<Location>(json!("Delhi")).unwrap(),
        Location::Delhi
    );
    for raw in ClusterAction::KNOWN_VALUES {
        assert_eq!(ClusterAction::from(*raw).as_str(), *raw);
        assert!(ClusterAction::from(*raw).is_known());
    }

    let server = mock_server().await;
    serve(
        &server,
        "PUT",
        "/distributed_jobs_v2/cluster/101/",
        200,
        json!({"code": 200, "data": {}, "errors": {}, "message": "Success"}),
    )
    .await;
    client(&server)
        .update_cluster()
        .cluster_id(CLUSTER)
        .project_id(PROJECT)
        .location("Mumbai")
        .body_map(|b| b.action(ClusterAction::Unknown("resize_disk".into())))
        .send()
        .await
        .unwrap();
    assert_request(
        &single_request(&server).await,
        Expect {
            method: "PUT",
            path: "/distributed_jobs_v2/cluster/101/",
            query: &[("project_id", "10001"), ("location", "Mumbai")],
            body: Some(json!({"action": "resize_disk"})),
        },
    );
}
