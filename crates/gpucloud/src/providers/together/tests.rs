//! Together: the status/phase tables against every value in the spec, and each documented
//! create rule.

use chrono::Utc;
use gpucloud_together::types::{ClusterPhase, ClusterStatus};

use super::state::*;
use super::*;
use crate::cluster::{ClusterState, ProviderCluster};
use crate::spec::{Billing, ClusterSize, SoftwareStack, TogetherOptions};

fn spec() -> ClusterSpec {
    ClusterSpec::new("train", ClusterSize::Gpus(16))
        .with_gpu_model("H100_SXM")
        .with_region("us-central-8")
        .with_options(TogetherOptions {
            nvidia_version_id: Some("v-570".into()),
            ..Default::default()
        })
}

fn rule_of(result: Result<types::GpuClusterCreateRequest, Error>) -> (String, String) {
    match result {
        Err(Error::Validation(v)) => (v.field, v.rule),
        other => panic!("expected a validation error, got {other:?}"),
    }
}

#[test]
fn every_documented_status_has_a_state() {
    for value in ClusterStatus::KNOWN_VALUES {
        let state = status_state(&ClusterStatus::from(*value));
        assert!(
            !matches!(state, ClusterState::Unknown(_)),
            "{value} is unmapped"
        );
    }
    let expected = [
        ("WaitingForControlPlaneNodes", ClusterState::Provisioning),
        ("WaitingForDataPlaneNodes", ClusterState::Provisioning),
        ("WaitingForSubnet", ClusterState::Provisioning),
        ("WaitingForSharedVolume", ClusterState::Provisioning),
        ("InstallingDrivers", ClusterState::Provisioning),
        ("RunningAcceptanceTests", ClusterState::Provisioning),
        ("Paused", ClusterState::Paused),
        ("OnDemandComputePaused", ClusterState::Paused),
        ("Ready", ClusterState::Ready),
        ("Degraded", ClusterState::Degraded),
        ("Deleting", ClusterState::Deleting),
        ("Scheduled", ClusterState::Pending),
    ];
    assert_eq!(expected.len(), ClusterStatus::KNOWN_VALUES.len());
    for (value, state) in expected {
        assert_eq!(status_state(&ClusterStatus::from(value)), state, "{value}");
    }
    assert_eq!(
        status_state(&ClusterStatus::from("Hibernating")),
        ClusterState::Unknown("Hibernating".into())
    );
}

#[test]
fn every_documented_phase_has_a_state() {
    use ClusterState::*;
    let expected = [
        ("CLUSTER_PHASE_QUEUED", Pending),
        ("CLUSTER_PHASE_SCHEDULED", Pending),
        (
            "CLUSTER_PHASE_WAITING_FOR_CONTROL_PLANE_NODES",
            Provisioning,
        ),
        ("CLUSTER_PHASE_WAITING_FOR_DATA_PLANE_NODES", Provisioning),
        ("CLUSTER_PHASE_WAITING_FOR_SUBNET", Provisioning),
        ("CLUSTER_PHASE_WAITING_FOR_SHARED_VOLUME", Provisioning),
        ("CLUSTER_PHASE_WAITING_FOR_AUTO_SCALER", Provisioning),
        ("CLUSTER_PHASE_INSTALLING_DRIVERS", Provisioning),
        ("CLUSTER_PHASE_RUNNING_ACCEPTANCE_TESTS", Provisioning),
        (
            "CLUSTER_PHASE_ACCEPTANCE_TESTS_FAILED",
            Failed("CLUSTER_PHASE_ACCEPTANCE_TESTS_FAILED".into()),
        ),
        ("CLUSTER_PHASE_RUNNING_NCCL_TESTS", Provisioning),
        (
            "CLUSTER_PHASE_NCCL_TESTS_FAILED",
            Failed("CLUSTER_PHASE_NCCL_TESTS_FAILED".into()),
        ),
        ("CLUSTER_PHASE_READY", Ready),
        ("CLUSTER_PHASE_PAUSED", Paused),
        ("CLUSTER_PHASE_ON_DEMAND_COMPUTE_PAUSED", Paused),
        ("CLUSTER_PHASE_DEGRADED", Degraded),
        ("CLUSTER_PHASE_DELETING", Deleting),
    ];
    assert_eq!(expected.len(), ClusterPhase::KNOWN_VALUES.len());
    for (value, state) in expected {
        assert_eq!(phase_state(&ClusterPhase::from(value)), state, "{value}");
    }
    assert_eq!(
        phase_state(&ClusterPhase::from("CLUSTER_PHASE_NEW")),
        Unknown("CLUSTER_PHASE_NEW".into())
    );
}

