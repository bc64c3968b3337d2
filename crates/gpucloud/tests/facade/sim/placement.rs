//! Catalogs, resolution and placement through the facade against the simulator: requests that
//! state only intent become ready clusters on every provider; a placement fails over when a
//! provider has no capacity (a state here, not an injected fault) or is too dear; an
//! ambiguous failure at the first candidate never leaves a second cluster anywhere.

use super::{client, finish, named, requests, sim};
use gpucloud::{
    Attempt, AttemptOutcome, Candidate, ClusterSize, ClusterSpec, ClusterState, CreateAndWait,
    CreateOutcome, E2eOptions, Error, ErrorKind, Placement, PriceCheck, ProviderKind,
};
use gpucloud_sim::{CapacityFilter, Fault, FaultKind, Provider};

/// Only name, GPU model and size — plus, for E2E, what belongs to the account rather than
/// the catalog (an SSH key and a security group).
fn intent(provider: Provider, name: &str) -> ClusterSpec {
    let spec = ClusterSpec::new(name, ClusterSize::Gpus(16)).with_gpu_model("H100");
    match provider {
        Provider::E2e => spec
            .with_ssh_keys(["101"])
            .with_options(E2eOptions::default().with_security_group_id(1)),
        _ => spec,
    }
}

/// A candidate per provider, each with its own request (only E2E's carries SSH keys).
fn candidates(
    sim: &gpucloud_sim::RunningSim,
    providers: &[Provider],
    name: &str,
) -> Vec<Candidate> {
    providers
        .iter()
        .map(|p| Candidate::new(client(sim, *p), intent(*p, name)))
        .collect()
}

const ALL: [Provider; 3] = [Provider::Together, Provider::Runcrate, Provider::E2e];

#[tokio::test]
async fn every_catalog_lists_h100_and_h200() {
    let sim = sim().await;
    for provider in [Provider::Together, Provider::Runcrate, Provider::E2e] {
        let catalog = client(&sim, provider).catalog().await.unwrap();
        for family in ["H100", "H200"] {
            assert!(
                catalog
                    .iter()
                    .any(|o| o.gpu_family.as_deref() == Some(family)),
                "{provider}: no {family} in {catalog:?}"
            );
        }
        assert!(
            catalog
                .iter()
                .all(|o| o.provider.as_str() == provider.as_str())
        );
    }
    finish(sim).await;
}

#[tokio::test]
async fn requests_with_only_intent_create_ready_clusters_on_every_provider() {
    let sim = sim().await;
    for provider in [Provider::Together, Provider::Runcrate, Provider::E2e] {
        let client = client(&sim, provider);
        let plan = client.plan(&intent(provider, "intent")).await.unwrap();
        assert!(!plan.resolved.is_empty(), "{provider}: nothing resolved");
        let ready = client
            .create_and_wait(
                &intent(provider, "intent"),
                &CreateAndWait::default(),
                |_| {},
            )
            .await
            .unwrap();
        assert_eq!(ready.cluster.state, ClusterState::Ready, "{provider}");
        assert_eq!(named(&sim, provider, "intent"), 1);
    }
    // Runcrate's and E2E's 8-GPU nodes: 16 GPUs are 2 nodes.
    let plan = client(&sim, Provider::Runcrate)
        .plan(&intent(Provider::Runcrate, "again"))
        .await
        .unwrap();
    assert_eq!(plan.body["node_count"], 2, "{}", plan.body);
    assert!(
        sim.spec_violations().is_empty(),
        "{:?}",
        sim.spec_violations()
    );
    finish(sim).await;
}

