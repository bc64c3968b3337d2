//! Value parsers that bound what a flag may be, so that a bad value is a usage error (exit 2,
//! naming the flag and the rule) rather than a panic, a busy loop or a request to the wrong
//! path.

use std::time::Duration;

const SECOND: Duration = Duration::from_secs(1);
const HOUR: Duration = Duration::from_secs(60 * 60);
const DAY: Duration = Duration::from_secs(24 * 60 * 60);

/// A duration in `[min, max]`, written `90s`, `5m`, `2h` (humantime).
fn duration_between(
    raw: &str,
    min: Duration,
    max: Duration,
    range: &str,
) -> Result<Duration, String> {
    let duration = humantime::parse_duration(raw)
        .map_err(|e| format!("not a duration like 90s, 5m or 2h ({e})"))?;
    if duration < min || duration > max {
        return Err(format!("must be between {range}"));
    }
    Ok(duration)
}

/// A poll interval (`--interval`, `--max-interval`): at least 1 s, so a wait never busy-polls
/// the provider; at most 1 day, so doubling it can never overflow.
pub fn poll_interval(raw: &str) -> Result<Duration, String> {
    duration_between(raw, SECOND, DAY, "1s and 1 day (24h)")
}

/// How long to wait for a cluster (`--timeout`): 1 s to 7 days.
pub fn max_wait(raw: &str) -> Result<Duration, String> {
    duration_between(raw, SECOND, 7 * DAY, "1s and 7 days (168h)")
}

/// A price per hour (`--max-price-per-hour`): a finite number, not negative.
pub fn price(raw: &str) -> Result<f64, String> {
    match raw.trim().parse::<f64>() {
        Ok(x) if x.is_finite() && x >= 0.0 => Ok(x),
        _ => Err("must be a number of at least 0".into()),
    }
}

/// A currency (`--currency`): an ISO 4217 code.
pub fn currency(raw: &str) -> Result<String, String> {
    gpucloud::catalog::pricing::check_currency(raw).map(|()| raw.to_string())
}

/// An age (`--older-than`): 0 s to 365 days.
pub fn age(raw: &str) -> Result<Duration, String> {
    duration_between(raw, Duration::ZERO, 365 * DAY, "0s and 365 days")
}

/// How often a reaper sweeps (`clusters sweep --watch`): 1 s to 1 day.
pub fn watch_interval(raw: &str) -> Result<Duration, String> {
    duration_between(raw, SECOND, DAY, "1s and 1 day (24h)")
}

/// How long a cluster may live (`--ttl`): the facade's bounds, 1 s to 366 days.
pub fn ttl(raw: &str) -> Result<Duration, String> {
    duration_between(raw, gpucloud::MIN_TTL, gpucloud::MAX_TTL, "1s and 366 days")
}

/// The timeout of one HTTP request (`--request-timeout`): 1 s to 1 hour.
pub fn request_timeout(raw: &str) -> Result<Duration, String> {
    duration_between(raw, SECOND, HOUR, "1s and 1 hour")
}

/// How long a create on Together or E2E looks its name up after an ambiguous failure before
/// sending again (`--settle-window`): 0 s (a single look-up) to 1 hour.
pub fn settle_window(raw: &str) -> Result<Duration, String> {
    duration_between(raw, Duration::ZERO, HOUR, "0s and 1 hour")
}

/// The most attempts per request, the first included (`--max-attempts`).
pub const MAX_ATTEMPTS: u32 = 10;

/// Attempts per request (`--max-attempts`): 1 (never retry) to [`MAX_ATTEMPTS`].
pub fn max_attempts(raw: &str) -> Result<u32, String> {
    match raw.trim().parse::<u32>() {
        Ok(n) if (1..=MAX_ATTEMPTS).contains(&n) => Ok(n),
        _ => Err(format!("must be a whole number from 1 to {MAX_ATTEMPTS}")),
    }
}

/// A cluster id as a provider issues it, by the facade's one rule for ids from users and from
/// answers ([`gpucloud::ClusterId::problem`]): not empty, at most 256 bytes, and nothing that
/// would change which URL it is sent to or what a terminal shows. Checked before any request.
pub fn cluster_id(raw: &str) -> Result<String, String> {
    match gpucloud::ClusterId::new(raw).problem() {
        Some(rule) => Err(rule.to_string()),
        None => Ok(raw.to_string()),
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn durations_are_bounded() {
        assert_eq!(poll_interval("5s"), Ok(Duration::from_secs(5)));
        assert_eq!(poll_interval("24h"), Ok(DAY));
        for bad in ["0s", "999ms", "25h", "18446744073709551615s", "soon"] {
            assert!(poll_interval(bad).is_err(), "{bad}");
        }
        assert_eq!(max_wait("7d"), Ok(7 * DAY));
        assert!(max_wait("8d").is_err());
        assert!(max_wait("300ms").is_err());
        assert_eq!(request_timeout("1h"), Ok(HOUR));
        assert!(request_timeout("0s").is_err());
        assert_eq!(settle_window("0s"), Ok(Duration::ZERO));
        assert_eq!(settle_window("90s"), Ok(Duration::from_secs(90)));
        assert_eq!(settle_window("1h"), Ok(HOUR));
        for bad in ["61m", "18446744073709551615s", "-1s", "later"] {
            assert!(settle_window(bad).is_err(), "{bad}");
        }
        assert_eq!(max_attempts("1"), Ok(1));
        assert_eq!(max_attempts("10"), Ok(10));
        for bad in ["0", "11", "-1", "4294967296", "2.5", "", "many"] {
            assert!(max_attempts(bad).is_err(), "{bad:?}");
        }
        // The largest interval doubles without overflow.
        assert!(DAY.checked_mul(2).is_some());
    }

    #[test]
    fn ids_are_checked() {
        assert_eq!(cluster_id("3f0c8a52-1b2c").as_deref(), Ok("3f0c8a52-1b2c"));
        assert_eq!(
            cluster_id("a".repeat(256).as_str()).map(|s| s.len()),
            Ok(256)
        );
        let long = "a".repeat(257);
        for (bad, rule) in [
            ("", "must not be empty"),
            (long.as_str(), "at most 256 bytes"),
            ("a\u{1b}[2J", "control characters"),
            ("a\nb", "control characters"),
            ("a/b", "`/`"),
            ("..", "`..`"),
            ("a?b", "`?`"),
            ("a#b", "`#`"),
            ("a\\b", "`\\`"),
        ] {
            let error = cluster_id(bad).unwrap_err();
            assert!(error.contains(rule), "{bad:?}: {error}");
        }
    }
}
