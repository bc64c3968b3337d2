//! The simulator's price list, as a gpucloud price book: what its Together catalog costs
//! (Together's API states no price, so a placement with a ceiling needs one), and the rate
//! that converts its E2E plans' rupees into dollars. The prices are the simulator's own,
//! illustrative figures for its illustrative catalog, labelled so wherever they are shown:
//! they are not Together's or any provider's.

use std::fmt::Write as _;

use chrono::NaiveDate;

/// The source every entry names, shown beside each price it gives.
pub const SOURCE: &str = "gpucloud simulator (illustrative prices, not a provider's)";

/// Dollars per GPU-hour of each GPU type the simulated Together regions offer: (on demand,
/// reserved).
const TOGETHER_PER_GPU_HOUR: &[(&str, f64, f64)] = &[
    ("H100_SXM", 2.50, 2.20),
    ("H100_SXM_INF", 2.30, 2.00),
    ("H200_SXM", 3.20, 2.80),
    ("B200_SXM", 4.90, 4.30),
    ("B300_SXM", 5.90, 5.20),
    ("L40_PCIE", 1.10, 0.95),
    ("RTX_6000_PCI", 0.90, 0.80),
];

/// US dollars per Indian rupee, for the E2E plans (priced in INR).
const USD_PER_INR: f64 = 0.012;

/// The price list as the configuration file's `[[price_book]]` and `[rates]` sections, dated
/// `as_of`: `gpucloud --price-book FILE` reads it as it is.
pub fn price_book_toml(as_of: NaiveDate) -> String {
    let mut text = format!(
        "# The gpucloud simulator's price list: illustrative prices for its illustrative\n\
         # catalog, not Together's. Use it only with the simulator.\n\n\
         [rates.INR]                  # the simulated E2E plans are priced in INR\n\
         USD = {USD_PER_INR}\n\
         as_of = \"{as_of}\"\n"
    );
    for (gpu_model, on_demand, reserved) in TOGETHER_PER_GPU_HOUR {
        for (billing, amount) in [("on_demand", on_demand), ("reserved", reserved)] {
            // Writing to a String cannot fail.
            let _ = write!(
                text,
                "\n[[price_book]]\n\
                 provider = \"together\"\n\
                 gpu_model = \"{gpu_model}\"\n\
                 region = \"*\"\n\
                 billing = \"{billing}\"\n\
                 per_gpu_hour = {amount:.2}\n\
                 currency = \"USD\"\n\
                 source = \"{SOURCE}\"\n\
                 as_of = \"{as_of}\"\n"
            );
        }
    }
    text
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn every_gpu_type_of_the_simulated_together_catalog_has_a_price() {
        let priced: Vec<&str> = TOGETHER_PER_GPU_HOUR.iter().map(|(g, ..)| *g).collect();
        for region in crate::providers::together::catalog::REGIONS {
            for gpu in region.gpu_types {
                assert!(
                    priced.contains(gpu),
                    "{gpu} in {} has no price",
                    region.name
                );
            }
        }
    }

    #[test]
    fn the_price_book_names_its_source_and_day_on_every_entry() {
        let day = NaiveDate::from_ymd_opt(2026, 12, 6).unwrap_or_default();
        let text = price_book_toml(day);
        let entries = text.matches("[[price_book]]").count();
        assert_eq!(entries, TOGETHER_PER_GPU_HOUR.len() * 2);
        assert_eq!(text.matches(SOURCE).count(), entries);
        assert_eq!(text.matches("as_of = \"2026-12-06\"").count(), entries + 1);
        assert!(text.contains("gpu_model = \"H100_SXM\"\nregion = \"*\"\nbilling = \"on_demand\"\nper_gpu_hour = 2.50\n"));
        assert!(text.contains("[rates.INR]"));
    }
}
