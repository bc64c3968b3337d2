//! Catalogs, intent-only requests and placements through the binary, against a simulator:
//! `gpucloud catalog`, request files without catalog ids, and `--provider together,runcrate`
//! failing over when Together has no H100 capacity.

use gpucloud_sim::{CapacityFilter, Fault, FaultKind, Provider};

use crate::simulated::{TestSim, json, sim_credentials};
use crate::support::{gpucloud, on_a_terminal};

/// The simulator's credentials and every provider's endpoint in the environment.
fn env(sim: &TestSim) -> Vec<(&'static str, String)> {
    let mut env = sim_credentials();
    for (variable, provider) in [
        ("TOGETHER_BASE_URL", Provider::Together),
        ("RUNCRATE_BASE_URL", Provider::Runcrate),
        ("E2E_BASE_URL", Provider::E2e),
    ] {
        env.push((variable, sim.sim().base_url(provider)));
    }
    env
}

/// A simulator in which Together has no H100 capacity left, in any region.
fn together_without_h100() -> TestSim {
    let sim = TestSim::start();
    sim.sim()
        .capacity()
        .set(&CapacityFilter::new(Provider::Together, "H100_SXM"), 0)
        .unwrap_or_else(|e| panic!("{e:?}"));
    sim
}

#[test]
fn catalog_all_lists_offerings_of_every_provider() {
    let sim = TestSim::start();
    let run = gpucloud(&["--json", "catalog", "--provider", "all"], &env(&sim));
    run.expect_code(0);
    let listed = json(&run);
    let offerings = listed["offerings"].as_array().cloned().unwrap_or_default();
    for provider in ["together", "runcrate", "e2e"] {
        assert!(
            offerings.iter().any(|o| o["provider"] == provider),
            "{provider} missing: {}",
            run.stdout
        );
    }
    assert_eq!(listed["errors"], serde_json::json!([]));

    let h200 = gpucloud(
        &[
            "catalog",
            "-p",
            "runcrate,e2e",
            "--gpu-model",
            "H200",
            "--gpus",
            "16",
        ],
        &env(&sim),
    );
    h200.expect_code(0);
    let lines: Vec<&str> = h200.stdout.lines().skip(1).collect();
    assert_eq!(lines.len(), 2, "{}", h200.stdout);
    assert!(lines.iter().all(|l| l.contains("H200")), "{}", h200.stdout);
    assert!(h200.stdout.contains("offer-h200-sxm-8x"), "{}", h200.stdout);
}

#[test]
fn a_request_file_with_only_name_gpu_and_size_creates_a_ready_cluster_on_each_provider() {
    let sim = TestSim::start_scaled(600.0);
    for (provider, file) in [
        ("together", "tests/fixtures/intent.toml"),
        ("runcrate", "tests/fixtures/intent.toml"),
        ("e2e", "tests/fixtures/intent-anywhere.toml"),
    ] {
        // Runcrate's API cannot delete a cluster: taking it is a choice to say so.
        let allow: &[&str] = if provider == "runcrate" {
            &["--allow-no-delete"]
        } else {
            &[]
        };
        let plan = gpucloud(
            &[&["plan", "-p", provider, "-f", file][..], allow].concat(),
            &env(&sim),
        );
        plan.expect_code(0);
        assert!(
            plan.stdout
                .contains(&format!("Resolved from {provider}'s catalog:")),
            "{}",
            plan.stdout
        );
        let run = gpucloud(
            &[
                &[
                    "--json",
                    "clusters",
                    "create",
                    "-p",
                    provider,
                    "-f",
                    file,
                    "--wait",
                    "--interval",
                    "1s",
                ][..],
                allow,
            ]
            .concat(),
            &env(&sim),
        );
        run.expect_code(0);
        let cluster = &json(&run)["cluster"];
        assert_eq!(cluster["provider"], provider, "{}", run.stdout);
        // The cluster as the wait left it, not as the create answered.
        assert_eq!(cluster["state"], "ready", "{}", run.stdout);
        let nodes = cluster["nodes"].as_array().cloned().unwrap_or_default();
        assert!(
            !nodes.is_empty()
                && nodes
                    .iter()
                    .any(|n| n["public_ip"].is_string() || n["private_ip"].is_string()),
            "{provider}: no addressed node in {}",
            run.stdout
        );
    }
}

