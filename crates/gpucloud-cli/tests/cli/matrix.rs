//! The hostile-provider matrix: every scenario of `scenarios.rs`, on each provider, for each
//! cluster command, run through the real binary under a wall-clock limit. Every run is judged
//! on the same rules — no panic, no hang, an exit code the README documents, at most one
//! `error:` line, no credential in any form, no control byte but `\n`, never a doubled create,
//! one `Idempotency-Key` per Runcrate create — and the figures are printed
//! (`cargo test -p gpucloud-cli --test cli matrix -- --nocapture`).

use std::collections::{BTreeMap, BTreeSet};
use std::sync::atomic::{AtomicUsize, Ordering};
use std::sync::{Arc, Mutex};
use std::time::{Duration, Instant};

use crate::fake::FakeProvider;
use crate::hostile::{CREDENTIALS, forms};
use crate::scenarios::{self, Command, Landed, Provider, Scenario, World};
use crate::support::{BoundedRun, gpucloud_within};

/// A run that takes longer is a hang, and is killed.
const LIMIT: Duration = Duration::from_secs(60);
/// Runs at once: they mostly wait on timeouts and pauses, not on the CPU.
const PARALLEL: usize = 8;
/// Flags of every run: short request timeouts, few attempts.
const FLAGS: [&str; 4] = ["--request-timeout", "2s", "--max-attempts", "3"];
/// And of every create: a short settle window, long enough for the scenarios' lagging lists
/// (3 list calls take about 5 s).
const CREATE_FLAGS: [&str; 2] = ["--settle-window", "10s"];
/// The exit codes the README documents for a cluster command against a reachable provider.
const DOCUMENTED: [i32; 5] = [0, 2, 3, 4, 5];
/// More requests than this in one command would be a retry storm.
const MAX_REQUESTS: usize = 40;

fn environment() -> Vec<(&'static str, String)> {
    let mut env: Vec<_> = CREDENTIALS
        .iter()
        .map(|(k, v)| (*k, v.to_string()))
        .collect();
    env.push(("E2E_PROJECT_ID", "4242".into()));
    env.push(("E2E_LOCATION", "Delhi".into()));
    env
}

/// The request file of `provider`'s creates. Runcrate's carries no idempotency key, so the
/// facade makes one, and the matrix checks that all retries reuse it.
fn request_file(provider: Provider) -> String {
    match provider {
        Provider::Together => "tests/fixtures/together.toml".into(),
        Provider::E2e => "tests/fixtures/e2e.json".into(),
        Provider::Runcrate => {
            let path =
                std::path::Path::new(env!("CARGO_TARGET_TMPDIR")).join("hostile-runcrate.yaml");
            std::fs::write(
                &path,
                "name: train-42\nsize:\n  nodes: 2\nstack: slurm\n\
                 ssh_keys: [5b0c9a4e-8d53-4c1f-9a0e-2f3a7c1e9b10]\n\
                 options:\n  runcrate:\n    offer_id: offer-h100-sxm-8x\n",
            )
            .unwrap_or_else(|e| panic!("{}: {e}", path.display()));
            path.display().to_string()
        }
    }
}

/// What one run showed.
struct Verdict {
    scenario: &'static str,
    family: &'static str,
    provider: Provider,
    command: Command,
    code: i32,
    elapsed: Duration,
    panicked: bool,
    hung: bool,
    duplicate: bool,
    leaked: bool,
    control: bool,
    /// Every broken rule, with the run's transcript.
    problems: Vec<String>,
}

/// The output's forbidden bytes: C0 controls but `\n`, DEL, and C1 controls (raw or UTF-8).
fn has_control(bytes: &[u8], text: &str) -> bool {
    bytes.iter().any(|&b| (b < 0x20 && b != b'\n') || b == 0x7f)
        || text.chars().any(|c| ('\u{80}'..='\u{9f}').contains(&c))
}

