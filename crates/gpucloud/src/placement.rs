//! One request, several places: a placement tries candidates — providers, or full
//! per-provider requests — in order, and fails over to the next on answers that certainly
//! created nothing: no capacity, insufficient funds or quota, no matching offering, or a
//! request the candidate cannot honour (SSH keys on Together) or is not configured for.
//!
//! Every candidate's catalog is fetched at once before the first create, so a placement
//! costs at most one round trip per provider more than a single-provider create. A failure
//! that may have created a cluster ends the placement where it happened: that provider's
//! create has already looked the cluster up (or re-sent under its key), and a cluster made
//! elsewhere as well would be a second one.
//!
//! With a price ceiling, the created cluster's own answer (or the first read after it) is
//! checked too: a price over the ceiling there deletes a cluster this create started and ends
//! the placement with [`Error::PriceAboveCeiling`].

use serde::Serialize;

pub use crate::answered_price::PriceCheck;
use crate::catalog::resolve::no_resolution;
use crate::catalog::{Constraints, PriceCeiling, Resolution};
use crate::client::ClusterClient;
use crate::cluster::{CreateOutcome, Created, ProviderKind};
use crate::error::{Error, ErrorKind};
use crate::spec::ClusterSpec;

/// One place a placement may create the cluster.
#[derive(Debug, Clone)]
#[non_exhaustive]
pub struct Candidate {
    /// The provider's client.
    pub client: ClusterClient,
    /// The request for it (several providers' options may ride along; each reads its own).
    pub spec: ClusterSpec,
}

impl Candidate {
    /// `spec` created through `client`.
    pub fn new(client: ClusterClient, spec: ClusterSpec) -> Self {
        Self { client, spec }
    }
}

/// The order candidates are tried in.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Default, Serialize)]
#[serde(rename_all = "snake_case")]
pub enum Order {
    /// As given.
    #[default]
    AsGiven,
    /// By the known price per hour of the resolved offering, lowest first (candidates
    /// without a known price after those with one, in the order given). Prices are compared
    /// in one currency — the ceiling's, else the first priced candidate's; one in another
    /// currency counts as unknown, since no rate is converted.
    CheapestFirst,
}

/// Candidates, an order and constraints: see the module docs.
#[derive(Debug, Clone, Default)]
pub struct Placement {
    candidates: Vec<Candidate>,
    order: Order,
    constraints: Constraints,
    allow_undeletable: bool,
}

/// What happened at one candidate, in one region.
#[derive(Debug, Clone, PartialEq, Serialize)]
pub struct Attempt {
    /// The provider.
    pub provider: ProviderKind,
    /// The region tried, where the resolved request names one.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub region: Option<String>,
    /// What happened (in JSON, its fields beside `provider` and `region`: `outcome`, and
    /// `kind` and `reason` where there is one).
    #[serde(flatten)]
    pub outcome: AttemptOutcome,
}

impl Attempt {
    fn new(provider: ProviderKind, region: Option<String>, outcome: AttemptOutcome) -> Self {
        Self {
            provider,
            region,
            outcome,
        }
    }

    /// `together` or `together (us-central-8)`: where it was tried, for people.
    pub fn place(&self) -> String {
        match &self.region {
            Some(region) => format!("{} ({region})", self.provider),
            None => self.provider.to_string(),
        }
    }
}

