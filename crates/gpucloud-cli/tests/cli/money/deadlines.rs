//! Who ends a cluster at its `--ttl`, said before it is made: Together itself when asked
//! (`--ttl-by-provider`: a reservation of whole days, the rounding shown, recorded in the
//! ledger), a sweep otherwise, and nothing at all on a provider whose API cannot delete.

use gpucloud_sim::Provider;

use super::bench::{Bench, create_args};
use crate::simulated::json;

/// `args` with `--provider` replaced by `plan` (the same flags as the create).
fn plan_args(provider: Provider, name: &str, extra: &[&str]) -> Vec<String> {
    let mut args: Vec<String> = vec!["plan".into()];
    args.extend(create_args(provider, name).into_iter().skip(2));
    args.extend(extra.iter().map(|s| s.to_string()));
    args
}

#[test]
fn together_ends_a_cluster_itself_at_a_ttl_rounded_up_to_whole_days_when_asked() {
    let bench = Bench::new();
    let extra = ["--ttl", "30h", "--ttl-by-provider"];
    let args = plan_args(Provider::Together, "reserved", &extra);
    let args: Vec<&str> = args.iter().map(String::as_str).collect();
    let plan = bench.run(Provider::Together, &args);
    plan.expect_code(0);
    assert!(
        plan.stdout
            .contains("Together AI ends it itself when its reservation ends")
            && plan.stdout.contains("rounded up to 2 day(s)"),
        "{}",
        plan.stdout
    );
    let mut json_args = vec!["--json"];
    json_args.extend(&args);
    let planned = bench.run(Provider::Together, &json_args);
    planned.expect_code(0);
    let body = &json(&planned)["body"];
    assert_eq!(body["billing_type"], "RESERVED", "{body}");
    assert_eq!(body["duration_days"], 2, "{body}");

    let mut create = create_args(Provider::Together, "reserved");
    create.extend(extra.iter().map(|s| s.to_string()));
    create.insert(0, "--json".into());
    let create: Vec<&str> = create.iter().map(String::as_str).collect();
    bench.run(Provider::Together, &create).expect_code(0);
    let entry = &bench.ledger_json(false)[0];
    let created = chrono::DateTime::parse_from_rfc3339(entry["created_at"].as_str().unwrap_or(""))
        .unwrap_or_else(|e| panic!("{e}: {entry}"));
    let ends =
        chrono::DateTime::parse_from_rfc3339(entry["provider_ends_at"].as_str().unwrap_or(""))
            .unwrap_or_else(|e| panic!("the ledger records that Together ends it: {e}: {entry}"));
    let days = (ends - created).num_seconds() as f64 / 86_400.0;
    assert!((days - 2.0).abs() < 0.01, "{days} days");
    let table = bench.run_plain(&["ledger"]);
    assert!(
        table.stdout.contains("Together AI ends it in 47h"),
        "{}",
        table.stdout
    );
}

#[test]
fn the_plan_says_who_ends_a_cluster_at_its_ttl_and_never_a_total_nothing_stops() {
    let bench = Bench::new();
    let sweep = plan_args(Provider::Together, "swept", &["--ttl", "2h"]);
    let sweep: Vec<&str> = sweep.iter().map(String::as_str).collect();
    let run = bench.run(Provider::Together, &sweep);
    run.expect_code(0);
    assert!(
        run.stdout
            .contains("is kept by `gpucloud clusters sweep --expired --delete`"),
        "{}",
        run.stdout
    );

    let never = plan_args(Provider::Runcrate, "unstoppable", &["--ttl", "2h"]);
    let never: Vec<&str> = never.iter().map(String::as_str).collect();
    let run = bench.run(Provider::Runcrate, &never);
    run.expect_code(0);
    assert!(
        run.stdout.contains("nothing ends it at its ttl of 2h"),
        "{}",
        run.stdout
    );
    assert!(!run.stdout.contains("for its ttl"), "{}", run.stdout);

    // Asked of a provider that cannot: refused, naming the field, before anything is sent.
    let refused = plan_args(
        Provider::E2e,
        "refused",
        &["--ttl", "2h", "--ttl-by-provider"],
    );
    let refused: Vec<&str> = refused.iter().map(String::as_str).collect();
    let run = bench.run(Provider::E2e, &refused);
    run.expect_code(3);
    assert!(run.stderr.contains("ttl_by_provider"), "{}", run.stderr);
}