fn judge(
    scenario: &'static Scenario,
    provider: Provider,
    command: Command,
    bounded: &BoundedRun,
    requests: &[crate::fake::Request],
    landed: &Landed,
) -> Verdict {
    let run = &bounded.run;
    let mut problems = Vec::new();
    let panicked = run.code == 101 || run.stderr.contains("panicked at");
    if panicked {
        problems.push("panicked".to_string());
    }
    if bounded.hung {
        problems.push(format!("hung: killed after {LIMIT:?}"));
    } else if !DOCUMENTED.contains(&run.code) {
        problems.push(format!("exit code {} is not documented", run.code));
    }
    let errors = run
        .stderr
        .lines()
        .filter(|l| l.starts_with("error:"))
        .count();
    match (run.code, errors) {
        (0, 0) => {}
        (0, n) => problems.push(format!("exit 0 with {n} `error:` lines")),
        (_, 1) => {}
        (_, n) if !bounded.hung => problems.push(format!("failed with {n} `error:` lines")),
        _ => {}
    }
    let mut leaked = false;
    for (name, secret) in CREDENTIALS {
        for form in forms(secret) {
            for (stream, text) in [("stdout", &run.stdout), ("stderr", &run.stderr)] {
                if text.contains(&form) {
                    leaked = true;
                    problems.push(format!("{name} on {stream} as {form:?}"));
                }
            }
        }
    }
    let control =
        has_control(&bounded.stdout, &run.stdout) || has_control(&bounded.stderr, &run.stderr);
    if control {
        problems.push("a control byte other than \\n in the output".into());
    }
    if requests.len() > MAX_REQUESTS {
        problems.push(format!("{} requests: a retry storm", requests.len()));
    }
    let posts: Vec<_> = requests.iter().filter(|r| r.method == "POST").collect();
    // Runcrate's key makes any second cluster a duplicate. Together and E2E have only the
    // list: a landed create must be found, as long as the list works again after the POST
    // (otherwise one re-send after the settle window is the documented behaviour).
    let mut duplicate = match provider {
        Provider::Runcrate => landed.clusters > 1,
        _ => scenario.list_recovers() && landed.clusters > 1,
    };
    match provider {
        Provider::Together | Provider::E2e
            if scenario.list_recovers() && landed.first_landed && posts.len() != 1 =>
        {
            duplicate = true;
            problems.push(format!(
                "the first POST landed, but {} were sent",
                posts.len()
            ));
        }
        Provider::Runcrate => {
            let keys: BTreeSet<&str> = posts.iter().map(|r| r.header("idempotency-key")).collect();
            if keys.len() > 1 || keys.contains("") {
                duplicate = true;
                problems.push(format!("Idempotency-Key values across the POSTs: {keys:?}"));
            }
        }
        _ => {}
    }
    if duplicate && landed.clusters > 1 {
        problems.push(format!("{} clusters created", landed.clusters));
    }
    if !provider.supports(command) {
        let said = run
            .stderr
            .lines()
            .any(|l| l.starts_with("error:") && l.contains("does not support"));
        if run.code != 4 || !said || !requests.is_empty() {
            problems.push(format!(
                "unsupported: expected exit 4 saying so and no request, got exit {} after {} requests",
                run.code,
                requests.len()
            ));
        }
    } else if scenario.expect_ok && run.code != 0 {
        problems.push(format!("expected success, got exit {}", run.code));
    }
    let problems = problems
        .into_iter()
        .map(|p| {
            format!(
                "[{} / {} / {}] {p}\n{}",
                scenario.name,
                provider.name(),
                command.name(),
                run.transcript()
            )
        })
        .collect();
    Verdict {
        scenario: scenario.name,
        family: scenario.family,
        provider,
        command,
        code: run.code,
        elapsed: bounded.elapsed,
        panicked,
        hung: bounded.hung,
        duplicate,
        leaked,
        control,
        problems,
    }
}

/// The argument list of one run; `variant` rotates `--json` and `-vv` over the runs.
fn arguments(provider: Provider, command: Command, url: &str, variant: usize) -> Vec<String> {
    let mut args: Vec<String> = match variant % 4 {
        0 => vec![],
        1 => vec!["--json".into()],
        2 => vec!["-vv".into()],
        _ => vec!["--json".into(), "-vv".into()],
    };
    args.push("clusters".into());
    args.push(command.name().into());
    args.extend(["-p", provider.name(), "--base-url", url].map(String::from));
    args.extend(FLAGS.map(String::from));
    let id = provider.existing_id().to_string();
    match command {
        Command::Create => {
            args.extend(CREATE_FLAGS.map(String::from));
            args.extend(["-f".into(), request_file(provider)]);
            if provider == Provider::Runcrate {
                args.push("--allow-no-delete".into());
            }
        }
        Command::Get | Command::Delete => args.push(id),
        Command::List => {}
        Command::Wait => args.extend(
            [
                &id,
                "--timeout",
                "4s",
                "--interval",
                "1s",
                "--max-interval",
                "1s",
            ]
            .map(String::from),
        ),
    }
    args
}

fn one(
    scenario: &'static Scenario,
    provider: Provider,
    command: Command,
    variant: usize,
) -> Verdict {
    let world = Arc::new(World::new(provider, scenario));
    let server = {
        let world = world.clone();
        FakeProvider::start(move |request| world.answer(request))
    };
    let url = server.url(provider.base());
    let args = arguments(provider, command, &url, variant);
    let args: Vec<&str> = args.iter().map(String::as_str).collect();
    let bounded = gpucloud_within(&args, &environment(), LIMIT);
    let requests = server.requests();
    judge(
        scenario,
        provider,
        command,
        &bounded,
        &requests,
        &world.landed(),
    )
}