/// How one candidate ended.
#[derive(Debug, Clone, PartialEq, Serialize)]
#[serde(rename_all = "snake_case", tag = "outcome")]
pub enum AttemptOutcome {
    /// Not tried: its catalog has nothing that fits, or the request breaks one of its rules,
    /// or it cannot be reached for its catalog. Nothing was sent to create.
    Skipped {
        /// What kind of reason ([`ErrorKind::Undeletable`], [`ErrorKind::NoMatchingOffering`]…).
        kind: ErrorKind,
        /// Why.
        reason: String,
    },
    /// Tried, and refused in a way that created nothing (no capacity, funds or quota).
    Refused {
        /// What kind of refusal.
        kind: ErrorKind,
        /// The provider's refusal.
        reason: String,
    },
    /// This placement created the cluster here (its answer, or a look-up after a lost one).
    Created,
    /// The cluster an earlier create of ours made of this request was found here; nothing new
    /// was started ([`crate::CreateOutcome::AlreadyExisted`]).
    Found,
    /// A cluster of this name made outside gpucloud was adopted here, as the request asked;
    /// nothing new was started ([`crate::CreateOutcome::Adopted`]).
    Adopted,
    /// Tried, and failed in a way that ends the placement (the placement's error).
    Failed {
        /// What kind of error.
        kind: ErrorKind,
        /// The error.
        reason: String,
    },
    /// Not tried: an earlier candidate succeeded or ended the placement.
    NotTried,
}

impl AttemptOutcome {
    /// What happened, in one line (`refused: no capacity …`, `found the cluster …`).
    pub fn describe(&self) -> String {
        match self {
            Self::Skipped { reason, .. } => format!("skipped: {reason}"),
            Self::Refused { reason, .. } => format!("refused: {reason}"),
            Self::Failed { reason, .. } => format!("failed: {reason}"),
            Self::Created => "created the cluster".into(),
            Self::Found => "found the cluster an earlier create made (nothing new started)".into(),
            Self::Adopted => {
                "adopted the cluster made outside gpucloud (nothing new started)".into()
            }
            Self::NotTried => "not tried".into(),
        }
    }
}

impl std::fmt::Display for Attempt {
    /// `together (us-central-8): refused: no capacity …`, one line.
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        write!(f, "{}: {}", self.place(), self.outcome.describe())
    }
}

/// A placement that made no cluster ([`Placement::create_or_explain`]): the error that ended
/// it, as [`Placement::create`] returns it (its kind matches as anywhere), and what every
/// candidate answered — not only the last.
#[derive(Debug)]
#[non_exhaustive]
pub struct Unplaced {
    /// The error that ended the placement.
    pub error: Error,
    /// Every candidate and region, in the order tried, with what happened there.
    pub attempts: Vec<Attempt>,
}

impl std::fmt::Display for Unplaced {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        write!(f, "no cluster was made: {}", self.error)?;
        for attempt in &self.attempts {
            write!(f, "; {attempt}")?;
        }
        Ok(())
    }
}

impl std::error::Error for Unplaced {
    fn source(&self) -> Option<&(dyn std::error::Error + 'static)> {
        Some(&self.error)
    }
}

/// A placement that got its cluster.
#[derive(Debug)]
pub struct Placed {
    /// The provider that won.
    pub provider: ProviderKind,
    /// The client that made the cluster, moved to the region it was made in (E2E addresses
    /// clusters per location): the one to wait for, read, resize and delete the cluster with.
    pub client: ClusterClient,
    /// What its create said.
    pub created: Created,
    /// The request as resolved for it.
    pub resolution: Resolution,
    /// Every candidate, in the order tried, with its outcome.
    pub attempts: Vec<Attempt>,
    /// What the price ceiling made of the cluster's own price.
    pub price_check: PriceCheck,
}

/// What a candidate would send, once resolved.
#[derive(Debug)]
pub struct CandidatePlan {
    /// Which candidate (its position in the list given).
    pub candidate: usize,
    /// The provider.
    pub provider: ProviderKind,
    /// Its resolved request, or why it would be skipped.
    pub resolution: Result<Resolution, Error>,
    /// When the request pins no region: the same request resolved in each other region that
    /// fits, in the order they are tried after a region with no capacity.
    pub other_regions: Vec<Resolution>,
}

/// The region a resolved request goes to.
fn region_of(resolution: &Resolution) -> Option<String> {
    resolution.region().map(str::to_string)
}

impl Placement {
    /// Candidates tried in the order given.
    pub fn new(candidates: impl IntoIterator<Item = Candidate>) -> Self {
        Self {
            candidates: candidates.into_iter().collect(),
            ..Self::default()
        }
    }