#[tokio::test]
async fn a_provider_without_capacity_fails_over_to_the_next_with_one_cluster_in_all() {
    let sim = sim().await;
    sim.capacity()
        .set(&CapacityFilter::new(Provider::Together, "H100_SXM"), 0)
        .unwrap();
    sim.capacity()
        .set(&CapacityFilter::new(Provider::Runcrate, "H100"), 0)
        .unwrap();
    let placement = Placement::new(candidates(&sim, &ALL, "anywhere")).allow_undeletable();

    let placed = placement.create().await.unwrap();

    assert_eq!(placed.provider, ProviderKind::E2e);
    assert_eq!(placed.created.outcome, CreateOutcome::Created);
    let outcomes: Vec<_> = placed
        .attempts
        .iter()
        .map(|a| {
            (
                a.provider,
                matches!(a.outcome, AttemptOutcome::Refused { .. }),
            )
        })
        .collect();
    // Each region of a provider is refused before the next provider is tried: Together's
    // three H100 regions, Runcrate's two H100 offers (each in its own region), then E2E.
    assert_eq!(
        outcomes,
        [
            (ProviderKind::Together, true),
            (ProviderKind::Together, true),
            (ProviderKind::Together, true),
            (ProviderKind::Runcrate, true),
            (ProviderKind::Runcrate, true),
            (ProviderKind::E2e, false)
        ]
    );
    assert!(matches!(
        placed.attempts[5].outcome,
        AttemptOutcome::Created
    ));
    let total: usize = [Provider::Together, Provider::Runcrate, Provider::E2e]
        .iter()
        .map(|p| named(&sim, *p, "anywhere"))
        .sum();
    assert_eq!(total, 1, "one cluster in all");
    // Refused creates were each sent once per region and never again.
    assert_eq!(requests(&sim, Provider::Together, "create_cluster"), 3);
    assert_eq!(requests(&sim, Provider::Runcrate, "create_cluster"), 2);
    // The plan fetched each catalog once.
    assert_eq!(requests(&sim, Provider::Together, "list_regions"), 1);
    assert_eq!(requests(&sim, Provider::Runcrate, "list_offers"), 1);
    finish(sim).await;
}

#[tokio::test]
async fn every_candidate_refusing_is_an_error_naming_each() {
    let sim = sim().await;
    for provider in [Provider::Together, Provider::Runcrate, Provider::E2e] {
        sim.capacity()
            .set(&CapacityFilter::new(provider, "H100"), 0)
            .unwrap();
    }
    let placement = Placement::new(candidates(&sim, &ALL, "nowhere")).allow_undeletable();
    let (failed, attempts) = refused(&placement).await;
    // The error is the last refusal, as it is: matched like any create's.
    assert!(matches!(failed, Error::NoCapacity(_)), "{failed}");
    // Together's three regions, Runcrate's two, E2E's one.
    assert_eq!(attempts.len(), 6);
    let text = said(&attempts);
    for place in [
        "together (eu-north-1)",
        "together (us-central-4)",
        "together (us-central-8)",
        "runcrate (Dallas, TX)",
        "runcrate (Nowhere, NV)",
        "e2e (Delhi)",
    ] {
        assert!(text.contains(&format!("{place}: no capacity")), "{text}");
    }
    finish(sim).await;
}

