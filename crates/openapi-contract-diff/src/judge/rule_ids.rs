//! Every id the diff can emit, listed with its direction and effect (each fixed rule, and each
//! schema rule at each place a schema travels): what `--list-rules` prints and what the
//! README's tables are checked against.

use crate::judge::levels::{Direction, Effect};
use crate::judge::rules::{Bound, BoundChange, Keyword, Rule, SchemaRule, Subject, UNCLASSIFIED};

/// Every id the diff can emit, with its direction and effect (for `--list-rules` and tests).
pub fn catalogue() -> Vec<(String, Direction, Effect)> {
    let mut out: Vec<(String, Direction, Effect)> = Rule::ALL
        .iter()
        .map(|r| (r.id().to_string(), r.direction(), r.effect()))
        .collect();
    let mut schema_rules: Vec<SchemaRule> = Keyword::ALL
        .iter()
        .map(|k| SchemaRule::Keyword(*k))
        .collect();
    for b in Bound::ALL {
        for c in [
            BoundChange::Increased,
            BoundChange::Decreased,
            BoundChange::Set,
            BoundChange::Removed,
        ] {
            schema_rules.push(SchemaRule::Bound(b, c));
        }
    }
    let places = [
        (Direction::Request, Subject::Body),
        (Direction::Request, Subject::Property),
        (Direction::Request, Subject::Parameter),
        (Direction::Response, Subject::Body),
        (Direction::Response, Subject::Property),
        (Direction::Response, Subject::Header),
    ];
    for (direction, subject) in places {
        for rule in &schema_rules {
            out.push((rule.id(direction, subject), direction, rule.effect()));
        }
    }
    out.push((UNCLASSIFIED.to_string(), Direction::None, Effect::Unknown));
    // Rules that share an oasdiff id (a path and an operation added; a format and a type
    // specialised) are listed once: they share direction and effect too (tested).
    let mut seen = std::collections::HashSet::new();
    out.retain(|(id, _, _)| seen.insert(id.clone()));
    out
}

#[cfg(test)]
mod tests {
    use super::*;
    use std::collections::BTreeSet;

    #[test]
    fn shared_ids_share_direction_and_effect() {
        let mut by_id = std::collections::HashMap::new();
        for rule in Rule::ALL {
            let before = by_id.insert(rule.id(), (rule.direction(), rule.effect()));
            assert!(before.is_none_or(|b| b == (rule.direction(), rule.effect())));
        }
        let mut by_slug = std::collections::HashMap::new();
        for k in Keyword::ALL {
            let before = by_slug.insert(k.slug(), k.effect());
            assert!(before.is_none_or(|b| b == k.effect()), "{}", k.slug());
        }
    }

    #[test]
    fn ids_are_unique_and_kebab_case() {
        let all = catalogue();
        let unique: BTreeSet<&str> = all.iter().map(|(id, _, _)| id.as_str()).collect();
        assert_eq!(unique.len(), all.len());
        assert!(
            all.iter()
                .all(|(id, _, _)| id.chars().all(|c| c.is_ascii_lowercase() || c == '-'))
        );
    }

    #[test]
    fn bound_effects() {
        let max_down = SchemaRule::Bound(Bound::Max, BoundChange::Decreased);
        assert_eq!(max_down.effect(), Effect::Narrow);
        assert_eq!(
            max_down.id(Direction::Request, Subject::Property),
            "request-property-max-decreased"
        );
        let min_down = SchemaRule::Bound(Bound::MinLength, BoundChange::Decreased);
        assert_eq!(min_down.effect(), Effect::Widen);
    }

    /// The README's oasdiff table names only ids this crate emits, and its summary counts
    /// its rows.
    #[test]
    fn readme_catalogue_names_only_our_ids() {
        let ours: BTreeSet<String> = catalogue().into_iter().map(|(id, _, _)| id).collect();
        let readme = include_str!("../../README.md");
        let start = readme.find("## oasdiff's rule catalogue").unwrap();
        let section = &readme[start..];
        let (mut same, mut mapped, mut judged) = (0, 0, 0);
        for row in section.lines().filter(|l| l.starts_with("| `")) {
            let cells: Vec<&str> = row.trim_matches('|').split('|').map(str::trim).collect();
            let theirs = cells[0].trim_matches('`');
            match cells[2] {
                "same" => {
                    same += 1;
                    assert!(ours.contains(theirs), "{theirs} is not one of ours");
                }
                "judged differently" => {
                    judged += 1;
                    assert!(!cells[4].is_empty(), "{theirs}: no reason given");
                }
                mapping => {
                    mapped += 1;
                    for id in mapping.split(", ") {
                        let id = id.trim_matches('`');
                        assert!(ours.contains(id), "{theirs} maps to {id}, not one of ours");
                    }
                }
            }
        }
        let summary = format!(
            "**{same} same id**, **{mapped} mapped** to ours, **{judged} judged differently** (reason given), **0 not covered**"
        );
        assert!(section.contains(&summary), "summary should read: {summary}");
        assert_eq!(same + mapped + judged, 509);
    }
}