#[test]
fn together_without_h100_capacity_fails_over_to_runcrate_with_one_cluster_in_all() {
    let sim = together_without_h100();
    let env = env(&sim);

    let plan = gpucloud(
        &[
            "plan",
            "--provider",
            "together,runcrate",
            "--allow-no-delete",
            "-f",
            "tests/fixtures/intent.toml",
        ],
        &env,
    );
    plan.expect_code(0);
    assert!(
        plan.stdout.contains("== 1. together") && plan.stdout.contains("== 2. runcrate"),
        "{}",
        plan.stdout
    );

    // Runcrate's API cannot delete a cluster: without --allow-no-delete it is passed over,
    // saying so and how to take it, and nothing is created anywhere.
    let undeletable = gpucloud(
        &[
            "--json",
            "clusters",
            "create",
            "--provider",
            "together,runcrate",
            "-f",
            "tests/fixtures/intent.toml",
        ],
        &env,
    );
    undeletable.expect_code(4);
    assert!(
        undeletable.stderr.contains(
            "runcrate: skipped: runcrate's API cannot delete a cluster: one made there bills \
             until it is stopped in the Runcrate dashboard (www.runcrate.ai) (--allow-no-delete \
             takes it anyway)"
        ),
        "{}",
        undeletable.stderr
    );
    assert!(sim.sim().clusters(Provider::Runcrate).is_empty());
    let skipped_plan = gpucloud(
        &[
            "--json",
            "plan",
            "--provider",
            "runcrate",
            "-f",
            "tests/fixtures/intent.toml",
        ],
        &env,
    );
    skipped_plan.expect_code(4);
    let skipped = crate::simulated::result(&skipped_plan);
    assert!(
        skipped[0]["skipped"]
            .as_str()
            .is_some_and(|why| why.contains("cannot delete")),
        "{}",
        skipped_plan.stdout
    );

    let run = gpucloud(
        &[
            "--json",
            "clusters",
            "create",
            "--provider",
            "together,runcrate",
            "--allow-no-delete",
            "-f",
            "tests/fixtures/intent.toml",
        ],
        &env,
    );
    run.expect_code(0);
    assert_eq!(
        json(&run)["cluster"]["provider"],
        "runcrate",
        "{}",
        run.stdout
    );
    assert!(
        ["eu-north-1", "us-central-4", "us-central-8"]
            .iter()
            .all(|region| run
                .stderr
                .contains(&format!("together ({region}): refused: no capacity"))),
        "{}",
        run.stderr
    );
    assert!(
        run.stderr
            .contains("runcrate (Dallas, TX): created the cluster"),
        "{}",
        run.stderr
    );
    let named = |provider| {
        sim.sim()
            .clusters(provider)
            .iter()
            .filter(|c| c.name == "intent-42")
            .count()
    };
    assert_eq!(
        (named(Provider::Together), named(Provider::Runcrate)),
        (0, 1)
    );

    // Nowhere left: exit 4, each provider's refusal named.
    sim.sim()
        .capacity()
        .set(&CapacityFilter::new(Provider::Runcrate, "H100"), 0)
        .unwrap_or_else(|e| panic!("{e:?}"));
    let none = gpucloud(
        &[
            "clusters",
            "create",
            "--provider",
            "together,runcrate",
            "--allow-no-delete",
            "--name",
            "no-room",
            "--gpu-model",
            "H100",
            "--gpus",
            "16",
        ],
        &env,
    );
    none.expect_code(4);
    assert!(
        none.stderr.contains("together (eu-north-1): no capacity")
            && none.stderr.contains("runcrate (Dallas, TX): no capacity"),
        "{}",
        none.stderr
    );
}