#[tokio::test]
async fn a_price_ceiling_and_cheapest_first_choose_the_provider() {
    let sim = sim().await;
    // Together states no price; Runcrate's H100 is 2 × 23.92 USD/h; E2E prices in INR.
    let plan = |allow_unpriced: bool| {
        let mut placement = Placement::new(candidates(&sim, &ALL, "priced"))
            .allow_undeletable()
            .cheapest_first()
            .with_max_price_per_hour(50.0, "USD");
        if allow_unpriced {
            placement = placement.allow_unpriced();
        }
        async move {
            let plans = placement.plan().await;
            plans
                .iter()
                .map(|p| (p.provider, p.resolution.is_ok()))
                .collect::<Vec<_>>()
        }
    };
    assert_eq!(
        plan(false).await,
        [
            (ProviderKind::Runcrate, true),
            (ProviderKind::Together, false),
            (ProviderKind::E2e, false)
        ],
        "known prices first; a ceiling cannot be checked without a price, nor a USD one \
         against INR"
    );
    assert_eq!(
        plan(true).await,
        [
            (ProviderKind::Runcrate, true),
            (ProviderKind::Together, true),
            (ProviderKind::E2e, false)
        ],
        "unpriced offerings allowed: Together is taken, unchecked"
    );

    // Under 40 USD/h nothing can be shown to fit: nothing is created.
    let (_, attempts) = refused(
        &Placement::new(candidates(&sim, &ALL, "priced"))
            .allow_undeletable()
            .with_max_price_per_hour(40.0, "USD"),
    )
    .await;
    let text = said(&attempts);
    assert!(text.contains("states no price"), "{text}");
    assert!(sim.clusters(Provider::Together).is_empty());
    assert!(sim.clusters(Provider::Runcrate).is_empty());

    let placed = Placement::new(candidates(&sim, &ALL, "priced"))
        .allow_undeletable()
        .with_max_price_per_hour(40.0, "USD")
        .allow_unpriced()
        .create()
        .await
        .unwrap();
    // Allowed, Together's unknown price does not skip it.
    assert_eq!(placed.provider, ProviderKind::Together);
    let after: Vec<_> = placed
        .attempts
        .iter()
        .map(|a| (a.provider, matches!(a.outcome, AttemptOutcome::NotTried)))
        .collect();
    assert_eq!(
        after,
        [
            (ProviderKind::Runcrate, false),
            (ProviderKind::E2e, false),
            (ProviderKind::Together, false),
            (ProviderKind::Together, true),
            (ProviderKind::Together, true),
        ],
        "every candidate and region is accounted for, the ones the plan passed over first \
         (Runcrate: over the ceiling; E2E: INR under a USD ceiling without a rate), saying why"
    );
    for (attempt, why) in placed.attempts.iter().zip(["40", "INR"]) {
        assert!(
            matches!(&attempt.outcome, AttemptOutcome::Skipped { reason, .. } if reason.contains(why)),
            "{attempt:?}"
        );
    }
    finish(sim).await;
}

#[tokio::test]
async fn an_ambiguous_failure_at_the_first_candidate_never_makes_a_second_cluster() {
    let sim = sim().await;
    // Together cannot be asked whether the name exists (its list keeps failing): the create
    // is not sent, and the placement stops there rather than try Runcrate, since a failure
    // it cannot read might hide a cluster.
    sim.faults()
        .inject(Fault::new(Provider::Together, FaultKind::DropConnection).on("create_cluster"));
    sim.faults().inject(
        Fault::new(Provider::Together, FaultKind::ServerError { status: 500 })
            .on("list_clusters")
            .times(1000),
    );
    let placement = Placement::new(candidates(
        &sim,
        &[Provider::Together, Provider::Runcrate],
        "ambiguous",
    ));

    let (failed, attempts) = refused(&placement).await;

    // Runcrate was passed over by the plan (its API cannot delete a cluster) and says so
    // first; Together's create failed in a way that may have made a cluster.
    assert!(
        matches!(
            attempts[0].outcome,
            AttemptOutcome::Skipped {
                kind: ErrorKind::Undeletable,
                ..
            }
        ),
        "{failed}"
    );
    assert_eq!(attempts[0].provider, ProviderKind::Runcrate);
    assert!(
        matches!(attempts[1].outcome, AttemptOutcome::Failed { .. }),
        "{failed}"
    );
    assert!(
        attempts[2..]
            .iter()
            .all(|a| a.provider == ProviderKind::Together
                && matches!(a.outcome, AttemptOutcome::NotTried)),
        "{failed}"
    );
    assert_eq!(requests(&sim, Provider::Runcrate, "create_cluster"), 0);
    assert_eq!(
        named(&sim, Provider::Runcrate, "ambiguous"),
        0,
        "never a second cluster"
    );

    // When the look-up works, the lost answer is found at Together and the placement ends there.
    sim.faults().clear();
    sim.faults()
        .inject(Fault::new(Provider::Together, FaultKind::DropConnection).on("create_cluster"));
    let placement = Placement::new(candidates(
        &sim,
        &[Provider::Together, Provider::Runcrate],
        "reconciled",
    ));
    let placed = placement.create().await.unwrap();
    assert_eq!(placed.provider, ProviderKind::Together);
    assert_eq!(placed.created.outcome, CreateOutcome::CreatedReconciled);
    assert_eq!(named(&sim, Provider::Together, "reconciled"), 1);
    assert_eq!(named(&sim, Provider::Runcrate, "reconciled"), 0);
    finish(sim).await;
}