    /// Tries the cheapest known offering first ([`Order::CheapestFirst`]).
    pub fn cheapest_first(mut self) -> Self {
        self.order = Order::CheapestFirst;
        self
    }

    /// Skips offerings whose price for the whole cluster is above `amount` per hour in
    /// `currency`, offerings priced in another currency, and offerings that state no price
    /// (unless [`Self::allow_unpriced`]): each skipped candidate says why.
    pub fn with_max_price_per_hour(mut self, amount: f64, currency: impl Into<String>) -> Self {
        self.constraints.max_price_per_hour = Some(PriceCeiling {
            amount,
            currency: currency.into(),
        });
        self
    }

    /// Prices offerings their provider states no price for from `pricing`'s book, and
    /// compares prices in another currency than the ceiling's by its rates (each price shown
    /// with its source, each conversion with its rate).
    pub fn with_pricing(mut self, pricing: crate::catalog::Pricing) -> Self {
        self.constraints.pricing = pricing;
        self
    }

    /// With a price ceiling, also takes offerings that state no price (Together states
    /// none); the ceiling is not checked for them.
    pub fn allow_unpriced(mut self) -> Self {
        self.constraints.allow_unpriced = true;
        self
    }

    /// Also takes providers whose API cannot delete a cluster (Runcrate): without this, each
    /// such candidate is skipped with [`Error::Undeletable`], because a cluster made there
    /// bills until a person stops it in the provider's console, and no cleanup, sweep or time
    /// limit of ours can stop it.
    pub fn allow_undeletable(mut self) -> Self {
        self.allow_undeletable = true;
        self
    }

    /// Every candidate resolved (catalogs fetched at once), in the order a create would try
    /// them. Nothing is created. [`Self::execute`] creates from exactly this plan.
    pub async fn plan(&self) -> Vec<CandidatePlan> {
        let resolutions = futures_util::future::join_all(self.candidates.iter().map(|c| {
            // A request that pins a region is resolved where it will be made (E2E's catalog
            // is one location's).
            let client = c.client.for_request(&c.spec);
            async move { client.resolve_each_region(&c.spec, &self.constraints).await }
        }))
        .await;
        let mut plans: Vec<CandidatePlan> = self
            .candidates
            .iter()
            .zip(resolutions)
            .enumerate()
            .map(|(index, (candidate, each))| {
                let profile = candidate.client.provider().profile();
                let (resolution, other_regions) = match each {
                    // A request that cannot be sent anyway says so first.
                    Ok(_) if !profile.deletes_clusters && !self.allow_undeletable => (
                        Err(Error::Undeletable {
                            provider: profile.kind,
                            console: profile.console,
                        }),
                        Vec::new(),
                    ),
                    Ok(each) => {
                        let mut each = each.into_iter();
                        match each.next() {
                            Some(best) => (Ok(best), each.collect()),
                            None => (Err(no_resolution(profile.kind)), Vec::new()),
                        }
                    }
                    Err(error) => (Err(error), Vec::new()),
                };
                CandidatePlan {
                    candidate: index,
                    provider: profile.kind,
                    resolution,
                    other_regions,
                }
            })
            .collect();
        if self.order == Order::CheapestFirst {
            // Prices are compared in one currency: the ceiling's, else the first priced
            // candidate's. A price in another is converted by the pricing's rates; one no rate
            // converts is not comparable and sorts with the unknown ones. A stable sort: equal
            // or unknown prices keep the order given.
            let currency = self
                .constraints
                .max_price_per_hour
                .as_ref()
                .map(|c| c.currency.clone())
                .or_else(|| plans.iter().find_map(|p| Some(price(p)?.1.to_string())));
            let pricing = &self.constraints.pricing;
            let price = |plan: &CandidatePlan| {
                let (amount, of) = price(plan)?;
                pricing
                    .convert(amount, of, currency.as_deref()?)
                    .ok()
                    .map(|c| c.amount)
            };
            plans.sort_by(|a, b| match (price(a), price(b)) {
                (Some(x), Some(y)) => x.total_cmp(&y),
                (Some(_), None) => std::cmp::Ordering::Less,
                (None, Some(_)) => std::cmp::Ordering::Greater,
                (None, None) => std::cmp::Ordering::Equal,
            });
        }
        plans
    }

