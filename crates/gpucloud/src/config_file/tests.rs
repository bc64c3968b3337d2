use super::*;

fn parse(text: &str) -> Result<ConfigFile, ConfigFileError> {
    ConfigFile::parse(Path::new("/home/me/.config/gpucloud/config.toml"), text)
}

const GOOD: &str = r#"
[e2e]
ssh_keys = ["101"]
security_group_id = 7

[runcrate]
ssh_keys = ["3fa85f64-5717-4562-b3fc-2c963f66afa6"]

[pricing]
stale_after_days = 90

[[price_book]]
provider = "together"
gpu_model = "H100"
region = "*"
per_gpu_hour = 2.99
currency = "USD"
source = "https://www.together.ai/pricing"
as_of = "2026-11-01"

[rates.INR]
USD = 0.012
as_of = "2026-12-01"
"#;

#[test]
fn a_file_is_read_with_each_section() {
    let file = parse(GOOD).unwrap();
    assert_eq!(
        file.defaults(ProviderKind::E2e).unwrap().ssh_keys,
        ["101".to_string()]
    );
    assert_eq!(
        file.defaults(ProviderKind::E2e).unwrap().security_group_id,
        Some(7)
    );
    assert_eq!(file.pricing.book.len(), 1);
    assert_eq!(file.pricing.book[0].amount, BookAmount::PerGpuHour(2.99));
    assert_eq!(file.pricing.book[0].region, None, "`*` is every region");
    assert_eq!(file.pricing.rates.len(), 1);
    assert_eq!(file.pricing.rates[0].from, "INR");
    assert_eq!(file.pricing.rates[0].to, "USD");
    let converted = file.pricing.convert(1000.0, "INR", "USD").unwrap();
    assert!((converted.amount - 12.0).abs() < 1e-9);
    let back = file.pricing.convert(12.0, "USD", "INR").unwrap();
    assert!((back.amount - 1000.0).abs() < 1e-6, "the inverse of a rate");
    assert!(file.pricing.convert(1.0, "EUR", "USD").is_err());
}

/// `(line, field)` of the error `text` gets, and its message.
fn error_of(text: &str) -> (Option<usize>, String, String) {
    let e = parse(text).unwrap_err();
    assert!(
        e.to_string()
            .starts_with("/home/me/.config/gpucloud/config.toml"),
        "{e}"
    );
    (e.line, e.field, e.message)
}

#[test]
fn a_credential_in_the_file_is_refused_with_its_line() {
    for (text, line) in [
        ("[together]\napi_key = \"tgp_v1_x\"\n", 2),
        ("\n\n[e2e]\nauth_token = \"x\"\n", 4),
        (
            "[runcrate]\nssh_keys = [\"a\"] # fine\nextra = { password = \"p\" }\n",
            3,
        ),
    ] {
        let (at, _, message) = error_of(text);
        assert_eq!(at, Some(line), "{text}");
        assert!(message.contains("stay in the environment"), "{message}");
    }
}

#[test]
fn a_price_book_entry_that_is_missing_malformed_or_in_no_currency_names_line_and_field() {
    let entry = |body: &str| format!("# prices\n\n[[price_book]]\n{body}\n");
    let full = "provider = \"together\"\ngpu_model = \"H100\"\nper_gpu_hour = 2.99\n\
                currency = \"USD\"\nsource = \"page\"\nas_of = \"2026-11-01\"";
    assert!(parse(&entry(full)).is_ok());
    for (body, field) in [
        (
            full.replace("currency = \"USD\"", "currency = \"dollars\""),
            "price_book[0].currency",
        ),
        (
            full.replace("currency = \"USD\"", "currency = \"XYZ\""),
            "price_book[0].currency",
        ),
        (
            full.replace("as_of = \"2026-11-01\"", "as_of = \"yesterday\""),
            "price_book[0].as_of",
        ),
        (
            full.replace("provider = \"together\"", "provider = \"aws\""),
            "price_book[0].provider",
        ),
        (
            full.replace("per_gpu_hour = 2.99", "per_gpu_hour = -1.0"),
            "price_book[0].per_gpu_hour",
        ),
        (
            full.replace("per_gpu_hour = 2.99", ""),
            "price_book[0].per_gpu_hour",
        ),
        (
            full.replace("source = \"page\"", "source = \"\""),
            "price_book[0].source",
        ),
    ] {
        let (line, at, message) = error_of(&entry(&body));
        assert_eq!(at, field, "{body}: {message}");
        if body.contains("XYZ") {
            assert!(
                message.contains("not an ISO 4217 currency code"),
                "{message}"
            );
        }
        assert_eq!(line, Some(3), "the entry's line: {body}");
    }
    // A field missing altogether: toml names it, at the entry.
    let (line, _, message) = error_of(&entry(&full.replace("currency = \"USD\"", "")));
    assert!(message.contains("currency"), "{message}");
    assert!(line.is_some());
}