#[tokio::test]
async fn a_candidate_that_cannot_honour_a_field_is_skipped_with_the_reason() {
    let sim = sim().await;
    // SSH keys: Together takes none at create time.
    let placement = Placement::new(
        [Provider::Together, Provider::E2e]
            .map(|p| Candidate::new(client(&sim, p), intent(Provider::E2e, "keys"))),
    );
    let placed = placement.create().await.unwrap();
    assert_eq!(placed.provider, ProviderKind::E2e);
    let AttemptOutcome::Skipped { kind, reason } = &placed.attempts[0].outcome else {
        panic!("{:?}", placed.attempts)
    };
    assert!(reason.contains("ssh_keys"), "{reason}");
    assert_eq!(*kind, ErrorKind::Validation, "{reason}");
    assert_eq!(requests(&sim, Provider::Together, "create_cluster"), 0);
    finish(sim).await;
}

#[tokio::test]
async fn a_provider_that_cannot_delete_is_a_candidate_only_when_allowed() {
    let sim = sim().await;
    // Runcrate first, with capacity: only its lack of a delete can pass it over.
    let placement = || {
        Placement::new(candidates(
            &sim,
            &[Provider::Runcrate, Provider::E2e],
            "keeps",
        ))
    };

    let plans = placement().plan().await;
    let skipped: Vec<_> = plans
        .iter()
        .map(|p| (p.provider, p.resolution.as_ref().err().map(Error::kind)))
        .collect();
    assert_eq!(
        skipped,
        [
            (ProviderKind::Runcrate, Some(ErrorKind::Undeletable)),
            (ProviderKind::E2e, None)
        ]
    );
    let placed = placement().create().await.unwrap();
    assert_eq!(placed.provider, ProviderKind::E2e);
    let AttemptOutcome::Skipped { kind, reason } = &placed.attempts[0].outcome else {
        panic!("{:?}", placed.attempts)
    };
    assert_eq!(*kind, ErrorKind::Undeletable);
    assert!(
        reason.contains("cannot delete") && reason.contains("Runcrate dashboard"),
        "says where it would have to be stopped: {reason}"
    );
    assert_eq!(requests(&sim, Provider::Runcrate, "create_cluster"), 0);

    let placed = placement().allow_undeletable().create().await.unwrap();
    assert_eq!(
        placed.provider,
        ProviderKind::Runcrate,
        "allowed, it is taken"
    );
    assert_eq!(requests(&sim, Provider::Runcrate, "create_cluster"), 1);
    finish(sim).await;
}

#[tokio::test]
async fn a_region_without_capacity_fails_over_to_the_next_region_of_the_same_provider() {
    let sim = sim().await;
    let together = || {
        Candidate::new(
            client(&sim, Provider::Together),
            intent(Provider::Together, "regional"),
        )
    };
    let plans = Placement::new([together()]).plan().await;
    let first = plans[0].resolution.as_ref().unwrap();
    let first_region = first.spec.region.clone().unwrap();
    let others: Vec<String> = plans[0]
        .other_regions
        .iter()
        .map(|r| r.spec.region.clone().unwrap())
        .collect();
    assert!(!others.is_empty(), "Together lists H100 in several regions");
    assert!(!others.contains(&first_region), "{others:?}");
    // The first region has no H100 left; the next one does.
    sim.capacity()
        .set(
            &CapacityFilter::new(Provider::Together, "H100_SXM").region(&first_region),
            0,
        )
        .unwrap();

    let placed = Placement::new([
        together(),
        Candidate::new(
            client(&sim, Provider::E2e),
            intent(Provider::E2e, "regional"),
        ),
    ])
    .create()
    .await
    .unwrap();

    assert_eq!(
        placed.provider,
        ProviderKind::Together,
        "{:?}",
        placed.attempts
    );
    assert_eq!(placed.resolution.spec.region.as_ref(), Some(&others[0]));
    let tried: Vec<_> = placed
        .attempts
        .iter()
        .map(|a| {
            let outcome = match &a.outcome {
                AttemptOutcome::Refused { kind, .. } => kind.as_str(),
                AttemptOutcome::Created => "created",
                AttemptOutcome::NotTried => "not_tried",
                other => panic!("{other:?}"),
            };
            (a.provider, a.region.clone(), outcome)
        })
        .collect();
    let mut expected = vec![
        (
            ProviderKind::Together,
            Some(first_region.clone()),
            "no_capacity",
        ),
        (ProviderKind::Together, Some(others[0].clone()), "created"),
    ];
    expected.extend(
        others[1..]
            .iter()
            .map(|r| (ProviderKind::Together, Some(r.clone()), "not_tried")),
    );
    expected.push((
        ProviderKind::E2e,
        tried.last().unwrap().1.clone(),
        "not_tried",
    ));
    assert_eq!(tried, expected);
    assert_eq!(requests(&sim, Provider::Together, "create_cluster"), 2);
    assert_eq!(named(&sim, Provider::Together, "regional"), 1);
    assert_eq!(named(&sim, Provider::E2e, "regional"), 0);

    // A pinned region is the only one tried.
    let (pinned, attempts) = refused(&Placement::new([Candidate::new(
        client(&sim, Provider::Together),
        intent(Provider::Together, "pinned").with_region(&first_region),
    )]))
    .await;
    assert!(matches!(pinned, Error::NoCapacity(_)), "{pinned}");
    assert_eq!(attempts.len(), 1, "{attempts:?}");
    finish(sim).await;
}

