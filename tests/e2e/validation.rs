//! Client-side validation before any network call.

use gpucloud_e2e::types::Location;
use gpucloud_integration_tests::{invalid_request, mock_server, received};

use crate::harness::client;
use crate::{CLUSTER, PROJECT};

#[tokio::test]
async fn missing_required_parameters_and_body_fields_are_rejected_before_sending() {
    let server = mock_server().await;
    let c = client(&server);

    assert_eq!(
        invalid_request(c.list_clusters().project_id(PROJECT).send().await),
        "location was not initialized"
    );
    assert_eq!(
        invalid_request(c.list_clusters().location(Location::Delhi).send().await),
        "project_id was not initialized"
    );
    assert_eq!(
        invalid_request(
            c.list_plans()
                .project_id(PROJECT)
                .location(Location::Delhi)
                .send()
                .await
        ),
        "variant was not initialized"
    );
    assert_eq!(
        invalid_request(
            c.get_cluster()
                .project_id(PROJECT)
                .location(Location::Delhi)
                .send()
                .await
        ),
        "cluster_id was not initialized"
    );
    assert_eq!(
        invalid_request(
            c.delete_cluster()
                .project_id(PROJECT)
                .location(Location::Delhi)
                .send()
                .await
        ),
        "cluster_id was not initialized"
    );
    assert_eq!(
        invalid_request(
            c.list_images()
                .job_type("Slurm")
                .project_id(PROJECT)
                .location(Location::Delhi)
                .send()
                .await
        ),
        "framework was not initialized"
    );
    assert_eq!(
        invalid_request(
            c.list_images()
                .framework("Slurm")
                .project_id(PROJECT)
                .location(Location::Delhi)
                .send()
                .await
        ),
        "job_type was not initialized"
    );
    assert_eq!(
        invalid_request(
            c.create_cluster()
                .project_id(PROJECT)
                .location(Location::Delhi)
                .body_map(|b| {
                    b.name("n")
                        .image_version_id(1)
                        .ssh_key_ids(vec![1])
                        .security_group_id(1)
                        .no_of_nodes(1)
                        .sku_item_price_id(1)
                })
                .send()
                .await
        ),
        "no value supplied for sku_id"
    );
    assert_eq!(
        invalid_request(
            c.create_cluster()
                .project_id(PROJECT)
                .location(Location::Delhi)
                .send()
                .await
        ),
        "no value supplied for image_version_id"
    );
    assert_eq!(
        invalid_request(
            c.update_cluster()
                .cluster_id(CLUSTER)
                .project_id(PROJECT)
                .location(Location::Delhi)
                .body_map(|b| b.additional_nodes(2_i64))
                .send()
                .await
        ),
        "no value supplied for action"
    );

    assert!(received(&server).await.is_empty(), "nothing may be sent");
}
