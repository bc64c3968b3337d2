//! The providers as the fake serves them, and the world of one run: a small, well-behaved
//! control plane (clusters that a POST creates, a list that shows them only after some calls,
//! Runcrate's idempotency keys) under the scenario's faults.

use std::collections::HashMap;
use std::sync::Mutex;

use serde_json::{Value, json};

use super::Scenario;
use crate::fake::{Reply, Request, fixture};
use crate::hostile::{EVIL, echo};

/// A provider as the fake serves it.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash)]
pub enum Provider {
    Together,
    Runcrate,
    E2e,
}

impl Provider {
    pub const ALL: [Provider; 3] = [Provider::Together, Provider::Runcrate, Provider::E2e];

    pub fn name(self) -> &'static str {
        match self {
            Self::Together => "together",
            Self::Runcrate => "runcrate",
            Self::E2e => "e2e",
        }
    }

    /// The base URL's path (`--base-url http://127.0.0.1:PORT<base>`).
    pub fn base(self) -> &'static str {
        match self {
            Self::Together => "/v1",
            Self::Runcrate => "/api/v1",
            Self::E2e => "/myaccount/api/v1/gpu",
        }
    }

    /// The id of the cluster that exists before the command runs (`get`, `wait`, `delete`).
    pub fn existing_id(self) -> &'static str {
        match self {
            Self::Together => "c-existing-1",
            Self::Runcrate => "00000000-0000-4000-8000-000000000101",
            Self::E2e => "101",
        }
    }

    /// The id a create is given.
    fn created_id(self) -> &'static str {
        match self {
            Self::Together => "c-created-2",
            Self::Runcrate => "00000000-0000-4000-8000-000000000202",
            Self::E2e => "202",
        }
    }

    /// Runcrate documents neither list nor delete.
    pub fn supports(self, command: Command) -> bool {
        !(self == Self::Runcrate && matches!(command, Command::List | Command::Delete))
    }

    /// The operation a request addresses, and the cluster id in its path.
    fn classify(self, request: &Request) -> (Op, Option<String>) {
        let path = request.path();
        let collection = match self {
            Self::Together => "/v1/compute/clusters",
            Self::Runcrate => "/api/v1/clusters",
            Self::E2e => "/myaccount/api/v1/gpu/distributed_jobs_v2/cluster",
        };
        let Some(rest) = path.strip_prefix(collection) else {
            return (Op::Other, None);
        };
        let id = rest.trim_matches('/');
        let op = match (request.method.as_str(), id.is_empty()) {
            ("POST", true) => Op::Create,
            ("GET", true) => Op::List,
            ("GET", false) => Op::Get,
            ("DELETE", false) => Op::Delete,
            _ => Op::Other,
        };
        (op, (!id.is_empty()).then(|| id.to_string()))
    }

    /// A cluster in this provider's shape (without its envelope).
    fn cluster(self, id: &str, name: &str, status: &str) -> Value {
        match self {
            Self::Together => {
                let mut cluster = fixture("together/create_cluster.response.200.json");
                cluster["cluster_id"] = id.into();
                cluster["cluster_name"] = name.into();
                cluster["status"] = status.into();
                cluster
            }
            Self::Runcrate => {
                let mut cluster =
                    fixture("runcrate/create_cluster.response.201.json")["data"].take();
                cluster["id"] = id.into();
                cluster["name"] = name.into();
                cluster["status"] = status.into();
                // The docs example's placeholders would settle the cluster as ended.
                cluster["terminated_at"] = Value::Null;
                cluster["failure_reason"] = Value::Null;
                cluster
            }
            Self::E2e => {
                let mut cluster = fixture("e2e/create_cluster.response.201.json")["data"].take();
                cluster["id"] = id.parse::<i64>().map_or_else(|_| id.into(), Value::from);
                cluster["name"] = name.into();
                cluster["status"] = status.into();
                cluster
            }
        }
    }

    /// The status word of a ready cluster.
    fn ready(self) -> &'static str {
        match self {
            Self::Together => "Ready",
            Self::Runcrate => "ready",
            Self::E2e => "Running",
        }
    }

    /// One cluster answer, in its envelope.
    fn one(self, cluster: Value, http: u16) -> Reply {
        match self {
            Self::Together => Reply::json(http, &cluster),
            Self::Runcrate => Reply::json(http, &json!({ "data": cluster })),
            Self::E2e => Reply::json(
                http,
                &json!({ "code": http, "data": cluster, "errors": {}, "message": "Success" }),
            ),
        }
    }

    fn many(self, clusters: Vec<Value>) -> Reply {
        match self {
            Self::Together => Reply::json(200, &json!({ "clusters": clusters })),
            Self::Runcrate => Reply::json(200, &json!({ "data": clusters })),
            Self::E2e => Reply::json(
                200,
                &json!({ "code": 200, "data": clusters, "errors": {}, "message": "Success" }),
            ),
        }
    }

    fn deleted(self, id: &str) -> Reply {
        match self {
            Self::Together => Reply::json(200, &json!({ "cluster_id": id })),
            Self::Runcrate => Reply::json(200, &json!({ "data": { "id": id } })),
            Self::E2e => Reply::json(
                200,
                &json!({
                    "code": 200, "data": "Cluster deleted successfully", "errors": {},
                    "message": "Success"
                }),
            ),
        }
    }

    /// The provider's error envelope.
    pub fn error(self, status: u16, code: &str, message: &str) -> Reply {
        let body = match self {
            Self::Together => json!({ "error": { "message": message, "type": code } }),
            Self::Runcrate => json!({ "error": { "code": code, "message": message } }),
            Self::E2e => json!({ "code": status, "data": {}, "errors": {}, "message": message }),
        };
        Reply::json(status, &body)
    }
}

