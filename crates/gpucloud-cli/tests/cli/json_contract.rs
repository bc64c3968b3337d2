//! One JSON contract: every command of the command line, run with `--json` against the
//! simulator, succeeding and failing, prints one document that its schema
//! (`gpucloud schema output COMMAND`) accepts; a failure's always carries its `error`. The
//! schemas are also in `docs/schemas/output/`, the same bytes as the binary prints.

use std::collections::BTreeSet;
use std::path::Path;
use std::time::Duration;

use serde_json::Value;

use crate::simulated::{TestSim, json};
use crate::support::{Run, gpucloud};

/// The commands the help lists, as their words (`clusters create`), groups left out.
fn commands_in_the_help() -> BTreeSet<String> {
    let listed = |args: &[&str]| -> Vec<String> {
        let help = gpucloud(args, &[]);
        help.expect_code(0);
        help.stdout
            .split("Commands:")
            .nth(1)
            .unwrap_or_default()
            .split("\n\n")
            .next()
            .unwrap_or_default()
            .lines()
            .filter(|l| l.starts_with("  ") && !l.starts_with("   "))
            .filter_map(|l| l.split_whitespace().next())
            .filter(|w| *w != "help")
            .map(str::to_string)
            .collect()
    };
    let mut all = BTreeSet::new();
    for top in listed(&["--help"]) {
        let sub = listed(&[top.as_str(), "--help"]);
        if sub.is_empty() {
            all.insert(top);
        } else {
            for leaf in sub {
                // A group's aliases are listed apart (`[alias: ls]`); its own names only.
                all.insert(format!("{top} {leaf}"));
            }
        }
    }
    all
}

/// The schema `gpucloud schema output COMMAND` prints.
fn printed_schema(command: &str) -> Value {
    let mut args = vec!["schema", "output"];
    args.extend(command.split(' '));
    let run = gpucloud(&args, &[]);
    run.expect_code(0);
    json(&run)
}

/// The environment that points every provider at `sim`, with a ledger in `dir`.
fn env(sim: &TestSim, dir: &Path) -> Vec<(&'static str, String)> {
    let mut env = sim.env();
    env.push((
        "GPUCLOUD_LEDGER",
        dir.join("l.sqlite3").display().to_string(),
    ));
    let config = dir.join("config.toml");
    std::fs::write(
        &config,
        "[e2e]\nssh_keys = [\"1\"]\nsecurity_group_id = 1\n",
    )
    .unwrap_or_else(|e| panic!("{e}"));
    env.push(("GPUCLOUD_CONFIG", config.display().to_string()));
    env
}

/// Checks `run`'s stdout, one JSON document, against `command`'s schema; a failure must carry
/// its `error`, with the run's exit code.
fn check(command: &str, schema: &Value, run: &Run) {
    let document: Value = serde_json::from_str(&run.stdout).unwrap_or_else(|e| {
        panic!(
            "`{}`: stdout is not one JSON document ({e}):\n{}\n{}",
            run.args.join(" "),
            run.stdout,
            run.stderr
        )
    });
    let validator = jsonschema::options()
        .should_validate_formats(true)
        .build(schema)
        .unwrap_or_else(|e| panic!("{command}: not a JSON Schema: {e}"));
    let errors: Vec<String> = validator
        .iter_errors(&document)
        .map(|e| format!("{} at {}", e, e.instance_path()))
        .collect();
    assert!(
        errors.is_empty(),
        "`{}` (exit {}): {errors:#?}\n{document:#}",
        run.args.join(" "),
        run.code
    );
    if run.code != 0 {
        assert_eq!(
            document["error"]["exit_code"],
            run.code,
            "`{}`: {document}",
            run.args.join(" ")
        );
    }
}