#[tokio::test]
async fn a_failure_that_is_not_a_refusal_ends_the_placement_where_it_happened() {
    let sim = sim().await;
    // The key is refused at the create (403): nothing was made, but the next provider is not
    // where the fix is; the placement ends and says so.
    sim.faults().inject(
        Fault::new(Provider::Together, FaultKind::ServerError { status: 403 }).on("create_cluster"),
    );
    let placement = Placement::new(candidates(
        &sim,
        &[Provider::Together, Provider::E2e],
        "forbidden",
    ));

    let (failed, attempts) = refused(&placement).await;

    assert_eq!(failed.kind(), ErrorKind::Authentication, "{failed}");
    let outcomes: Vec<_> = attempts
        .iter()
        .map(|a| match &a.outcome {
            AttemptOutcome::Failed { kind, .. } => (a.provider, Some(*kind)),
            AttemptOutcome::NotTried => (a.provider, None),
            other => panic!("{other:?}"),
        })
        .collect();
    assert_eq!(
        outcomes[0],
        (ProviderKind::Together, Some(ErrorKind::Authentication))
    );
    assert!(
        outcomes[1..].iter().all(|(_, kind)| kind.is_none()),
        "{outcomes:?}"
    );
    assert!(outcomes.iter().any(|(p, _)| *p == ProviderKind::E2e));
    assert_eq!(requests(&sim, Provider::E2e, "create_cluster"), 0);
    assert_eq!(requests(&sim, Provider::Together, "create_cluster"), 1);
    finish(sim).await;
}

/// A journal that remembers what each completed create of a name sent and made: enough for
/// a claim to say whether a later create of the name is the same request.
#[derive(Debug, Default)]
struct Remembering {
    creates: std::sync::Mutex<Vec<(gpucloud::journal::CreateIntent, Option<gpucloud::ClusterId>)>>,
}