#[test]
fn hostile_providers_never_hang_double_leak_or_panic() {
    let started = Instant::now();
    let scenarios: &'static [Scenario] = Vec::leak(scenarios::all());
    let jobs: Vec<(&'static Scenario, Provider, Command, usize)> = scenarios
        .iter()
        .enumerate()
        .flat_map(|(i, scenario)| {
            Provider::ALL.into_iter().flat_map(move |provider| {
                Command::ALL
                    .into_iter()
                    .enumerate()
                    .map(move |(j, command)| (scenario, provider, command, i + j))
            })
        })
        .collect();
    let next = AtomicUsize::new(0);
    let verdicts = Mutex::new(Vec::new());
    std::thread::scope(|scope| {
        for _ in 0..PARALLEL {
            scope.spawn(|| {
                while let Some(&(scenario, provider, command, variant)) =
                    jobs.get(next.fetch_add(1, Ordering::SeqCst))
                {
                    let verdict = one(scenario, provider, command, variant);
                    verdicts
                        .lock()
                        .unwrap_or_else(std::sync::PoisonError::into_inner)
                        .push(verdict);
                }
            });
        }
    });
    let verdicts = verdicts
        .into_inner()
        .unwrap_or_else(std::sync::PoisonError::into_inner);
    report(scenarios, &verdicts, started.elapsed());
    let problems: Vec<&String> = verdicts.iter().flat_map(|v| &v.problems).collect();
    assert!(
        problems.is_empty(),
        "{} broken rules in {} runs:\n\n{}",
        problems.len(),
        verdicts.len(),
        problems
            .iter()
            .map(|p| p.as_str())
            .collect::<Vec<_>>()
            .join("\n\n")
    );
}

/// Prints a line per scenario (exit codes seen, slowest run) and the figures.
fn report(scenarios: &[Scenario], verdicts: &[Verdict], elapsed: Duration) {
    let mut lines = String::new();
    lines.push_str(&format!(
        "{:<40} {:<13} {:>4}  {:<26} {:>7}\n",
        "scenario", "family", "runs", "exit codes (count)", "slowest"
    ));
    for scenario in scenarios {
        let runs: Vec<&Verdict> = verdicts
            .iter()
            .filter(|v| v.scenario == scenario.name)
            .collect();
        let mut codes = BTreeMap::new();
        for run in &runs {
            *codes.entry(run.code).or_insert(0) += 1;
        }
        let codes = codes
            .iter()
            .map(|(code, n)| format!("{code}:{n}"))
            .collect::<Vec<_>>()
            .join(" ");
        let slowest = runs.iter().map(|v| v.elapsed).max().unwrap_or_default();
        lines.push_str(&format!(
            "{:<40} {:<13} {:>4}  {:<26} {:>6.1}s\n",
            scenario.name,
            runs.first().map_or("", |v| v.family),
            runs.len(),
            codes,
            slowest.as_secs_f64()
        ));
    }
    let count = |f: fn(&Verdict) -> bool| verdicts.iter().filter(|v| f(v)).count();
    let families: BTreeSet<&str> = scenarios.iter().map(|s| s.family).collect();
    let per_provider: Vec<String> = Provider::ALL
        .iter()
        .map(|p| {
            format!(
                "{} {}",
                p.name(),
                verdicts.iter().filter(|v| v.provider == *p).count()
            )
        })
        .collect();
    let per_command: Vec<String> = Command::ALL
        .iter()
        .map(|c| {
            format!(
                "{} {}",
                c.name(),
                verdicts.iter().filter(|v| v.command == *c).count()
            )
        })
        .collect();
    eprintln!(
        "\nhostile providers: {} scenarios in {} families ({}), {} runs ({}; {}) in {:.1}s\n\n{lines}\n\
         runs {:>5}\npanics {:>3}\nhangs {:>4}\nduplicate creates {}\nleaked secrets {:>3}\n\
         control bytes {:>4}\nother broken rules {}\n",
        scenarios.len(),
        families.len(),
        families.into_iter().collect::<Vec<_>>().join(", "),
        verdicts.len(),
        per_provider.join(", "),
        per_command.join(", "),
        elapsed.as_secs_f64(),
        verdicts.len(),
        count(|v| v.panicked),
        count(|v| v.hung),
        count(|v| v.duplicate),
        count(|v| v.leaked),
        count(|v| v.control),
        count(|v| !v.panicked
            && !v.hung
            && !v.duplicate
            && !v.leaked
            && !v.control
            && !v.problems.is_empty()),
    );
}