#[test]
fn failed_tests_phase_overrides_status_and_latest_phase_wins() {
    let info: types::GpuClusterInfo = serde_json::from_value(serde_json::json!({
        "cluster_id": "c1",
        "status": "RunningAcceptanceTests",
        "phase_transitions": [
            {"phase": "CLUSTER_PHASE_ACCEPTANCE_TESTS_FAILED", "transition_time": "2026-01-01T00:10:00Z"},
            {"phase": "CLUSTER_PHASE_QUEUED", "transition_time": "2026-01-01T00:00:00Z"}
        ]
    }))
    .unwrap();
    assert_eq!(
        state_of(&info),
        ClusterState::Failed("CLUSTER_PHASE_ACCEPTANCE_TESTS_FAILED".into())
    );
    let view = view(info.clone());
    assert_eq!(
        view.phase.as_deref(),
        Some("CLUSTER_PHASE_ACCEPTANCE_TESTS_FAILED")
    );

    let info: types::GpuClusterInfo =
        serde_json::from_value(serde_json::json!({"cluster_id": "c1"})).unwrap();
    assert_eq!(state_of(&info), ClusterState::Unknown(String::new()));
}

#[test]
fn spec_maps_to_the_documented_request() {
    let request = create_request(&spec().with_billing(Billing::Reserved { days: 30 })).unwrap();
    let body = serde_json::to_value(&request).unwrap();
    assert_eq!(body["cluster_name"], "train");
    assert_eq!(body["gpu_type"], "H100_SXM");
    assert_eq!(body["num_gpus"], 16);
    assert_eq!(body["region"], "us-central-8");
    assert_eq!(body["billing_type"], "RESERVED");
    assert_eq!(body["duration_days"], 30);
    assert_eq!(body["nvidia_version_id"], "v-570");
}

// Docs: "Number of GPUs … must be multiple of 8".
#[test]
fn num_gpus_is_a_positive_multiple_of_eight() {
    for bad in [0, 12] {
        let mut s = spec();
        s.size = ClusterSize::Gpus(bad);
        assert_eq!(rule_of(create_request(&s)).0, "num_gpus");
    }
    let mut s = spec();
    s.size = ClusterSize::Nodes(2);
    assert_eq!(rule_of(create_request(&s)).0, "num_gpus");
}

// Docs: auto_scale_max_gpus "required if auto scaling"; it is the upper bound.
#[test]
fn autoscaling_needs_a_max_at_least_num_gpus() {
    let with = |max| {
        spec().with_options(TogetherOptions {
            auto_scale: true,
            auto_scale_max_gpus: max,
            nvidia_version_id: Some("v".into()),
            ..Default::default()
        })
    };
    assert_eq!(
        rule_of(create_request(&with(None))).0,
        "auto_scale_max_gpus"
    );
    assert_eq!(
        rule_of(create_request(&with(Some(8)))).0,
        "auto_scale_max_gpus"
    );
    assert!(create_request(&with(Some(32))).is_ok());
    assert!(
        create_request(&with(Some(16))).is_ok(),
        "a max equal to num_gpus is at least num_gpus"
    );
}

// Docs: slurm_shm_size_gib "required when cluster_type is SLURM".
#[test]
fn slurm_needs_shared_memory_size() {
    let s = spec().with_stack(SoftwareStack::Slurm);
    assert_eq!(rule_of(create_request(&s)).0, "slurm_shm_size_gib");
    let s = s.with_options(TogetherOptions {
        slurm_shm_size_gib: Some(64),
        nvidia_version_id: Some("v".into()),
        ..Default::default()
    });
    assert!(create_request(&s).is_ok());
    let ray = spec().with_stack(SoftwareStack::Ray);
    assert_eq!(rule_of(create_request(&ray)).0, "cluster_type");
}

// Docs: SCHEDULED_CAPACITY "must specify reservation_start_time and reservation_end_time".
#[test]
fn scheduled_capacity_needs_an_ordered_window() {
    let t = |h| {
        chrono::DateTime::parse_from_rfc3339(&format!("2026-12-01T{h:02}:00:00Z"))
            .unwrap()
            .with_timezone(&Utc)
    };
    let ok = spec().with_billing(Billing::Scheduled {
        start: t(1),
        end: t(5),
    });
    let body = serde_json::to_value(create_request(&ok).unwrap()).unwrap();
    assert_eq!(body["billing_type"], "SCHEDULED_CAPACITY");
    assert_eq!(body["reservation_start_time"], "2026-12-01T01:00:00Z");
    let backwards = spec().with_billing(Billing::Scheduled {
        start: t(5),
        end: t(1),
    });
    assert_eq!(
        rule_of(create_request(&backwards)).0,
        "reservation_end_time"
    );
    let mut raw = create_request(&ok).unwrap();
    raw.reservation_end_time = None;
    assert!(
        matches!(validate(&raw), Err(Error::Validation(v)) if v.field == "reservation_start_time")
    );
}