impl gpucloud::journal::Journal for Remembering {
    fn create_started(
        &self,
        intent: &gpucloud::journal::CreateIntent,
    ) -> Result<gpucloud::journal::IntentId, gpucloud::journal::JournalError> {
        let mut creates = self.creates.lock().unwrap();
        creates.push((intent.clone(), None));
        Ok(creates.len() as u64)
    }
    fn create_finished(
        &self,
        intent: gpucloud::journal::IntentId,
        record: &gpucloud::journal::CreateRecord<'_>,
    ) -> Result<(), gpucloud::journal::JournalError> {
        if let gpucloud::journal::CreateRecord::Cluster { id, .. } = record {
            self.creates.lock().unwrap()[intent as usize - 1].1 = Some((*id).clone());
        }
        Ok(())
    }
    fn delete_started(
        &self,
        _: ProviderKind,
        _: &gpucloud::ClusterId,
    ) -> Result<gpucloud::journal::IntentId, gpucloud::journal::JournalError> {
        Ok(0)
    }
    fn delete_finished(
        &self,
        _: gpucloud::journal::IntentId,
        _: Option<&Error>,
    ) -> Result<(), gpucloud::journal::JournalError> {
        Ok(())
    }
    fn claim_create(
        &self,
        intent: &gpucloud::journal::CreateIntent,
        _: std::time::Duration,
    ) -> Result<gpucloud::journal::Claim, gpucloud::journal::JournalError> {
        let made = self
            .creates
            .lock()
            .unwrap()
            .iter()
            .enumerate()
            .find_map(|(i, (c, id))| {
                (c.name == intent.name).then_some(())?;
                Some((i as u64 + 1, id.clone()?, c.clone()))
            });
        if let Some((made_by, cluster, earlier)) = made {
            return Ok(gpucloud::journal::Claim::Exists {
                intent: made_by,
                cluster,
                same_request: earlier.request_sha256 == intent.request_sha256,
                request: earlier.request,
                deadline: earlier.deadline,
            });
        }
        self.create_started(intent)
            .map(|intent| gpucloud::journal::Claim::Owned {
                intent,
                took_over: None,
            })
    }
}

#[tokio::test]
async fn a_name_taken_in_one_region_by_the_same_request_in_another_is_found_there() {
    let sim = sim().await;
    let journal = std::sync::Arc::new(Remembering::default());
    let together = |spec: ClusterSpec| {
        Candidate::new(
            gpucloud::ClusterClient::together(
                gpucloud::TogetherConfig::new(gpucloud_sim::credentials::TOGETHER_API_KEY)
                    .with_base_url(sim.base_url(Provider::Together))
                    .with_journal(journal.clone()),
            )
            .unwrap(),
            spec,
        )
    };
    let e2e = || {
        Candidate::new(
            client(&sim, Provider::E2e),
            intent(Provider::E2e, "roaming"),
        )
    };
    let first_region = Placement::new([together(intent(Provider::Together, "roaming"))])
        .plan()
        .await[0]
        .resolution
        .as_ref()
        .unwrap()
        .spec
        .region
        .clone()
        .unwrap();
    let full = CapacityFilter::new(Provider::Together, "H100_SXM").region(&first_region);
    sim.capacity().set(&full, 0).unwrap();
    let placed = Placement::new([together(intent(Provider::Together, "roaming")), e2e()])
        .create()
        .await
        .unwrap();
    assert_ne!(placed.resolution.spec.region.as_ref(), Some(&first_region));

    // The first region has room again; the same request again is the cluster it made.
    sim.capacity().set(&full, 64).unwrap();
    let again = Placement::new([together(intent(Provider::Together, "roaming")), e2e()])
        .create()
        .await
        .unwrap();
    assert_eq!(again.created.outcome, CreateOutcome::AlreadyExisted);
    assert_eq!(again.created.cluster.id, placed.created.cluster.id);
    assert!(
        matches!(
            again.attempts[0].outcome,
            AttemptOutcome::Skipped {
                kind: ErrorKind::NameInUse,
                ..
            }
        ),
        "{:?}",
        again.attempts
    );

    // Another request under the name is refused in every region, and no other provider is
    // tried: the name is taken, and a second cluster of it elsewhere would be a double.
    let bigger = intent(Provider::Together, "roaming").with_size(ClusterSize::Gpus(32));
    let (name_in_use, attempts) = refused(&Placement::new([together(bigger), e2e()])).await;
    assert_eq!(name_in_use.kind(), ErrorKind::NameInUse, "{name_in_use}");
    assert!(
        attempts
            .iter()
            .filter(|a| a.provider == ProviderKind::E2e)
            .all(|a| matches!(a.outcome, AttemptOutcome::NotTried)),
        "{attempts:?}"
    );
    assert_eq!(named(&sim, Provider::Together, "roaming"), 1);
    assert_eq!(named(&sim, Provider::E2e, "roaming"), 0);
    finish(sim).await;
}

