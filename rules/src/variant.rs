use std::fmt;
use std::str::FromStr;

/// Which game is played.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash)]
pub enum Variant {
    /// Bao la Kiswahili: namua stage with 22 seeds in each hand, nyumba, takasia.
    Kiswahili,
    /// Bao la Kujifunza: 2 seeds in every pit, mtaji from the first move,
    /// no nyumba and no takasia.
    Kujifunza,
}

impl Variant {
    /// The name used in position notation and on the command line.
    #[must_use]
    pub const fn name(self) -> &'static str {
        match self {
            Variant::Kiswahili => "kiswahili",
            Variant::Kujifunza => "kujifunza",
        }
    }
}

impl fmt::Display for Variant {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(self.name())
    }
}

/// The error of parsing a variant name.
#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
#[error("unknown variant {0:?}: expected \"kiswahili\" or \"kujifunza\"")]
pub struct ParseVariantError(pub String);

impl FromStr for Variant {
    type Err = ParseVariantError;
    fn from_str(s: &str) -> Result<Self, Self::Err> {
        match s {
            "kiswahili" => Ok(Variant::Kiswahili),
            "kujifunza" => Ok(Variant::Kujifunza),
            _ => Err(ParseVariantError(s.to_owned())),
        }
    }
}