    /// Creates the cluster at the first candidate that can (see the module docs). A candidate
    /// whose request pins no region is tried in each region that fits, in order, while the
    /// regions before answer that they have no capacity; every try is an [`Attempt`].
    ///
    /// # Errors
    /// The error that ended it, as it is (`Error::NoCapacity` when every candidate had no
    /// capacity, say): the last refusal when every candidate refused, or the failure that
    /// stopped it. What happened at each candidate is [`Self::execute`]'s `on_attempt`.
    pub async fn create(&self) -> Result<Placed, Error> {
        self.execute(self.plan().await, |_| {}).await
    }

    /// [`Self::create`], and when no cluster is made, every candidate's answer with the
    /// error ([`Unplaced`]): why each provider and region was passed over or refused.
    pub async fn create_or_explain(&self) -> Result<Placed, Unplaced> {
        let mut attempts = Vec::new();
        match self
            .execute(self.plan().await, |attempt| attempts.push(attempt.clone()))
            .await
        {
            Ok(placed) => Ok(placed),
            Err(error) => Err(Unplaced { error, attempts }),
        }
    }

    /// Creates the cluster from `plans`, a [`Self::plan`] of this placement (shown to a person
    /// and confirmed, say), without resolving the request again: what runs is what was shown.
    /// A plan that names no candidate of this placement is passed over.
    /// `on_attempt` sees each [`Attempt`] as it ends, the ones never tried included: on
    /// success they are also [`Placed::attempts`]; on failure they are the only account of
    /// what each candidate answered.
    pub async fn execute(
        &self,
        plans: Vec<CandidatePlan>,
        on_attempt: impl FnMut(&Attempt),
    ) -> Result<Placed, Error> {
        let mut attempts = Attempts {
            list: Vec::with_capacity(plans.len()),
            on_attempt,
        };
        let mut last_error = None;
        // The candidates the plan passed over are said first, whatever their place: they
        // could never be tried, and after a success "not tried" would hide why.
        let (plans, passed_over): (Vec<_>, Vec<_>) =
            plans.into_iter().partition(|p| p.resolution.is_ok());
        for plan in passed_over {
            if let Err(error) = plan.resolution {
                attempts.push(Attempt::new(
                    plan.provider,
                    None,
                    AttemptOutcome::Skipped {
                        kind: error.kind(),
                        reason: error.to_string(),
                    },
                ));
                last_error = Some(error);
            }
        }
        let mut plans = plans.into_iter();
        while let Some(plan) = plans.next() {
            let provider = plan.provider;
            let Ok(resolution) = plan.resolution else {
                continue;
            };
            let Some(candidate) = self.candidates.get(plan.candidate) else {
                continue;
            };
            let mut regions = std::iter::once(resolution)
                .chain(plan.other_regions)
                .peekable();
            while let Some(resolution) = regions.next() {
                let region = region_of(&resolution);
                // The client of the region the request is made in: the cluster is created,
                // followed and deleted there.
                let client = match &region {
                    Some(region) => candidate.client.at_region(region),
                    None => Ok(candidate.client.clone()),
                };
                let client = match client {
                    Ok(client) => client,
                    // A region this provider cannot address: nothing was sent.
                    Err(error) => {
                        attempts.push(Attempt::new(
                            provider,
                            region,
                            AttemptOutcome::Skipped {
                                kind: error.kind(),
                                reason: error.to_string(),
                            },
                        ));
                        last_error = Some(error);
                        continue;
                    }
                };
                let created = client.create_resolved(&resolution).await;
                // A price over the ceiling in the answer fails like any error that ends the
                // placement (the cluster, if this create started it, is already deleted).
                let created = match (created, &self.constraints.max_price_per_hour) {
                    (Ok(created), Some(ceiling)) => crate::answered_price::check(
                        &client,
                        &created,
                        ceiling,
                        &self.constraints.pricing,
                    )
                    .await
                    .map(|check| (created, check)),
                    (created, _) => created.map(|created| (created, PriceCheck::NoCeiling)),
                };
                match created {
                    Ok((created, price_check)) => {
                        let outcome = match created.outcome {
                            CreateOutcome::AlreadyExisted => AttemptOutcome::Found,
                            CreateOutcome::Adopted => AttemptOutcome::Adopted,
                            CreateOutcome::Created | CreateOutcome::CreatedReconciled => {
                                AttemptOutcome::Created
                            }
                        };
                        attempts.push(Attempt::new(provider, region, outcome));
                        attempts.extend(not_tried(provider, regions, plans));
                        return Ok(Placed {
                            provider,
                            client,
                            created,
                            resolution,
                            attempts: attempts.list,
                            price_check,
                        });
                    }
                    Err(error) if !error.is_ambiguous() && error.kind().facts().refusal => {
                        let kind = error.kind();
                        let reason = error.to_string();
                        let outcome = if kind.facts().sent_nothing {
                            AttemptOutcome::Skipped { kind, reason }
                        } else {
                            AttemptOutcome::Refused { kind, reason }
                        };
                        attempts.push(Attempt::new(provider, region, outcome));
                        // Capacity is a region's; any other refusal is the provider's.
                        let next_region = matches!(error, Error::NoCapacity(_));
                        last_error = Some(error);
                        if !next_region {
                            attempts.extend(not_tried(provider, regions, std::iter::empty()));
                            break;
                        }
                    }
                    // The name is another request's here: the same request in another
                    // region may be what made it (a run after a regional failover). Nothing
                    // was sent; another provider is never tried, since the name is taken.
                    Err(error @ Error::NameInUse { .. }) if regions.peek().is_some() => {
                        attempts.push(Attempt::new(
                            provider,
                            region,
                            AttemptOutcome::Skipped {
                                kind: error.kind(),
                                reason: error.to_string(),
                            },
                        ));
                    }
                    Err(error) => {
                        attempts.push(Attempt::new(
                            provider,
                            region,
                            AttemptOutcome::Failed {
                                kind: error.kind(),
                                reason: error.to_string(),
                            },
                        ));
                        attempts.extend(not_tried(provider, regions, plans));
                        return Err(error);
                    }
                }
            }
        }
        Err(last_error.unwrap_or_else(|| Error::Configuration {
            setting: "placement".into(),
            problem: "has no candidates".into(),
        }))
    }
}