/// The ceiling is checked against the created cluster's own answer, not only the catalog's
/// price: a cluster whose answer states more is deleted at once (verified) and the placement
/// fails saying why; where the API cannot delete (Runcrate), the error says it may be billing.
#[tokio::test]
async fn a_cluster_whose_own_answer_is_over_the_ceiling_is_deleted_and_the_placement_fails() {
    let sim = sim().await;
    // E2E's catalog: 2 nodes × 2040 INR/h = 4080 INR/h, under 5000; the answer says 50000.
    sim.faults().inject(
        Fault::new(
            Provider::E2e,
            FaultKind::StatedPrice {
                cents_per_hour: 5_000_000,
            },
        )
        .on("create_cluster"),
    );
    let (failed, attempts) = refused(
        &Placement::new(candidates(&sim, &[Provider::E2e], "dear"))
            .with_max_price_per_hour(5000.0, "INR"),
    )
    .await;
    let Error::PriceAboveCeiling {
        per_hour,
        ceiling,
        deleted,
        delete_error,
        ..
    } = &failed
    else {
        panic!("{failed}")
    };
    assert_eq!((*per_hour, *ceiling, *deleted), (50_000.0, 5000.0, true));
    assert_eq!(delete_error, &None);
    assert!(
        failed
            .to_string()
            .contains("deleted, and the delete verified"),
        "{failed}"
    );
    assert_eq!(failed.kind(), ErrorKind::PriceAboveCeiling);
    assert!(matches!(
        attempts[0].outcome,
        AttemptOutcome::Failed {
            kind: ErrorKind::PriceAboveCeiling,
            ..
        }
    ));
    assert_eq!(requests(&sim, Provider::E2e, "create_cluster"), 1);
    assert_eq!(requests(&sim, Provider::E2e, "delete_cluster"), 1);
    assert!(
        sim.clusters(Provider::E2e).iter().all(|c| c.name != "dear"),
        "{:?}",
        sim.clusters(Provider::E2e)
    );

    // Runcrate: 2 × 23.92 USD/h by the catalog, under 50; the answer says 400. Its API cannot
    // delete, so the error says it may be billing.
    sim.faults().inject(
        Fault::new(
            Provider::Runcrate,
            FaultKind::StatedPrice {
                cents_per_hour: 40_000,
            },
        )
        .on("create_cluster"),
    );
    let (failed, _) = refused(
        &Placement::new(candidates(&sim, &[Provider::Runcrate], "dear"))
            .allow_undeletable()
            .with_max_price_per_hour(50.0, "USD"),
    )
    .await;
    let Error::PriceAboveCeiling {
        per_hour,
        deleted,
        delete_error,
        ..
    } = &failed
    else {
        panic!("{failed}")
    };
    assert_eq!((*per_hour, *deleted), (400.0, false));
    assert!(delete_error.is_some(), "{failed}");
    assert!(failed.to_string().contains("it may be billing"), "{failed}");

    // An answer that agrees with the catalog is placed as before.
    let placed = Placement::new(candidates(&sim, &[Provider::E2e], "fair"))
        .with_max_price_per_hour(5000.0, "INR")
        .create()
        .await
        .unwrap();
    assert_eq!(placed.created.outcome, CreateOutcome::Created);
    finish(sim).await;
}

/// Without a ceiling, cheapest-first compares prices in one currency only (the first priced
/// candidate's): 4080 INR/h is not "more" than 47.84 USD/h, since no rate is converted, so
/// the order given stands. Before, the bare numbers were compared and Runcrate went first.
#[tokio::test]
async fn cheapest_first_never_compares_prices_across_currencies() {
    let sim = sim().await;
    let plans = Placement::new(candidates(&sim, &[Provider::E2e, Provider::Runcrate], "fx"))
        .allow_undeletable()
        .cheapest_first()
        .plan()
        .await;
    let order: Vec<_> = plans.iter().map(|p| p.provider).collect();
    assert_eq!(order, [ProviderKind::E2e, ProviderKind::Runcrate]);
    assert!(plans.iter().all(|p| p.resolution.is_ok()), "{plans:?}");
    finish(sim).await;
}