#[test]
fn a_stale_entry_is_used_and_named() {
    let text = GOOD.replace("stale_after_days = 90", "stale_after_days = 1");
    let file = parse(&text).unwrap();
    assert_eq!(file.stale, ["/home/me/.config/gpucloud/config.toml:12"]);
    assert!(file.pricing.is_stale(file.pricing.book[0].as_of));
}

#[test]
fn an_unknown_section_or_key_is_an_error_with_its_line() {
    let (line, field, _) =
        error_of("[together]\nbase_url = \"http://127.0.0.1:1\"\n\n[aws]\nx = 1\n");
    assert_eq!((line, field.as_str()), (Some(4), "aws"));
    let (line, field, message) = error_of("[e2e]\nsecurity_group = 7\n");
    assert_eq!(field, "e2e");
    assert!(message.contains("security_group"), "{message}");
    assert_eq!(line, Some(1));
    let (_, field, _) = error_of("[rates.INR]\nUSD = 0.012\n");
    assert_eq!(field, "rates.INR.as_of");
}

#[test]
fn the_default_path_is_the_override_then_xdg_then_home() {
    let env = |vars: &'static [(&'static str, &'static str)]| {
        move |name: &str| {
            vars.iter()
                .find(|(k, _)| *k == name)
                .map(|(_, v)| std::ffi::OsString::from(v))
        }
    };
    assert_eq!(
        path_from(env(&[(CONFIG_ENV, "/etc/g.toml"), ("HOME", "/h")])),
        Some(PathBuf::from("/etc/g.toml"))
    );
    assert_eq!(
        path_from(env(&[("XDG_CONFIG_HOME", "/x"), ("HOME", "/h")])),
        Some(PathBuf::from("/x/gpucloud/config.toml"))
    );
    assert_eq!(
        path_from(env(&[("XDG_CONFIG_HOME", "rel"), ("HOME", "/h")])),
        Some(PathBuf::from("/h/.config/gpucloud/config.toml"))
    );
    assert_eq!(path_from(env(&[])), None);
}

#[test]
fn a_section_applies_where_the_request_sets_nothing() {
    let file = parse(GOOD).unwrap();
    let mut spec = ClusterSpec::new("n", crate::ClusterSize::Nodes(2));
    let applied = file.apply(ProviderKind::E2e, &mut spec);
    assert_eq!(spec.ssh_keys, ["101"]);
    assert_eq!(spec.options.e2e.as_ref().unwrap().security_group_id, 7);
    assert_eq!(applied.len(), 2, "{applied:?}");
    // The request's own keys win.
    let mut own = ClusterSpec::new("n", crate::ClusterSize::Nodes(2)).with_ssh_keys(["202"]);
    file.apply(ProviderKind::E2e, &mut own);
    assert_eq!(own.ssh_keys, ["202"]);
    // A provider without a section: nothing.
    let mut together = ClusterSpec::new("n", crate::ClusterSize::Gpus(8));
    assert!(file.apply(ProviderKind::Together, &mut together).is_empty());
}

#[test]
fn preferred_regions_apply_only_where_the_request_names_no_region_and_prefers_none() {
    let file =
        parse("[together]\npreferred_regions = [\"eu-north-1\", \"us-central-8\"]\n").unwrap();
    let gpus = || ClusterSpec::new("n", crate::ClusterSize::Gpus(8));
    let mut spec = gpus();
    let applied = file.apply(ProviderKind::Together, &mut spec);
    assert_eq!(spec.preferred_regions, ["eu-north-1", "us-central-8"]);
    assert_eq!(applied.len(), 1, "{applied:?}");
    assert!(
        applied[0].starts_with("preferred_regions from "),
        "{applied:?}"
    );
    let mut own = gpus().with_preferred_regions(["us-central-4".to_string()]);
    assert!(file.apply(ProviderKind::Together, &mut own).is_empty());
    assert_eq!(own.preferred_regions, ["us-central-4"]);
    let mut pinned = gpus().with_region("us-central-4");
    assert!(file.apply(ProviderKind::Together, &mut pinned).is_empty());
    assert!(pinned.preferred_regions.is_empty());
    // Not a list of words: an error naming the section.
    let (_, at, _) = error_of("[together]\npreferred_regions = \"eu-north-1\"\n");
    assert_eq!(at, "together");
}
