//! The GPU family of a provider's model word, so one name (`H100`) can reach every provider's
//! offerings of that GPU: Together says `H100_SXM`, Runcrate `H100 80GB SXM`, E2E `H100`.

/// The family a GPU model word belongs to: upper case, the first word (`H100`, `H200`,
/// `B200`, `A100`, `L40S`, …), with RTX cards joined to their number (`RTX_6000_PCI` →
/// `RTX6000`) and a leading `NVIDIA` ignored. An empty or separator-only word has the family
/// `""`.
///
/// ```
/// use gpucloud_sim::gpu_family;
/// assert_eq!(gpu_family("H100_SXM_INF"), "H100");
/// assert_eq!(gpu_family("H200 141GB SXM"), "H200");
/// assert_eq!(gpu_family("RTX_6000_PCI"), "RTX6000");
/// assert_eq!(gpu_family("nvidia l40s"), "L40S");
/// ```
pub fn gpu_family(model: &str) -> String {
    let upper = model.to_ascii_uppercase();
    let mut words = upper
        .split(|c: char| !c.is_ascii_alphanumeric())
        .filter(|w| !w.is_empty())
        .skip_while(|w| *w == "NVIDIA");
    match words.next() {
        // `RTX 6000`, `RTX_6000_PCI`, `RTX PRO 6000`: the number is what tells cards apart.
        Some("RTX") => {
            let mut family = String::from("RTX");
            for word in words {
                family.push_str(word);
                if word != "PRO" {
                    break;
                }
            }
            family
        }
        Some(word) => word.to_string(),
        None => String::new(),
    }
}

/// Whether `name` names a family and nothing more (`h100`, `RTX 6000`), as opposed to one
/// provider's model word (`H100_SXM`), which names only the offerings that use that word.
pub(crate) fn names_a_family(name: &str) -> bool {
    let family = gpu_family(name);
    let bare: String = name
        .to_ascii_uppercase()
        .chars()
        .filter(char::is_ascii_alphanumeric)
        .collect();
    !family.is_empty() && bare.trim_start_matches("NVIDIA") == family
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn every_catalog_word_has_its_family() {
        let cases = [
            ("H100_SXM", "H100"),
            ("H100_SXM_INF", "H100"),
            ("H200_SXM", "H200"),
            ("B200_SXM", "B200"),
            ("B300_SXM", "B300"),
            ("L40_PCIE", "L40"),
            ("RTX_6000_PCI", "RTX6000"),
            ("H100 80GB SXM", "H100"),
            ("H200 141GB SXM", "H200"),
            ("B200 180GB SXM", "B200"),
            ("A100 80GB PCIe", "A100"),
            ("H100", "H100"),
            ("L40S", "L40S"),
            ("RTX PRO 6000", "RTXPRO6000"),
            ("NVIDIA H200", "H200"),
            ("", ""),
            ("__", ""),
        ];
        for (word, family) in cases {
            assert_eq!(gpu_family(word), family, "{word:?}");
        }
    }

    #[test]
    fn a_family_name_is_told_from_a_model_word() {
        for family in ["H100", "h200", "RTX6000", "RTX 6000", "NVIDIA H100", "l40s"] {
            assert!(names_a_family(family), "{family}");
        }
        for word in ["H100_SXM", "H100 80GB SXM", "RTX_6000_PCI", "", "-"] {
            assert!(!names_a_family(word), "{word}");
        }
    }
}