/// The attempts of a placement so far, each shown to the caller's `on_attempt` as it ends.
struct Attempts<F> {
    list: Vec<Attempt>,
    on_attempt: F,
}

impl<F: FnMut(&Attempt)> Attempts<F> {
    fn push(&mut self, attempt: Attempt) {
        (self.on_attempt)(&attempt);
        self.list.push(attempt);
    }

    fn extend(&mut self, attempts: Vec<Attempt>) {
        for attempt in attempts {
            self.push(attempt);
        }
    }
}

/// The attempts never made: the rest of `provider`'s regions, then every later candidate.
fn not_tried(
    provider: ProviderKind,
    regions: impl Iterator<Item = Resolution>,
    plans: impl Iterator<Item = CandidatePlan>,
) -> Vec<Attempt> {
    let rest = regions.map(|r| Attempt::new(provider, region_of(&r), AttemptOutcome::NotTried));
    let later = plans.map(|p| {
        let region = p.resolution.as_ref().ok().and_then(region_of);
        Attempt::new(p.provider, region, AttemptOutcome::NotTried)
    });
    rest.chain(later).collect()
}

/// The known price per hour of a candidate's resolved offering, and its currency.
fn price(plan: &CandidatePlan) -> Option<(f64, &str)> {
    plan.resolution.as_ref().ok()?.price_per_hour()
}