#[test]
fn a_price_ceiling_that_cannot_be_checked_refuses_unless_unpriced_offerings_are_allowed() {
    let sim = TestSim::start();
    let env = env(&sim);
    let create = |name: &str, extra: &[&str]| {
        let mut args = vec![
            "clusters",
            "create",
            "--provider",
            "together",
            "--name",
            name,
            "--gpu-model",
            "H100",
            "--gpus",
            "16",
            "--max-price-per-hour",
            "30",
        ];
        args.extend_from_slice(extra);
        gpucloud(&args, &env)
    };
    let named = |name: &str| {
        sim.sim()
            .clusters(Provider::Together)
            .iter()
            .filter(|c| c.name == name)
            .count()
    };

    // Together states no price: the ceiling cannot be checked, so nothing is created.
    let refused = create("capped", &[]);
    refused.expect_code(4);
    assert!(
        refused
            .stderr
            .contains("states no price, so the ceiling of 30.00 USD/h cannot be checked"),
        "{}",
        refused.stderr
    );
    assert_eq!(named("capped"), 0);
    let plan = gpucloud(
        &[
            "plan",
            "-p",
            "together",
            "--name",
            "capped",
            "--gpu-model",
            "H100",
            "--gpus",
            "16",
            "--max-price-per-hour",
            "1",
        ],
        &env,
    );
    // The plan says why, and fails as the create would: a CI gate on it must not pass.
    plan.expect_code(4);
    assert!(
        plan.stdout
            .contains("skipped: no together offering matches"),
        "{}",
        plan.stdout
    );
    assert!(plan.stdout.contains("states no price"), "{}", plan.stdout);
    assert!(
        plan.stderr
            .contains("no candidate can be created: 1 of 1 skipped"),
        "{}",
        plan.stderr
    );
    // Asked for, an unpriced offering is taken, and the run says the ceiling was not
    // checked for it, on stderr and in the JSON.
    let uncapped = create("uncapped", &["--allow-unpriced", "--json"]);
    uncapped.expect_code(0);
    assert_eq!(named("uncapped"), 1);
    assert!(
        uncapped.stderr.contains(
            "its own price could not be checked against the ceiling (neither the create's \
             answer nor the read after it states a price)"
        ),
        "{}",
        uncapped.stderr
    );
    assert_eq!(json(&uncapped)["price_check"]["result"], "unchecked");
}

#[test]
fn a_plan_with_no_credentials_anywhere_fails_as_the_create_does() {
    let args = ["--gpu-model", "H100", "--gpus", "16", "--name", "nowhere"];
    let plan = gpucloud(&[&["plan", "-p", "any"][..], &args].concat(), &[]);
    let create = gpucloud(
        &[&["clusters", "create", "-p", "any"][..], &args].concat(),
        &[],
    );
    // A configuration error, nothing sent: exit 3 for both, each provider's reason named.
    assert_eq!(
        (plan.code, create.code),
        (3, 3),
        "{}\n{}",
        plan.stderr,
        create.stderr
    );
    for run in [&plan, &create] {
        assert!(
            run.stderr
                .contains("no provider can be used: together: configuration: TOGETHER_API_KEY")
                && run.stderr.contains("e2e: configuration: E2E_API_KEY"),
            "{}",
            run.stderr
        );
    }
}

