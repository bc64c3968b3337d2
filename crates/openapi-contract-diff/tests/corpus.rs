//! The corpus: each file in `tests/corpus/cases/` is a BASE/REVISION pair
//! with the findings it must produce (`LEVEL rule-id`, optionally `@ /json/pointer`), in the
//! spirit of oasdiff's `data/checker/<check>_base.yaml`/`_revision.yaml` pairs. The binary is run
//! as users run it (`--format json`), so ids, levels, locations and exit codes are all checked.

// Test helpers outside `#[test]` functions may panic too (clippy.toml allows it only inside).
#![allow(clippy::unwrap_used, clippy::expect_used)]

mod support;

use serde_json::Value;
use support::{Run, cases_dir, run_diff};

/// Writes the case's two documents and diffs them.
fn run_case(name: &str) -> (Value, Run) {
    let path = cases_dir().join(format!("{name}.yaml"));
    let text = std::fs::read_to_string(&path).unwrap();
    // Strict booleans, as the tool reads specs: `required: [a, n]` keeps `n` a string.
    let mut options = serde_saphyr::Options::default();
    options.strict_booleans = true;
    let case: Value = serde_saphyr::from_str_with_options(&text, options).unwrap();
    let dir = tempfile::tempdir().unwrap();
    let mut args = Vec::new();
    for side in ["base", "revision"] {
        let mut doc = case[side].clone();
        let map = doc.as_object_mut().unwrap();
        map.entry("openapi").or_insert_with(|| "3.0.3".into());
        map.entry("info")
            .or_insert_with(|| serde_json::json!({"title": name, "version": "1"}));
        let file = dir.path().join(format!("{side}.json"));
        std::fs::write(&file, serde_json::to_string_pretty(&doc).unwrap()).unwrap();
        args.push(file.display().to_string());
    }
    // Run in the scratch directory, which has no `specs/contract-ack.yaml`: no policy applies.
    // `args: [--today, 2026-06-01]`: extra command-line arguments (the deprecation policy).
    for extra in case["args"].as_array().into_iter().flatten() {
        args.push(extra.as_str().unwrap().to_string());
    }
    args.extend(["--format".to_string(), "json".to_string()]);
    let argv: Vec<&str> = args.iter().map(String::as_str).collect();
    let run = run_diff(dir.path(), &argv);
    (case, run)
}

/// Asserts the findings of a case match its `expect` list exactly (as a multiset).
fn check(name: &str) {
    let (case, run) = run_case(name);
    let report: Value = serde_json::from_str(&run.stdout)
        .unwrap_or_else(|e| panic!("{name}: not JSON ({e}): {}\n{}", run.stdout, run.stderr));
    let mut actual: Vec<(String, String, String)> = report["findings"]
        .as_array()
        .unwrap()
        .iter()
        .map(|f| {
            let s = |k: &str| f[k].as_str().unwrap().to_string();
            (s("level"), s("id"), s("location"))
        })
        .collect();
    let all_actual = actual.clone();
    let mut missing = Vec::new();
    let expected: Vec<String> = case["expect"]
        .as_array()
        .unwrap()
        .iter()
        .map(|e| e.as_str().unwrap().to_string())
        .collect();
    for line in &expected {
        let (head, location) = match line.split_once(" @ ") {
            Some((h, l)) => (h, Some(l)),
            None => (line.as_str(), None),
        };
        let (level, id) = head.split_once(' ').unwrap();
        let found = actual.iter().position(|(l, i, loc)| {
            l == level && i == id && location.is_none_or(|want| want == loc)
        });
        match found {
            Some(i) => {
                actual.remove(i);
            }
            None => missing.push(line.clone()),
        }
    }
    assert!(
        missing.is_empty() && actual.is_empty(),
        "{name}: missing {missing:?}, unexpected {actual:?}\nall findings: {all_actual:#?}"
    );
    let breaking = expected.iter().any(|e| e.starts_with("ERR "));
    assert_eq!(report["breaking"], breaking, "{name}");
    assert_eq!(
        run.code,
        i32::from(breaking),
        "{name}: exit status; stderr: {}",
        run.stderr
    );
    // `client_impact: [breaks rule-id, unaffected rule-id]`: what gpucloud's generated client
    // makes of the findings with those ids (each listed pair must be found).
    for line in case["client_impact"].as_array().into_iter().flatten() {
        let (impact, id) = line.as_str().unwrap().split_once(' ').unwrap();
        let found = report["findings"]
            .as_array()
            .unwrap()
            .iter()
            .any(|f| f["id"] == id && f["client_impact"] == impact);
        assert!(found, "{name}: no {id} with client_impact {impact}");
    }
    for f in report["findings"].as_array().unwrap() {
        let fp = f["fingerprint"].as_str().unwrap();
        assert!(
            fp.len() == 12 && fp.chars().all(|c| c.is_ascii_hexdigit()),
            "{fp}"
        );
        assert!(["request", "response", "none"].contains(&f["direction"].as_str().unwrap()));
    }
}

macro_rules! corpus {
    ($($name:ident),* $(,)?) => {
        $(#[test] fn $name() { check(&stringify!($name).replace('_', "-")); })*
        /// Every case file is listed above, so none is silently skipped.
        const CASES: &[&str] = &[$(stringify!($name)),*];
    };
}

corpus! {
    noop, component_renamed, component_inlined, allof_wrapper, path_parameter_renamed,
    header_name_case, path_removed, operation_removed, path_and_operation_added,
    operation_lifecycle, parameter_added, parameter_removed, parameter_requiredness,
    parameter_type, parameter_enum, parameter_constraints, parameter_exclusive_bound,
    parameter_default, request_body_existence, request_media_type, response_status,
    response_status_swap, response_media_type, response_headers, request_property_existence,
    response_property_existence, allof_properties, read_write_only, shared_enum_per_use,
    inline_response_enum_added, extensible_enum_marker, enum_value_removed, became_enum,
    nullable, type_changes, body_type_changed, format, numeric_bounds, length_and_items,
    pattern_multiple_unique, array_items, additional_properties, recursive_schema,
    one_of_branches, one_of_inline_ref, one_of_branch_changed, wrapped_in_one_of,
    any_of_kind_and_constraint, discriminator, security_scheme_swapped,
    security_scheme_renamed, security_alternative_added, security_scopes,
    became_authenticated, openapi_3_1_equivalent, openapi_3_1_nullable_ref,
    property_deprecation, request_null_dropped_3_1, client_impact, annotation_named_properties,
    pattern_matches_everything, judgements_success_status, all_of_members, judgements_values,
    media_type_schema, required_parameter_default, unclassified_changes,
    openapi_3_1_request_keywords, openapi_3_1_response_keywords, webhooks, deprecation_sunset,
    stability_level, deprecation_policy_more, lifecycle_and_flows, security_alternatives_same_scheme,
    servers, parameter_serialization, security_requirement_schemes,
    discriminator_renamed, openapi_3_1_subschemas,
    lifecycle_unreadable, exclusive_bounds_3_0, exclusive_bounds_3_1,
}

#[test]
fn every_case_file_is_listed() {
    let mut files: Vec<String> = std::fs::read_dir(cases_dir())
        .unwrap()
        .map(|e| {
            let name = e.unwrap().file_name().to_string_lossy().to_string();
            name.trim_end_matches(".yaml").replace('-', "_")
        })
        .collect();
    files.sort();
    let mut listed: Vec<String> = CASES.iter().map(|s| s.to_string()).collect();
    listed.sort();
    assert_eq!(files, listed);
    assert!(files.len() >= 40);
}