/// The commands run for each provider.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Command {
    Create,
    Get,
    List,
    Delete,
    Wait,
}

impl Command {
    pub const ALL: [Command; 5] = [
        Command::Create,
        Command::Get,
        Command::List,
        Command::Delete,
        Command::Wait,
    ];

    pub fn name(self) -> &'static str {
        match self {
            Self::Create => "create",
            Self::Get => "get",
            Self::List => "list",
            Self::Delete => "delete",
            Self::Wait => "wait",
        }
    }
}

/// An operation on the fake provider.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash)]
pub enum Op {
    Create,
    Get,
    List,
    Delete,
    Other,
}

/// Which operations a scenario's fault hits.
#[derive(Debug, Clone, Copy)]
pub enum Scope {
    All,
    Create,
    /// Get, list and delete.
    Reads,
}

impl Scope {
    pub fn hits(self, op: Op) -> bool {
        match self {
            Self::All => op != Op::Other,
            Self::Create => op == Op::Create,
            Self::Reads => matches!(op, Op::Get | Op::List | Op::Delete),
        }
    }
}

/// Text the world puts in the answers it gives when nothing is faulted.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Text {
    Plain,
    /// Escape sequences and newlines in names and statuses.
    Escapes,
    /// The request line and its `Authorization` header, echoed in names.
    Echo,
    /// A status no spec lists, with escapes: a wait never ends by itself.
    UnknownStatus,
}

/// What the fault answers instead of (or with) the normal answer.
pub struct Faulted<'a> {
    pub provider: Provider,
    pub request: &'a Request,
    pub normal: Reply,
}

/// A cluster the world holds.
#[derive(Debug, Clone)]
struct Held {
    id: String,
    name: String,
    /// List calls since it was created.
    listed: u32,
    /// Runcrate's `Idempotency-Key` of its create.
    key: String,
}

#[derive(Debug, Default)]
struct State {
    calls: HashMap<Op, u32>,
    created: Vec<Held>,
    first_landed: bool,
}

/// One run's provider: the scenario's faults on top of a well-behaved control plane.
pub struct World {
    provider: Provider,
    scenario: &'static Scenario,
    state: Mutex<State>,
}

/// What a run left in the world.
#[derive(Debug, Clone)]
pub struct Landed {
    /// Clusters the POSTs created (Runcrate replays of a key excluded).
    pub clusters: usize,
    /// Whether the first POST created a cluster.
    pub first_landed: bool,
}

impl World {
    pub fn new(provider: Provider, scenario: &'static Scenario) -> Self {
        Self {
            provider,
            scenario,
            state: Mutex::new(State::default()),
        }
    }

    pub fn landed(&self) -> Landed {
        let state = self.lock();
        Landed {
            clusters: state.created.len(),
            first_landed: state.first_landed,
        }
    }