/// `gpucloud --json sim`'s document, printed once it listens (it runs until stopped).
#[cfg(unix)]
fn listening_sim() -> Run {
    use std::io::BufRead as _;
    let mut child = std::process::Command::new(env!("CARGO_BIN_EXE_gpucloud"))
        .args(["--json", "sim", "--port", "0"])
        .env_clear()
        .stdout(std::process::Stdio::piped())
        .stderr(std::process::Stdio::null())
        .spawn()
        .unwrap_or_else(|e| panic!("{e}"));
    let mut stdout = String::new();
    if let Some(pipe) = child.stdout.take() {
        let mut reader = std::io::BufReader::new(pipe);
        let mut line = String::new();
        while reader.read_line(&mut line).unwrap_or(0) > 0 {
            stdout.push_str(&line);
            if line == "}\n" {
                break;
            }
            line.clear();
        }
    }
    // SIGTERM, so that it removes its price book file as it stops.
    let _ = std::process::Command::new("kill")
        .args(["-TERM", &child.id().to_string()])
        .status();
    let _ = child.wait();
    Run {
        args: vec!["--json".into(), "sim".into(), "--port".into(), "0".into()],
        code: 0,
        stdout,
        stderr: String::new(),
    }
}

#[test]
fn every_command_prints_one_document_its_schema_accepts_succeeding_and_failing() {
    let sim = TestSim::start();
    let dir = tempfile::tempdir().unwrap_or_else(|e| panic!("{e}"));
    let env = env(&sim, dir.path());
    let run = |args: &[&str]| {
        let mut all = vec!["--json"];
        all.extend_from_slice(args);
        gpucloud(&all, &env)
    };
    let create = [
        "clusters",
        "create",
        "-p",
        "together",
        "--gpu-model",
        "H100_SXM",
        "--gpus",
        "8",
        "--region",
        "us-central-8",
        "--name",
    ];
    let made = run(&[&create[..], &["json-1"]].concat());
    let id = crate::simulated::created_id(&made);
    let e2e = run(&[
        "clusters",
        "create",
        "-p",
        "e2e",
        "--gpu-model",
        "H100",
        "--nodes",
        "2",
        "--name",
        "json-2",
    ]);
    let e2e_id = crate::simulated::created_id(&e2e);
    let provisioning = run(&[
        "clusters",
        "wait",
        &id,
        "--timeout",
        "1s",
        "--interval",
        "1s",
    ]);
    sim.advance(Duration::from_secs(3600));
    let broken_config = dir.path().join("broken.toml");
    std::fs::write(&broken_config, "[nowhere]\nx = 1\n").unwrap_or_else(|e| panic!("{e}"));
    let with = |variable: &'static str, value: String| {
        let mut changed = env.clone();
        changed.retain(|(k, _)| *k != variable);
        changed.push((variable, value));
        changed
    };
    let broken_env = with("GPUCLOUD_CONFIG", broken_config.display().to_string());
    let wrong_key = with(
        "TOGETHER_API_KEY",
        "tgp_v1_wrongwrongwrongwrongwrong".into(),
    );
    let mut cases: Vec<(&str, Run)> = vec![
        ("clusters create", made),
        ("clusters create", e2e),
        (
            "clusters create",
            run(&[&create[..], &["json-bad", "--gpus", "7"]].concat()[..]),
        ),
        (
            "clusters create",
            run(&[
                "clusters",
                "create",
                "-p",
                "runcrate",
                "--gpu-model",
                "H100",
                "--gpus",
                "16",
                "--name",
                "json-3",
            ]),
        ),
        ("clusters wait", provisioning),
        (
            "clusters wait",
            run(&["clusters", "wait", &id, "--interval", "1s"]),
        ),
        ("clusters get", run(&["clusters", "get", &id])),
        ("clusters get", run(&["clusters", "get", "no-such-cluster"])),
        ("clusters list", run(&["clusters", "list"])),
        (
            "clusters list",
            gpucloud(&["--json", "clusters", "list"], &wrong_key),
        ),
        (
            "clusters resize",
            run(&["clusters", "resize", &id, "--gpus", "16"]),
        ),
        (
            "clusters resize",
            run(&["clusters", "resize", &id, "--gpus", "7"]),
        ),
        ("clusters ssh", run(&["clusters", "ssh", &e2e_id])),
        ("clusters ssh", run(&["clusters", "ssh", "no-such-cluster"])),
        ("clusters kubeconfig", run(&["clusters", "kubeconfig", &id])),
        (
            "clusters sweep",
            run(&["clusters", "sweep", "--older-than", "1h"]),
        ),
        (
            "clusters sweep",
            run(&["clusters", "sweep", "--older-than", "forever"]),
        ),
        (
            "plan",
            run(&[
                "plan",
                "-p",
                "together",
                "--gpu-model",
                "H100",
                "--gpus",
                "16",
                "--name",
                "p",
            ]),
        ),
        (
            "plan",
            run(&[
                "plan",
                "-p",
                "any",
                "--gpu-model",
                "H100",
                "--gpus",
                "16",
                "--name",
                "p",
                "--allow-no-delete",
            ]),
        ),
        (
            "plan",
            run(&[
                "plan",
                "-p",
                "runcrate",
                "--gpu-model",
                "H100",
                "--gpus",
                "16",
                "--name",
                "p",
            ]),
        ),
        ("ledger", run(&["ledger", "--all"])),
        ("ledger", run(&["ledger", "--colour"])),
        ("catalog", run(&["catalog", "-p", "all"])),
        ("catalog", run(&["catalog", "-p", "nowhere"])),
        (
            "offers",
            run(&["offers", "--gpu-model", "H100", "--gpus", "16"]),
        ),
        (
            "offers",
            run(&[
                "offers",
                "--gpu-model",
                "H100",
                "--gpus",
                "16",
                "--currency",
                "XYZ",
            ]),
        ),
        ("config show", run(&["config", "show"])),
        (
            "config show",
            gpucloud(&["--json", "config", "show"], &broken_env),
        ),
        ("schema", run(&["schema", "request"])),
        ("schema", run(&["schema", "output", "no", "such"])),
        ("completions", run(&["completions", "bash"])),
        ("demo", run(&["demo", "--time-scale", "-1"])),
        ("sim", run(&["sim", "--bind", "203.0.113.1", "--port", "1"])),
        ("clusters delete", run(&["clusters", "delete", &id])),
        (
            "clusters delete",
            run(&["clusters", "delete", "no-such-cluster"]),
        ),
    ];
    cases.push(("demo", gpucloud(&["--json", "demo"], &[])));
    cases.push(("sim", listening_sim()));
    let mut seen: BTreeSet<String> = BTreeSet::new();
    let mut outcomes: BTreeSet<(String, bool)> = BTreeSet::new();
    for (command, case) in &cases {
        let schema = printed_schema(command);
        check(command, &schema, case);
        seen.insert((*command).to_string());
        outcomes.insert(((*command).to_string(), case.code == 0));
    }
    // Every command of the help is covered, failing; each that has a JSON form, succeeding
    // too.
    let listed = commands_in_the_help();
    assert_eq!(seen, listed, "commands run here and commands in the help");
    for command in &listed {
        assert!(
            outcomes.contains(&(command.clone(), false)),
            "{command}: no failing run"
        );
        let refuses_json = ["clusters kubeconfig", "completions"].contains(&command.as_str());
        assert!(
            refuses_json || outcomes.contains(&(command.clone(), true)),
            "{command}: no succeeding run"
        );
    }
}

