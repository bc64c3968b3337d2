//! The last stage: what the changes the walk found mean, and how they are told. The rules and
//! the effect each has ([`rules`], every id listed in [`rule_ids`]), the level table that
//! turns a direction and an effect into ERR/WARN/INFO ([`levels`]), the findings it produces
//! with their fingerprints ([`finding`]), the team's acknowledgements and overrides
//! ([`policy`]), and the report in each output format ([`report`], [`render`]).
//!
//! The judgement never reads a document: it imports the load stage only to read the
//! acknowledgement file, and nothing of the walk, which states facts and leaves their meaning
//! to this stage.

pub(crate) mod finding;
pub(crate) mod levels;
pub(crate) mod policy;
pub(crate) mod render;
pub(crate) mod report;
pub(crate) mod rule_ids;
pub(crate) mod rules;