// Reference anyOf: nvidia_version_id alone, or cuda_version + nvidia_driver_version together.
#[test]
fn driver_selection_is_the_id_or_the_legacy_pair() {
    let with = |id: Option<&str>, cuda: Option<&str>, driver: Option<&str>| {
        spec().with_options(TogetherOptions {
            nvidia_version_id: id.map(Into::into),
            cuda_version: cuda.map(Into::into),
            nvidia_driver_version: driver.map(Into::into),
            ..Default::default()
        })
    };
    assert!(create_request(&with(Some("v"), None, None)).is_ok());
    assert!(create_request(&with(None, Some("12.5"), Some("550"))).is_ok());
    assert!(create_request(&with(Some("v"), Some("12.5"), Some("550"))).is_ok());
    assert_eq!(
        rule_of(create_request(&with(None, Some("12.5"), None))).0,
        "cuda_version"
    );
    assert_eq!(
        rule_of(create_request(&with(Some("v"), None, Some("550")))).0,
        "cuda_version"
    );
    assert_eq!(
        rule_of(create_request(&with(None, None, None))).0,
        "nvidia_version_id"
    );
}

// Docs: capacity-pool and preemptible GPUs are multiples of 8 and part of num_gpus.
#[test]
fn pool_and_preemptible_counts_are_multiples_of_eight_within_num_gpus() {
    for (pool, preempt, field) in [
        (Some(4), None, "num_capacity_pool_gpus"),
        (Some(24), None, "num_capacity_pool_gpus"),
        (None, Some(12), "num_preemptible_gpus"),
        (None, Some(32), "num_preemptible_gpus"),
    ] {
        let s = spec().with_options(TogetherOptions {
            num_capacity_pool_gpus: pool,
            num_preemptible_gpus: preempt,
            nvidia_version_id: Some("v".into()),
            ..Default::default()
        });
        assert_eq!(rule_of(create_request(&s)).0, field);
    }
    // Multiples of 8 within num_gpus (16), none included, pass.
    for (pool, preempt) in [
        (Some(0), Some(0)),
        (Some(8), None),
        (None, Some(16)),
        (Some(16), Some(8)),
    ] {
        let s = spec().with_options(TogetherOptions {
            num_capacity_pool_gpus: pool,
            num_preemptible_gpus: preempt,
            nvidia_version_id: Some("v".into()),
            ..Default::default()
        });
        assert!(create_request(&s).is_ok(), "{pool:?} {preempt:?}");
    }
}

#[test]
fn fields_together_cannot_honour_are_rejected() {
    assert_eq!(
        rule_of(create_request(&spec().with_ssh_keys(["k"]))).0,
        "ssh_keys"
    );
    let mut s = spec();
    s.gpu_model = None;
    assert_eq!(rule_of(create_request(&s)).0, "gpu_type");
    let mut s = spec();
    s.region = None;
    assert_eq!(rule_of(create_request(&s)).0, "region");
    // Another provider's options ride along for a placement; Together reads only its own.
    let s = spec().with_options(crate::spec::RuncrateOptions::default());
    assert_eq!(create_request(&s).ok(), create_request(&spec()).ok());
}

#[test]
fn view_collects_nodes_and_times() {
    let info: types::GpuClusterInfo = serde_json::from_value(serde_json::json!({
        "cluster_id": "c1", "cluster_name": "train", "status": "Ready", "num_gpus": 16,
        "first_ready_at": "2026-01-01T01:00:00Z",
        "control_plane_nodes": [{"node_id": "cp-0", "host_name": "cp0", "public_ipv4": "1.2.3.4"}],
        "gpu_worker_nodes": [{"node_id": "w-0", "host_name": "w0", "num_gpus": 8}, {"node_id": "w-1", "num_gpus": 8}]
    }))
    .unwrap();
    let cluster = view(info.clone());
    assert_eq!(cluster.state, ClusterState::Ready);
    assert_eq!(cluster.gpu_count, Some(16));
    assert_eq!(cluster.nodes.len(), 3);
    assert_eq!(cluster.nodes[0].public_ip.as_deref(), Some("1.2.3.4"));
    assert_eq!(cluster.nodes[1].gpus, Some(8));
    assert_eq!(cluster.ready_at.map(|t| t.timestamp()), Some(1_767_229_200));
    let ProviderCluster::Together(raw) = &cluster.raw else {
        panic!()
    };
    assert_eq!(**raw, info);
    assert_eq!(
        serde_json::to_value(&cluster.raw).unwrap()["cluster_id"],
        "c1"
    );
}