#[test]
fn a_create_that_pins_no_region_tries_each_region_of_the_provider_in_turn() {
    let sim = TestSim::start();
    // Together's first H100 region by id; both US regions still have capacity.
    sim.sim()
        .capacity()
        .set(
            &CapacityFilter::new(Provider::Together, "H100_SXM").region("eu-north-1"),
            0,
        )
        .unwrap_or_else(|e| panic!("{e:?}"));
    let args = [
        "--gpu-model",
        "H100",
        "--gpus",
        "16",
        "--name",
        "regional",
        "--ttl",
        "2h",
    ];
    let plan = gpucloud(
        &[&["plan", "-p", "together,e2e"][..], &args].concat(),
        &env(&sim),
    );
    plan.expect_code(0);
    assert!(
        plan.stdout
            .contains("If that region has no capacity, the same request in: us-"),
        "{}",
        plan.stdout
    );

    // One ledger for both runs of the create.
    let ledger = tempfile::tempdir().unwrap_or_else(|e| panic!("{e}"));
    let mut env = env(&sim);
    env.push((
        "GPUCLOUD_LEDGER",
        ledger.path().join("l.sqlite3").display().to_string(),
    ));
    let run = gpucloud(
        &[
            &["--json", "clusters", "create", "-p", "together"][..],
            &args,
        ]
        .concat(),
        &env,
    );
    run.expect_code(0);
    let lines: Vec<&str> = run
        .stderr
        .lines()
        .filter(|l| l.starts_with("together ("))
        .collect();
    assert!(
        lines
            .first()
            .is_some_and(|l| l.starts_with("together (eu-north-1): refused: no capacity")),
        "{}",
        run.stderr
    );
    assert!(
        lines
            .get(1)
            .is_some_and(|l| l.starts_with("together (us-") && l.ends_with("created the cluster")),
        "{}",
        run.stderr
    );
    let report = json(&run);
    let cluster = &report["cluster"];
    assert_eq!(cluster["provider"], "together", "{}", run.stdout);
    // The same attempts in the JSON, each with its region and what happened there.
    let tried = report["placement"].as_array().cloned().unwrap_or_default();
    assert_eq!(tried[0]["provider"], "together", "{}", run.stdout);
    assert_eq!(tried[0]["region"], "eu-north-1", "{}", run.stdout);
    assert_eq!(tried[0]["outcome"], "refused", "{}", run.stdout);
    assert_eq!(tried[0]["kind"], "no_capacity", "{}", run.stdout);
    assert_eq!(tried[1]["outcome"], "created", "{}", run.stdout);
    assert!(
        tried[1]["region"]
            .as_str()
            .is_some_and(|r| r.starts_with("us-") && cluster["raw"]["region"] == r),
        "{}",
        run.stdout
    );
    // The deadline the ledger holds: the create's time plus the ttl.
    let deadline = report["deadline"]
        .as_str()
        .and_then(|d| chrono::DateTime::parse_from_rfc3339(d).ok())
        .unwrap_or_else(|| panic!("no deadline: {}", run.stdout));
    let left = deadline.signed_duration_since(chrono::Utc::now());
    assert!(
        (7_100..=7_200).contains(&left.num_seconds()),
        "{left:?} left"
    );
    let clusters = sim.sim().clusters(Provider::Together);
    let made: Vec<_> = clusters.iter().filter(|c| c.name == "regional").collect();
    assert_eq!(made.len(), 1);

    // The same command again, the first region with room once more: the cluster it made in
    // the second region is the answer (its request, in that region); nothing new is sent.
    sim.sim()
        .capacity()
        .set(
            &CapacityFilter::new(Provider::Together, "H100_SXM").region("eu-north-1"),
            64,
        )
        .unwrap_or_else(|e| panic!("{e:?}"));
    let again = gpucloud(
        &[
            &["--json", "clusters", "create", "-p", "together"][..],
            &args,
        ]
        .concat(),
        &env,
    );
    again.expect_code(0);
    assert_eq!(
        json(&again)["outcome"],
        "already_existed",
        "{}",
        again.stderr
    );
    assert_eq!(json(&again)["cluster"]["id"], cluster["id"]);
    let named = sim.sim().clusters(Provider::Together);
    assert_eq!(named.iter().filter(|c| c.name == "regional").count(), 1);
}

#[test]
fn a_create_on_a_terminal_shows_where_and_what_it_costs_and_asks_first() {
    let sim = TestSim::start();
    let env = env(&sim);
    let args = [
        "clusters",
        "create",
        "-p",
        "runcrate,e2e",
        "--allow-no-delete",
        "--gpu-model",
        "H100",
        "--gpus",
        "16",
        "--ttl",
        "8h",
        "--name",
        "asked",
    ];
    let (code, shown) = on_a_terminal(&args, &env, "n\n");
    assert_eq!(code, Some(6), "declined: {shown}");
    assert!(
        shown.contains("About to create asked; tried in this order:"),
        "{shown}"
    );
    // Runcrate's H100 is 2 nodes at 23.92 USD/h each: 47.84 USD/h, and no total for 8h: no
    // API can stop it at its ttl, and the line says so.
    assert!(
        shown.contains(
            "1. runcrate (Dallas, TX): 47.84 USD/h (until stopped by hand) [answered by the \
             provider]; nothing ends it at its ttl of 8h"
        ),
        "{shown}"
    );
    assert!(shown.contains("Create it? [y/N]"), "{shown}");
    assert!(shown.contains("not confirmed: nothing was sent"), "{shown}");
    let made = |name: &str| {
        [Provider::Runcrate, Provider::E2e]
            .iter()
            .map(|p| {
                sim.sim()
                    .clusters(*p)
                    .iter()
                    .filter(|c| c.name == name)
                    .count()
            })
            .sum::<usize>()
    };
    assert_eq!(made("asked"), 0);

    let (code, shown) = on_a_terminal(&args, &env, "y\n");
    assert_eq!(code, Some(0), "{shown}");
    assert_eq!(made("asked"), 1);

    // --yes, or no terminal, never asks.
    let mut yes = args.to_vec();
    let last = yes.len() - 1;
    yes[last] = "asked-yes";
    yes.push("--yes");
    let (code, shown) = on_a_terminal(&yes, &env, "");
    assert_eq!(code, Some(0), "{shown}");
    assert!(!shown.contains("[y/N]"), "{shown}");
    let mut piped = args.to_vec();
    let last = piped.len() - 1;
    piped[last] = "asked-piped";
    gpucloud(&piped, &env).expect_code(0);
    assert_eq!(made("asked-yes") + made("asked-piped"), 2);
}