    fn lock(&self) -> std::sync::MutexGuard<'_, State> {
        self.state
            .lock()
            .unwrap_or_else(std::sync::PoisonError::into_inner)
    }

    fn text(&self, request: &Request, name: &str) -> (String, String) {
        let ready = self.provider.ready();
        match self.scenario.text {
            Text::Plain => (name.into(), ready.into()),
            Text::Escapes => (format!("{name}{EVIL}"), ready.into()),
            Text::Echo => (format!("{name} {}", echo(request)), ready.into()),
            Text::UnknownStatus => (name.into(), "Hibernating\u{1b}[5m\nFORGED".to_string()),
        }
    }

    /// The answer to `request`.
    pub fn answer(&self, request: &Request) -> Reply {
        let provider = self.provider;
        let (op, id) = provider.classify(request);
        // E2E's list ends at an empty page: every page after the first is one (and is neither
        // a call the scenario counts nor one it faults).
        let later_page = request.target.split_once('?').is_some_and(|(_, query)| {
            query
                .split('&')
                .any(|p| p.starts_with("page_no=") && p != "page_no=1")
        });
        if op == Op::List && later_page {
            return provider.many(Vec::new());
        }
        let mut state = self.lock();
        let calls = state.calls.entry(op).or_default();
        *calls += 1;
        let faulted = self.scenario.scope.hits(op) && *calls <= self.scenario.times;
        let first_post = op == Op::Create && *calls == 1;
        let normal = match op {
            Op::Create if faulted && !self.scenario.lands => {
                Reply::raw(500, "application/json", "{}")
            }
            Op::Create => {
                let key = request.header("idempotency-key").to_string();
                let name = serde_json::from_str::<Value>(&request.body)
                    .ok()
                    .and_then(|body| {
                        body.get("cluster_name")
                            .or_else(|| body.get("name"))
                            .and_then(Value::as_str)
                            .map(str::to_string)
                    })
                    .unwrap_or_default();
                let replay = provider == Provider::Runcrate
                    && !key.is_empty()
                    && state.created.iter().any(|held| held.key == key);
                if !replay {
                    let n = state.created.len();
                    state.created.push(Held {
                        id: if n == 0 {
                            provider.created_id().into()
                        } else {
                            format!("{}{n}", provider.created_id())
                        },
                        name: name.clone(),
                        listed: 0,
                        key: key.clone(),
                    });
                }
                state.first_landed |= first_post;
                let held = state
                    .created
                    .iter()
                    .find(|held| provider != Provider::Runcrate || held.key == key)
                    .cloned();
                let held = held.unwrap_or_else(|| state.created[0].clone());
                let (_, status) = self.text(request, &held.name);
                let cluster = provider.cluster(&held.id, &held.name, &status);
                // Together documents 200 for a create; Runcrate 201 (200 for a replay); E2E 201.
                let http = match provider {
                    Provider::Together => 200,
                    _ if replay => 200,
                    _ => 201,
                };
                provider.one(cluster, http)
            }
            Op::List => {
                let lag = self.scenario.list_lag;
                let mut clusters = Vec::new();
                let (name, status) = self.text(request, "existing");
                clusters.push(provider.cluster(provider.existing_id(), &name, &status));
                for held in &mut state.created {
                    held.listed += 1;
                    if held.listed > lag {
                        let (_, status) = self.text(request, &held.name);
                        clusters.push(provider.cluster(&held.id, &held.name, &status));
                    }
                }
                provider.many(clusters)
            }
            Op::Get | Op::Delete => {
                let id = id.unwrap_or_default();
                let known = if id == provider.existing_id() {
                    Some("existing".to_string())
                } else {
                    state
                        .created
                        .iter()
                        .find(|held| held.id == id)
                        .map(|held| held.name.clone())
                };
                match (known, op) {
                    (Some(_), Op::Delete) => provider.deleted(&id),
                    (Some(name), _) => {
                        let (name, status) = self.text(request, &name);
                        provider.one(provider.cluster(&id, &name, &status), 200)
                    }
                    (None, _) => provider.error(404, "not_found", &format!("no cluster {id}")),
                }
            }
            Op::Other => provider.error(404, "not_found", "no such path"),
        };
        drop(state);
        if faulted {
            (self.scenario.fault)(&Faulted {
                provider,
                request,
                normal,
            })
        } else {
            normal
        }
    }
}