#[tokio::test]
async fn a_placed_cluster_says_what_the_ceiling_made_of_its_own_price() {
    let sim = sim().await;
    // E2E's catalog and its answer agree: 2 nodes × 2040 INR/h.
    let placed = Placement::new(candidates(&sim, &[Provider::E2e], "fits"))
        .with_max_price_per_hour(5000.0, "INR")
        .create()
        .await
        .unwrap_or_else(|e| panic!("{e}"));
    assert_eq!(
        placed.price_check,
        PriceCheck::Fits {
            per_hour: 4080.0,
            currency: "INR".into(),
            converted: None,
        }
    );

    // The same cluster under a ceiling in dollars: its own price in rupees is compared by the
    // rate, not left unchecked.
    let day = chrono::NaiveDate::from_ymd_opt(2026, 12, 1).unwrap_or_default();
    let rupees = gpucloud::catalog::Pricing::new(
        Vec::new(),
        vec![gpucloud::catalog::Rate::new("INR", "USD", 0.012, day)],
    );
    let placed = Placement::new(candidates(&sim, &[Provider::E2e], "fits-usd"))
        .with_max_price_per_hour(50.0, "USD")
        .with_pricing(rupees)
        .create()
        .await
        .unwrap_or_else(|e| panic!("{e}"));
    let PriceCheck::Fits {
        per_hour,
        currency,
        converted: Some(converted),
    } = &placed.price_check
    else {
        panic!("{:?}", placed.price_check)
    };
    assert_eq!((*per_hour, currency.as_str()), (4080.0, "INR"));
    assert!((converted.amount - 48.96).abs() < 1e-9, "{converted:?}");

    // Together states no price anywhere: taken only with unpriced offerings allowed, and
    // then said to be unchecked, after the one read that could have stated it.
    let placed = Placement::new(candidates(&sim, &[Provider::Together], "unpriced"))
        .with_max_price_per_hour(30.0, "USD")
        .allow_unpriced()
        .create()
        .await
        .unwrap_or_else(|e| panic!("{e}"));
    let PriceCheck::Unchecked { reason } = &placed.price_check else {
        panic!("{:?}", placed.price_check)
    };
    assert!(reason.contains("states a price"), "{reason}");
    assert_eq!(requests(&sim, Provider::Together, "get_cluster"), 1);

    let placed = Placement::new(candidates(&sim, &[Provider::Together], "free"))
        .create()
        .await
        .unwrap_or_else(|e| panic!("{e}"));
    assert_eq!(placed.price_check, PriceCheck::NoCeiling);
    assert_eq!(requests(&sim, Provider::Together, "get_cluster"), 1);
}

#[tokio::test]
async fn the_facade_reads_runcrates_refusal_as_no_capacity_and_does_not_retry_it() {
    let sim = sim().await;
    sim.capacity()
        .set(&CapacityFilter::new(Provider::Runcrate, "H100"), 1)
        .unwrap();
    let error = client(&sim, Provider::Runcrate)
        .create(&super::spec(Provider::Runcrate, "wide"))
        .await
        .unwrap_err();
    assert!(matches!(error, Error::NoCapacity(_)), "{error:?}");
    assert_eq!(requests(&sim, Provider::Runcrate, "create_cluster"), 1);
    assert!(sim.clusters(Provider::Runcrate).is_empty());
    finish(sim).await;
}

/// A placement that creates nothing: the error it ended with, and every attempt it reported.
async fn refused(placement: &Placement) -> (Error, Vec<Attempt>) {
    let mut attempts = Vec::new();
    let result = placement
        .execute(placement.plan().await, |a| attempts.push(a.clone()))
        .await;
    match result {
        Err(error) => (error, attempts),
        Ok(placed) => panic!("placed: {placed:?}"),
    }
}

/// What each attempt that did not create said, `place: reason`, joined by `; `.
fn said(attempts: &[Attempt]) -> String {
    let lines: Vec<String> = attempts
        .iter()
        .filter_map(|a| match &a.outcome {
            AttemptOutcome::Skipped { reason, .. }
            | AttemptOutcome::Refused { reason, .. }
            | AttemptOutcome::Failed { reason, .. } => Some(format!("{}: {reason}", a.place())),
            _ => None,
        })
        .collect();
    lines.join("; ")
}
