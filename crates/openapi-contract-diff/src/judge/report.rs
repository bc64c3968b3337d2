//! The result of a run: one [`Section`] per compared pair of documents.

use crate::judge::finding::Finding;
use crate::judge::levels::Level;
use crate::judge::render::{self, Format, Section};

/// What a diff found, judged and filtered by the policy, ready to print.
#[derive(Debug)]
pub struct Report {
    sections: Vec<Section>,
    /// The report covers a set of specs (`--all`): JSON findings name their spec.
    several: bool,
}

impl Report {
    pub(crate) fn new(sections: Vec<Section>, several: bool) -> Report {
        Report { sections, several }
    }

    /// One section per compared pair (one for a plain diff or a drift check).
    pub fn sections(&self) -> &[Section] {
        &self.sections
    }

    /// The unacknowledged findings of every section, most severe first within a section.
    pub fn findings(&self) -> impl Iterator<Item = &Finding> {
        self.sections.iter().flat_map(|s| &s.judged.findings)
    }

    /// Whether an unacknowledged finding reaches `fail_on` (the command's exit status 1).
    pub fn is_breaking(&self, fail_on: Level) -> bool {
        render::breaking(&self.sections, fail_on)
    }

    /// The report as the command prints it; `fail_on` is the level the verdict is given against.
    pub fn render(&self, format: Format, fail_on: Level) -> String {
        render::render(format, &self.sections, fail_on, self.several)
    }
}