#[test]
fn the_schemas_in_docs_are_the_ones_the_binary_prints() {
    let docs = Path::new(env!("CARGO_MANIFEST_DIR")).join("../../docs/schemas/output");
    let update = std::env::var_os("UPDATE_GOLDEN").is_some_and(|v| v == "1");
    if update {
        std::fs::create_dir_all(&docs).unwrap_or_else(|e| panic!("{e}"));
    }
    let commands = commands_in_the_help();
    for command in &commands {
        let printed =
            serde_json::to_string_pretty(&printed_schema(command)).unwrap_or_default() + "\n";
        let path = docs.join(format!("{}.schema.json", command.replace(' ', "-")));
        if update {
            std::fs::write(&path, &printed).unwrap_or_else(|e| panic!("{e}"));
        }
        let committed = std::fs::read_to_string(&path).unwrap_or_default();
        assert!(
            committed == printed,
            "{} differs from `gpucloud schema output {command}` (UPDATE_GOLDEN=1 cargo test -p \
             gpucloud-cli rewrites it)",
            path.display()
        );
    }
    let files = std::fs::read_dir(&docs)
        .map(|d| d.count())
        .unwrap_or_default();
    assert_eq!(
        files,
        commands.len(),
        "one schema per command in {}",
        docs.display()
    );
}
