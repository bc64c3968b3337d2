//! One request, every provider: with a configuration file that prices Together (a price book
//! entry) and converts E2E's rupees (a rate), a plan over every provider prices each candidate
//! in one currency with its source and tries the cheapest first; SSH keys are applied in each
//! provider's own form, and a provider that takes none (Together) is not refused for them, so a
//! create fails over between Together and E2E either way.

use gpucloud_sim::{CapacityFilter, Provider};

use crate::simulated::{TestSim, json};
use crate::support::gpucloud;

/// The simulator's endpoints, its credentials, a ledger, and `config` as the configuration
/// file (kept until the guard drops).
fn env_with_config(
    sim: &TestSim,
    config: &str,
) -> (tempfile::TempDir, Vec<(&'static str, String)>) {
    let dir = tempfile::tempdir().unwrap_or_else(|e| panic!("{e}"));
    let path = dir.path().join("config.toml");
    std::fs::write(&path, config).unwrap_or_else(|e| panic!("{e}"));
    let mut env = sim.env();
    env.push(("GPUCLOUD_CONFIG", path.display().to_string()));
    env.push((
        "GPUCLOUD_LEDGER",
        dir.path().join("ledger.sqlite3").display().to_string(),
    ));
    (dir, env)
}

const CONFIG: &str = r#"
[e2e]
ssh_keys = ["101"]
security_group_id = 1

[[price_book]]
provider = "together"
gpu_model = "H100"
region = "*"
per_gpu_hour = 2.5
currency = "USD"
source = "the simulator's price list"
as_of = "2026-12-01"

[rates.INR]
USD = 0.012
as_of = "2026-12-01"
"#;

const PLAN_ANY: [&str; 14] = [
    "--json",
    "plan",
    "-p",
    "any",
    "--gpu-model",
    "H100",
    "--gpus",
    "16",
    "--name",
    "cheap-1",
    "--max-price-per-hour",
    "60",
    "--allow-no-delete",
    "--cheapest-first",
];

#[test]
fn a_plan_over_every_provider_prices_each_in_one_currency_with_its_source() {
    let sim = TestSim::start();
    let (_dir, env) = env_with_config(&sim, CONFIG);
    let run = gpucloud(&PLAN_ANY, &env);
    run.expect_code(0);
    let planned = json(&run);
    let candidates = planned.as_array().cloned().unwrap_or_default();
    let providers: Vec<&str> = candidates
        .iter()
        .map(|c| c["provider"].as_str().unwrap_or_default())
        .collect();
    // Cheapest first, in USD: Together 16 × 2.50 = 40.00 (price book), E2E 4080 INR × 0.012 =
    // 48.96, Runcrate 47.84 (answered).
    assert_eq!(providers, ["together", "runcrate", "e2e"], "{}", run.stdout);
    for c in &candidates {
        assert!(c["skipped"].is_null(), "{c}");
    }
    assert_eq!(candidates[0]["cost"]["per_hour"], 40.0);
    assert_eq!(candidates[0]["cost"]["source"]["kind"], "price_book");
    assert_eq!(
        candidates[0]["cost"]["source"]["source"],
        "the simulator's price list"
    );
    assert_eq!(candidates[1]["cost"]["source"]["kind"], "answered");
    assert_eq!(candidates[2]["cost"]["currency"], "INR");
    let usd = candidates[2]["cost"]["converted"]["amount"]
        .as_f64()
        .unwrap_or_default();
    assert!((usd - 48.96).abs() < 1e-6, "{usd}");
    assert_eq!(candidates[2]["cost"]["converted"]["rate"], 0.012);
    // Access per provider: E2E's key from the file; Together reached by kubeconfig.
    assert!(
        candidates[0]["access"]
            .as_str()
            .unwrap_or_default()
            .contains("kubeconfig")
    );
    assert_eq!(candidates[2]["plan"]["body"]["ssh_key_ids"][0], 101);
}

#[test]
fn without_a_price_book_or_a_rate_each_skip_names_the_setting_that_fixes_it() {
    let sim = TestSim::start();
    let (_dir, env) = env_with_config(&sim, "[e2e]\nssh_keys = [\"101\"]\nsecurity_group_id = 1\n");
    let run = gpucloud(&PLAN_ANY, &env);
    let planned = json(&run);
    let skipped = |provider: &str| -> String {
        planned
            .as_array()
            .cloned()
            .unwrap_or_default()
            .iter()
            .find(|c| c["provider"] == provider)
            .and_then(|c| c["skipped"].as_str().map(str::to_string))
            .unwrap_or_default()
    };
    assert!(
        skipped("together").contains("[[price_book]]"),
        "{}",
        run.stdout
    );
    assert!(
        skipped("together").contains("--price-book"),
        "{}",
        run.stdout
    );
    assert!(skipped("e2e").contains("[rates.INR]"), "{}", run.stdout);
}

#[test]
fn a_create_with_ssh_keys_fails_over_between_together_and_e2e_either_way() {
    for (order, full, made) in [
        ("together,e2e", Provider::Together, Provider::E2e),
        ("e2e,together", Provider::E2e, Provider::Together),
    ] {
        let sim = TestSim::start();
        sim.sim()
            .capacity()
            .set(&CapacityFilter::new(full, "H100"), 0)
            .unwrap_or_else(|e| panic!("{e:?}"));
        let (_dir, env) = env_with_config(&sim, CONFIG);
        let run = gpucloud(
            &[
                "--json",
                "clusters",
                "create",
                "-p",
                order,
                "--gpu-model",
                "H100",
                "--gpus",
                "16",
                "--name",
                "either-way",
                "--ssh-key",
                "101",
            ],
            &env,
        );
        run.expect_code(0);
        let created = json(&run);
        let provider = match made {
            Provider::Together => "together",
            Provider::Runcrate => "runcrate",
            Provider::E2e => "e2e",
        };
        assert_eq!(
            created["cluster"]["provider"], provider,
            "{order}: {}",
            run.stderr
        );
        assert_eq!(sim.sim().clusters(made).len(), 1, "{order}");
        assert!(sim.sim().clusters(full).is_empty(), "{order}");
    }
}

#[test]
fn a_configuration_file_that_cannot_be_used_names_file_line_and_field() {
    let sim = TestSim::start();
    let (_dir, env) = env_with_config(
        &sim,
        "[[price_book]]\nprovider = \"together\"\ngpu_model = \"H100\"\nper_gpu_hour = 2.5\n\
         currency = \"dollars\"\nsource = \"x\"\nas_of = \"2026-12-01\"\n",
    );
    let run = gpucloud(&PLAN_ANY, &env);
    run.expect_code(3);
    assert!(
        run.stderr.contains("config.toml:1: price_book[0].currency"),
        "{}",
        run.stderr
    );
    let (_dir, env) = env_with_config(&sim, "[together]\napi_key = \"tgp_v1_secret\"\n");
    let run = gpucloud(&PLAN_ANY, &env);
    run.expect_code(3);
    assert!(
        run.stderr.contains("config.toml:2: api_key"),
        "{}",
        run.stderr
    );
    assert!(!run.stderr.contains("tgp_v1_secret"), "{}", run.stderr);
}

#[test]
fn config_show_says_each_setting_and_where_it_came_from_never_a_credential() {
    let sim = TestSim::start();
    let stale = CONFIG
        .replace(
            "[[price_book]]",
            "[pricing]\nstale_after_days = 1\n\n[[price_book]]",
        )
        .replace(
            "as_of = \"2026-12-01\"\n\n[rates",
            "as_of = \"2020-01-01\"\n\n[rates",
        );
    let (_dir, env) = env_with_config(&sim, &stale);
    let run = gpucloud(&["--json", "config", "show"], &env);
    run.expect_code(0);
    let shown = json(&run);
    let settings = shown["settings"].as_array().cloned().unwrap_or_default();
    let find = |scope: &str, name: &str| {
        settings
            .iter()
            .find(|s| s["scope"] == scope && s["name"] == name)
            .cloned()
            .unwrap_or_else(|| panic!("{scope} {name}: {}", run.stdout))
    };
    assert_eq!(find("e2e", "ssh_keys")["value"], "101");
    assert!(
        find("e2e", "ssh_keys")["from"]
            .as_str()
            .unwrap_or_default()
            .ends_with("[e2e] ssh_keys")
    );
    assert_eq!(find("e2e", "security_group_id")["value"], "1");
    assert_eq!(find("together", "credential")["value"], "set (never shown)");
    assert_eq!(find("together", "credential")["from"], "TOGETHER_API_KEY");
    assert_eq!(find("together", "base_url")["from"], "TOGETHER_BASE_URL");
    assert_eq!(
        find("gpucloud", "configuration file")["from"],
        "GPUCLOUD_CONFIG"
    );
    assert_eq!(shown["price_book"].as_array().map(Vec::len), Some(1));
    assert_eq!(shown["rates"][0]["from"], "INR");
    assert_eq!(
        shown["stale"].as_array().map(Vec::len),
        Some(1),
        "{}",
        run.stdout
    );
    assert!(run.stderr.contains("stale_after_days"), "{}", run.stderr);
    // The plan uses the stale price, and says it is stale.
    let plan = gpucloud(&PLAN_ANY[1..], &env);
    plan.expect_code(0);
    assert!(plan.stdout.contains("STALE"), "{}", plan.stdout);
    assert!(
        plan.stderr
            .contains("older than its file's stale_after_days"),
        "{}",
        plan.stderr
    );
}

#[test]
fn offers_lists_every_provider_for_the_size_asked_in_one_currency_cheapest_first() {
    let sim = TestSim::start();
    let (_dir, env) = env_with_config(&sim, CONFIG);
    let run = gpucloud(
        &[
            "--json",
            "offers",
            "--gpu-model",
            "H100",
            "--gpus",
            "16",
            "--max-price-per-hour",
            "48",
        ],
        &env,
    );
    run.expect_code(0);
    let listed = json(&run);
    assert_eq!(listed["currency"], "USD");
    let offers = listed["offers"].as_array().cloned().unwrap_or_default();
    let fitting: Vec<(String, f64)> = offers
        .iter()
        .filter(|o| o["not_fitting"].is_null())
        .map(|o| {
            (
                o["provider"].as_str().unwrap_or_default().to_string(),
                o["total_per_hour"].as_f64().unwrap_or_default(),
            )
        })
        .collect();
    // Sorted by the total for 16 GPUs in USD; E2E's 48.96 USD is over the 48 ceiling.
    assert!(!fitting.is_empty(), "{}", run.stdout);
    assert!(
        fitting.windows(2).all(|w| w[0].1 <= w[1].1),
        "cheapest first: {fitting:?}"
    );
    assert_eq!(fitting[0], ("together".to_string(), 40.0), "{fitting:?}");
    assert!(
        fitting
            .iter()
            .any(|(p, t)| p == "runcrate" && (*t - 47.84).abs() < 1e-9)
    );
    let e2e = offers
        .iter()
        .find(|o| o["provider"] == "e2e")
        .unwrap_or_else(|| panic!("{}", run.stdout));
    assert!(
        e2e["not_fitting"]
            .as_str()
            .unwrap_or_default()
            .contains("over the ceiling"),
        "{e2e}"
    );
    assert_eq!(e2e["converted"]["from"], "INR");
    let runcrate = offers
        .iter()
        .find(|o| o["provider"] == "runcrate")
        .unwrap_or_else(|| panic!("{}", run.stdout));
    assert_eq!(runcrate["deletable"], false);
    assert_eq!(runcrate["source"]["kind"], "answered");
    assert_eq!(offers[0]["source"]["kind"], "price_book");
    // Every fitting offer comes before every one listed apart.
    let apart = offers.iter().position(|o| !o["not_fitting"].is_null());
    assert!(apart.is_none_or(|i| offers[i..].iter().all(|o| !o["not_fitting"].is_null())));
}

#[test]
fn the_plan_shows_one_table_of_every_candidate_chosen_or_why_not() {
    let sim = TestSim::start();
    let (_dir, env) = env_with_config(&sim, CONFIG);
    let mut args: Vec<&str> = PLAN_ANY[1..].to_vec();
    // 45 USD/h: Runcrate (47.84) and E2E (48.96 converted) are over it.
    args[10] = "45";
    let run = gpucloud(&args, &env);
    run.expect_code(0);
    let table = run
        .stdout
        .split("Considered, in the order a create tries them:")
        .nth(1)
        .unwrap_or_else(|| panic!("{}", run.stdout));
    let line = |provider: &str| {
        table
            .lines()
            .find(|l| l.contains(provider))
            .unwrap_or_else(|| panic!("{provider}: {table}"))
            .to_string()
    };
    assert!(line("together").contains("CHOSEN"), "{table}");
    assert!(line("together").contains("40.00 USD"), "{table}");
    assert!(line("together").contains("price book"), "{table}");
    assert!(line("runcrate").contains("passed over"), "{table}");
    assert!(line("e2e").contains("passed over"), "{table}");
    assert!(line("e2e").contains("48.96 USD"), "{table}");
    let planned = json(&gpucloud(&[&["--json"][..], &args].concat(), &env));
    let chosen: Vec<&str> = planned
        .as_array()
        .map(|a| {
            a.iter()
                .filter(|c| c["chosen"] == true)
                .filter_map(|c| c["provider"].as_str())
                .collect()
        })
        .unwrap_or_default();
    assert_eq!(chosen, ["together"]);
}

#[test]
fn a_base_url_in_the_configuration_file_is_used_unless_the_variable_sets_one() {
    let sim = TestSim::start();
    let url = sim.sim().base_url(Provider::Together);
    let (_dir, mut env) = env_with_config(&sim, &format!("[together]\nbase_url = \"{url}\"\n"));
    env.retain(|(k, _)| *k != "TOGETHER_BASE_URL");
    let listed = gpucloud(&["--json", "clusters", "list", "-p", "together"], &env);
    listed.expect_code(0);
    let shown = json(&gpucloud(&["--json", "config", "show"], &env));
    let base = shown["settings"]
        .as_array()
        .cloned()
        .unwrap_or_default()
        .into_iter()
        .find(|s| s["scope"] == "together" && s["name"] == "base_url")
        .unwrap_or_default();
    assert_eq!(base["value"], url.as_str());
    assert!(
        base["from"]
            .as_str()
            .unwrap_or_default()
            .ends_with("[together] base_url")
    );
    // The variable wins: pointed elsewhere, the list fails to connect.
    env.push(("TOGETHER_BASE_URL", "http://127.0.0.1:9/together/v1".into()));
    let elsewhere = gpucloud(&["clusters", "list", "-p", "together"], &env);
    assert_ne!(elsewhere.code, 0);
}

#[test]
fn a_create_on_a_terminal_shows_each_candidate_in_the_ceilings_currency_before_asking() {
    let sim = TestSim::start();
    let (_dir, env) = env_with_config(&sim, CONFIG);
    let args = [
        "clusters",
        "create",
        "-p",
        "e2e,together",
        "--gpu-model",
        "H100",
        "--gpus",
        "16",
        "--name",
        "asked-in-usd",
        "--max-price-per-hour",
        "60",
    ];
    let (code, shown) = crate::support::on_a_terminal(&args, &env, "n\n");
    assert_eq!(code, Some(6), "declined: {shown}");
    let e2e = shown
        .lines()
        .find(|l| l.contains("1. e2e"))
        .unwrap_or_else(|| panic!("{shown}"));
    assert!(e2e.contains("4080.00 INR/h"), "{e2e}");
    assert!(e2e.contains("= 48.96 USD/h (rate 0.012"), "{e2e}");
    let together = shown
        .lines()
        .find(|l| l.contains("together"))
        .unwrap_or_else(|| panic!("{shown}"));
    assert!(together.contains("price book"), "{together}");
    assert!(
        sim.sim().clusters(Provider::E2e).is_empty(),
        "nothing was made"
    );
}

/// The region the plan chose for Together, and why.
fn together_region(run: &crate::support::Run) -> (String, String) {
    let planned = json(run);
    // One provider's plan is the plan; several providers' a list of candidates.
    let plan = match planned.get(0) {
        Some(first) => first["plan"].clone(),
        None => planned,
    };
    let resolved = plan["resolved"].as_array().cloned().unwrap_or_default();
    let region = resolved
        .iter()
        .find(|c| c["field"] == "region")
        .unwrap_or_else(|| panic!("{}", run.stdout));
    (
        region["value"].as_str().unwrap_or_default().to_string(),
        region["why"].as_str().unwrap_or_default().to_string(),
    )
}

#[test]
fn preferred_regions_from_the_flag_or_the_file_come_first() {
    let sim = TestSim::start();
    let (_dir, env) = env_with_config(
        &sim,
        "[together]\npreferred_regions = [\"us-central-8\", \"eu-north-1\"]\n",
    );
    let plan = |extra: &[&str]| {
        let mut args = vec![
            "--json",
            "plan",
            "--gpu-model",
            "H100_SXM",
            "--gpus",
            "16",
            "--name",
            "near",
        ];
        if !extra.contains(&"-p") {
            args.extend_from_slice(&["-p", "together"]);
        }
        args.extend_from_slice(extra);
        let run = gpucloud(&args, &env);
        run.expect_code(0);
        run
    };
    // The file's preference: us-central-8 first, eu-north-1 next, then the rest.
    let run = plan(&[]);
    let (region, why) = together_region(&run);
    assert_eq!(region, "us-central-8", "{why}");
    assert!(
        why.contains("preferred region us-central-8 of us-central-8, eu-north-1"),
        "{why}"
    );
    // Over several providers, the same order of regions.
    let several = plan(&["-p", "together,runcrate", "--allow-no-delete"]);
    assert_eq!(together_region(&several).0, "us-central-8");
    assert_eq!(
        json(&several)[0]["other_regions"],
        serde_json::json!(["eu-north-1", "us-central-4"]),
        "{}",
        several.stdout
    );
    // The flag's wins over the file's.
    let (region, _) = together_region(&plan(&["--prefer-region", "eu-north-1"]));
    assert_eq!(region, "eu-north-1");
    // A pinned region takes no preference: refused before anything is sent.
    let both = gpucloud(
        &[
            "plan",
            "-p",
            "together",
            "--gpus",
            "16",
            "--name",
            "near",
            "--region",
            "us-central-4",
            "--prefer-region",
            "eu-north-1",
        ],
        &env,
    );
    both.expect_code(2);
    assert!(both.stderr.contains("--prefer-region"), "{}", both.stderr);
    // `config show` says where the preference came from.
    let shown = gpucloud(&["--json", "config", "show"], &env);
    shown.expect_code(0);
    let settings = json(&shown)["settings"]
        .as_array()
        .cloned()
        .unwrap_or_default();
    let preferred = settings
        .iter()
        .find(|s| s["name"] == "preferred_regions")
        .unwrap_or_else(|| panic!("{}", shown.stdout));
    assert_eq!(preferred["value"], "us-central-8, eu-north-1");
    assert_eq!(preferred["scope"], "together");
}
