//! Why a check failed: one sentence for the report.

/// A failed check: what the bot did wrong (or what went wrong), in words for its author.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Failure {
    /// The explanation, e.g. `the move "A4<" is illegal: ...`.
    pub why: String,
}

impl Failure {
    /// A failure with this explanation.
    #[must_use]
    pub fn new(why: impl Into<String>) -> Failure {
        Failure { why: why.into() }
    }
}

impl std::fmt::Display for Failure {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.write_str(&self.why)
    }
}