fn with_kube_config(stated: serde_json::Value) -> Cluster {
    let info = serde_json::json!({"cluster_id": "c1", "kube_config": stated});
    view(serde_json::from_value(info).unwrap())
}

#[test]
fn the_kubeconfig_is_decoded_from_base64_and_never_shown_when_it_cannot_be() {
    use base64::Engine as _;
    use serde_json::json;
    const YAML: &str =
        "apiVersion: v1\nkind: Config\nusers:\n- name: admin\n  user:\n    token: t0ken-s3cret\n";
    let base64 = base64::engine::general_purpose::STANDARD;
    let encoded = base64.encode(YAML);
    // Wrapped at 76 columns, as `base64` on a shell writes it.
    let wrapped: Vec<&str> = encoded
        .as_bytes()
        .chunks(76)
        .map(|line| std::str::from_utf8(line).unwrap())
        .collect();
    let wrapped = wrapped.join("\n");
    assert!(wrapped.contains('\n'));
    for stated in [&encoded, &wrapped] {
        let decoded = with_kube_config(json!(stated)).kubeconfig().unwrap();
        assert_eq!(decoded.as_deref(), Some(YAML));
    }
    // Already YAML: taken as it is.
    let plain = with_kube_config(json!(YAML)).kubeconfig().unwrap();
    assert_eq!(plain.as_deref(), Some(YAML.trim_end()));
    // Not set yet.
    for unset in [json!(null), json!(""), json!(" \n ")] {
        assert_eq!(with_kube_config(unset).kubeconfig().unwrap(), None);
    }
    let no_field = view(serde_json::from_value(json!({"cluster_id": "c1"})).unwrap());
    assert_eq!(no_field.kubeconfig().unwrap(), None);

    let not_text = base64.encode([0xff, 0xfe, 0x00, 0x74]);
    for (stated, why) in [
        ("token t0ken-s3cret", "character 10 is not base64"),
        ("dG9rZW4", "its padding is not base64's"),
        ("dG9rZ", "5 characters is no base64 length"),
        (not_text.as_str(), "does not decode to UTF-8 text"),
    ] {
        let error = with_kube_config(json!(stated)).kubeconfig().unwrap_err();
        let Error::Decode(decode) = &error else {
            panic!("{error:?}")
        };
        assert_eq!(
            (decode.provider, decode.operation, decode.path.as_str()),
            (ProviderKind::Together, "get_cluster", "kube_config")
        );
        assert!(decode.message.contains(why), "{}", decode.message);
        let shown = format!("{error} {error:?}");
        assert!(
            !shown.contains("s3cret") && !shown.contains("dG9rZ"),
            "{shown}"
        );
    }
}

// Together's billing docs: "Clusters are automatically decommissioned when their reservation
// period ends": a ttl Together keeps itself is a reservation of whole days, rounded up.
#[test]
fn a_ttl_by_the_provider_is_a_reservation_of_whole_days_rounded_up() {
    use std::time::Duration;
    for (ttl, days) in [
        (Duration::from_secs(1), 1),
        (Duration::from_secs(24 * 3600), 1),
        (Duration::from_secs(30 * 3600), 2),
        (Duration::from_secs(90 * 24 * 3600), 90),
    ] {
        let request = create_request(&spec().with_ttl(ttl).with_ttl_by_provider(true)).unwrap();
        let body = serde_json::to_value(&request).unwrap();
        assert_eq!(body["billing_type"], "RESERVED", "{ttl:?}");
        assert_eq!(body["duration_days"], days, "{ttl:?}");
    }
    // Without it, the ttl is sent nowhere.
    let body =
        serde_json::to_value(create_request(&spec().with_ttl(Duration::from_secs(3600))).unwrap())
            .unwrap();
    assert_eq!(body["billing_type"], "ON_DEMAND");
    assert!(
        body.get("duration_days")
            .is_none_or(serde_json::Value::is_null)
    );
    // No ttl to keep, or a billing of its own: refused before anything is sent.
    for spec in [
        spec().with_ttl_by_provider(true),
        spec()
            .with_ttl(Duration::from_secs(3600))
            .with_ttl_by_provider(true)
            .with_billing(Billing::Reserved { days: 3 }),
    ] {
        match create_request(&spec) {
            Err(crate::Error::Validation(v)) => assert_eq!(v.field, "ttl_by_provider"),
            other => panic!("{other:?}"),
        }
    }
}