#[test]
fn plan_shows_what_each_candidate_costs_per_hour_and_for_its_ttl() {
    let sim = TestSim::start();
    let args = [
        "--allow-no-delete",
        "--gpu-model",
        "H100",
        "--gpus",
        "16",
        "--ttl",
        "8h",
        "--name",
        "priced",
    ];
    let single = gpucloud(
        &[&["plan", "-p", "runcrate"][..], &args].concat(),
        &env(&sim),
    );
    single.expect_code(0);
    assert!(
        single.stdout.contains(
            "Cost: 47.84 USD/h (until stopped by hand) [answered by the provider]; nothing ends it at its ttl of 8h"
        ),
        "{}",
        single.stdout
    );
    let both = gpucloud(
        &[&["--json", "plan", "-p", "runcrate,e2e"][..], &args].concat(),
        &env(&sim),
    );
    both.expect_code(0);
    let planned = json(&both);
    assert_eq!(planned[0]["cost"]["per_hour"], 47.84, "{}", both.stdout);
    assert_eq!(planned[0]["cost"]["currency"], "USD");
    // No total for the ttl: nothing ends a Runcrate cluster at it.
    assert!(planned[0]["cost"]["for_ttl"].is_null(), "{}", both.stdout);
    assert_eq!(planned[0]["cost"]["ended_by"], "nothing");
    // E2E needs the account's security group: skipped, so no cost is claimed for it.
    assert!(planned[1]["skipped"].is_string(), "{}", both.stdout);
    assert!(planned[1].get("cost").is_none(), "{}", both.stdout);
    // Nothing was created by either plan.
    assert!(sim.sim().clusters(Provider::Runcrate).is_empty());
}

/// With `--json`, a create that made nothing prints one document on stdout: the error (its
/// kind and exit code) and every place the placement tried, with why nothing was made there.
/// A failure before any placement is a document too, with the command line's own kind.
#[test]
fn a_create_that_makes_nothing_says_why_in_one_json_document_with_every_attempt() {
    let sim = together_without_h100();
    let env = env(&sim);
    let run = gpucloud(
        &[
            "--json",
            "clusters",
            "create",
            "--provider",
            "together,runcrate",
            "-f",
            "tests/fixtures/intent.toml",
        ],
        &env,
    );
    run.expect_code(4);
    let failure = json(&run);
    assert_eq!(failure["error"]["exit_code"], 4, "{}", run.stdout);
    // The error that ended it is the last provider tried's; Runcrate, which the plan passed
    // over, is accounted for first.
    assert_eq!(failure["error"]["kind"], "no_capacity", "{}", run.stdout);
    assert!(
        failure["error"]["message"]
            .as_str()
            .is_some_and(|m| m.starts_with("no candidate created the cluster")),
        "{}",
        run.stdout
    );
    let attempts = failure["placement"]
        .as_array()
        .unwrap_or_else(|| panic!("no placement: {}", run.stdout));
    let seen: Vec<(&str, &str, &str, &str)> = attempts
        .iter()
        .map(|a| {
            (
                a["provider"].as_str().unwrap_or("?"),
                a["region"].as_str().unwrap_or("-"),
                a["outcome"].as_str().unwrap_or("?"),
                a["kind"].as_str().unwrap_or("-"),
            )
        })
        .collect();
    assert_eq!(
        seen,
        [
            ("runcrate", "-", "skipped", "undeletable"),
            ("together", "eu-north-1", "refused", "no_capacity"),
            ("together", "us-central-4", "refused", "no_capacity"),
            ("together", "us-central-8", "refused", "no_capacity"),
        ],
        "{}",
        run.stdout
    );
    assert!(
        attempts[0]["reason"]
            .as_str()
            .is_some_and(|why| why.contains("cannot delete a cluster")),
        "{}",
        run.stdout
    );
    assert!(sim.sim().clusters(Provider::Together).is_empty());
    assert!(sim.sim().clusters(Provider::Runcrate).is_empty());

    // A request file that is not there: nothing is sent, and the document says so.
    let missing = gpucloud(
        &[
            "--json",
            "clusters",
            "create",
            "--provider",
            "together",
            "-f",
            "tests/fixtures/no-such-file.toml",
        ],
        &env,
    );
    missing.expect_code(3);
    let failure = json(&missing);
    assert_eq!(
        failure["error"]["kind"], "invalid_input",
        "{}",
        missing.stdout
    );
    assert_eq!(failure["error"]["exit_code"], 3, "{}", missing.stdout);
    assert!(failure.get("placement").is_none(), "{}", missing.stdout);
}

