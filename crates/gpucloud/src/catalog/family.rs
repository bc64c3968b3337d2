//! GPU model words normalized to a family, so that `H100` finds Together's `H100_SXM`,
//! Runcrate's `H100 80GB SXM` and E2E's `H100` alike.

/// The families gpucloud knows, longest first where one is a prefix of another.
const FAMILIES: &[&str] = &[
    "GB200", "GB300", "H100", "H200", "B200", "B300", "A100", "A10G", "A10", "L40S", "L40", "L4",
    "RTX6000", "A6000", "MI300X", "MI325X", "V100", "T4",
];

/// The family of a GPU model word: upper-cased, separators (`_`, `-`, space) removed, the
/// first known family it starts with (`H100_SXM` → `H100`, `H100 80GB SXM` → `H100`,
/// `RTX_6000_PCI` → `RTX6000`). `None` for a word of no known family.
pub fn gpu_family(model: &str) -> Option<&'static str> {
    let compact: String = model
        .chars()
        .filter(|c| !matches!(c, '_' | '-' | ' '))
        .flat_map(char::to_uppercase)
        .collect();
    // "NVIDIA H100" and the like.
    let compact = compact.strip_prefix("NVIDIA").unwrap_or(&compact);
    FAMILIES.iter().copied().find(|f| compact.starts_with(f))
}

/// Whether an offering's GPU word satisfies what a request asked for: the same word (any
/// case), or the request names a family and the offering is of it.
pub fn matches(asked: &str, offered: &str) -> bool {
    if asked.eq_ignore_ascii_case(offered) {
        return true;
    }
    let asked_is_family = gpu_family(asked).is_some_and(|f| f.eq_ignore_ascii_case(asked.trim()));
    asked_is_family && gpu_family(asked) == gpu_family(offered)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn provider_words_fall_into_families() {
        for (word, family) in [
            ("H100_SXM", Some("H100")),
            ("H100 80GB SXM", Some("H100")),
            ("h100", Some("H100")),
            ("H200_SXM", Some("H200")),
            ("B200 180GB SXM", Some("B200")),
            ("GB200", Some("GB200")),
            ("L40S", Some("L40S")),
            ("L40_PCIE", Some("L40")),
            ("RTX_6000_PCI", Some("RTX6000")),
            ("NVIDIA A100 80GB PCIe", Some("A100")),
            ("Quantum Q1", None),
            ("", None),
        ] {
            assert_eq!(gpu_family(word), family, "{word}");
        }
    }

    #[test]
    fn a_family_matches_its_members_and_a_word_only_itself() {
        assert!(matches("H100", "H100_SXM"));
        assert!(matches("h100", "H100 80GB SXM"));
        assert!(matches("H100_SXM", "h100_sxm"));
        assert!(
            !matches("H100_SXM", "H100_SXM_INF"),
            "a word is not a family"
        );
        assert!(!matches("H100", "H200_SXM"));
        assert!(!matches("B200", "GB200"));
    }
}