/// A cluster whose own answer states a price over the ceiling is deleted where the API can
/// delete it; where it cannot (Runcrate), the failure's JSON document says it may be billing
/// and where it is stopped.
#[test]
fn a_cluster_over_the_ceiling_is_in_the_failure_document_with_whether_it_bills() {
    let sim = TestSim::start();
    let env = env(&sim);
    let over = |provider, cents_per_hour, args: &[&str]| {
        sim.sim().faults().inject(
            Fault::new(provider, FaultKind::StatedPrice { cents_per_hour }).on("create_cluster"),
        );
        let mut all = vec!["--json", "clusters", "create", "--name", "dear"];
        all.extend(args);
        let run = gpucloud(&all, &env);
        run.expect_code(4);
        let failure = json(&run);
        assert_eq!(
            failure["error"]["kind"], "price_above_ceiling",
            "{}",
            run.stdout
        );
        let made = sim.sim().clusters(provider);
        (failure, made)
    };

    // Runcrate: 2 × 23.92 USD/h by its catalog, under 50; its answer says 400, and its API
    // cannot delete.
    let (failure, made) = over(
        Provider::Runcrate,
        40_000,
        &[
            "-p",
            "runcrate",
            "--allow-no-delete",
            "--gpu-model",
            "H100",
            "--gpus",
            "16",
            "--max-price-per-hour",
            "50",
        ],
    );
    assert_eq!(made.len(), 1);
    let cluster = &failure["cluster"];
    assert_eq!(cluster["provider"], "runcrate", "{failure}");
    assert_eq!(cluster["id"], made[0].id.as_str(), "{failure}");
    assert_eq!(cluster["cleanup"], "kept", "{failure}");
    assert_eq!(cluster["may_be_billing"], true, "{failure}");
    assert!(
        cluster["how_to_stop"]
            .as_str()
            .is_some_and(|how| how.contains("Runcrate dashboard")),
        "{failure}"
    );
    assert_eq!(failure["placement"][0]["outcome"], "failed", "{failure}");
}

/// E2E addresses a cluster by location: a placement (here `--cheapest-first`) of a request
/// pinned to Chennai while `E2E_LOCATION` says Delhi makes the cluster in Chennai and waits
/// for it there. (Before, the placement's cluster was followed through the client of the
/// environment's location: every poll answered 404 and a healthy cluster was reported "kept,
/// may be billing".)
#[test]
fn a_placed_e2e_cluster_in_another_location_is_waited_for_where_it_was_made() {
    let sim = TestSim::start_scaled(600.0);
    let run = gpucloud(
        &[
            "--json",
            "clusters",
            "create",
            "-p",
            "e2e",
            "--cheapest-first",
            "--name",
            "in-chennai",
            "--gpu-model",
            "H100",
            "--gpus",
            "16",
            "--ssh-key",
            "101",
            "--security-group-id",
            "1",
            "--region",
            "Chennai",
            "--wait",
            "--interval",
            "1s",
        ],
        &env(&sim),
    );
    run.expect_code(0);
    let report = json(&run);
    assert_eq!(report["cluster"]["state"], "ready", "{}", run.stdout);
    assert_eq!(
        report["placement"][0]["region"], "Chennai",
        "{}",
        run.stdout
    );
    assert_eq!(
        report["placement"][0]["outcome"], "created",
        "{}",
        run.stdout
    );
    let id = report["cluster"]["id"]
        .as_str()
        .unwrap_or_default()
        .to_string();
    let gets: Vec<Option<u16>> = sim
        .sim()
        .exchanges()
        .iter()
        .filter(|e| e.provider == Some(Provider::E2e) && e.method == "GET")
        .filter(|e| e.path.ends_with(&format!("/cluster/{id}/")))
        .map(|e| e.status)
        .collect();
    assert!(
        !gets.is_empty() && gets.iter().all(|s| *s == Some(200)),
        "every read of the cluster found it: {gets:?}"
    );
    let made: Vec<_> = sim
        .sim()
        .clusters(Provider::E2e)
        .into_iter()
        .filter(|c| c.name == "in-chennai")
        .collect();
    assert_eq!(made.len(), 1, "{made:?}");
}
