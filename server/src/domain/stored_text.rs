//! The one conversion between a small enum and its text, used by every enum of
//! the domain: the same text in the database (`ToSql`/`FromSql`), in JSON
//! (serde) and in the OpenAPI document (utoipa).

use std::fmt;

/// A text that names none of an enum's values (read from the database, a
/// query string or the configuration).
#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
#[error("unknown {what} {text:?}: expected {}", Expected(.expected))]
pub struct UnknownText {
    /// What the text should have named (`game state`, `purpose`, …).
    pub what: &'static str,
    /// The text found.
    pub text: String,
    /// The texts accepted.
    pub expected: Vec<&'static str>,
}

/// `a`, `a or b`, `a, b or c`.
struct Expected<'a>(&'a [&'static str]);

impl fmt::Display for Expected<'_> {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        for (i, t) in self.0.iter().enumerate() {
            if i > 0 {
                f.write_str(if i + 1 == self.0.len() { " or " } else { ", " })?;
            }
            f.write_str(t)?;
        }
        Ok(())
    }
}

/// Defines a `Copy` enum whose values are stored as the given texts: `as_str`,
/// `ALL`, `Display`, `FromStr` (an unknown text is an [`UnknownText`]),
/// serde, utoipa, and rusqlite's `ToSql`/`FromSql` (an unknown text in the
/// database is a conversion error naming it).
macro_rules! stored_text {
    (
        $(#[$meta:meta])*
        pub enum $name:ident ($what:tt) {
            $( $(#[$vmeta:meta])* $variant:ident = $text:tt, )+
        }
    ) => {
        $(#[$meta])*
        #[derive(
            Debug, Clone, Copy, PartialEq, Eq, Hash, PartialOrd, Ord,
            serde::Serialize, serde::Deserialize, utoipa::ToSchema,
        )]
        pub enum $name {
            $( $(#[$vmeta])* #[serde(rename = $text)] $variant, )+
        }

        impl $name {
            /// Every value, in the order of the lifecycle.
            pub const ALL: &'static [$name] = &[$($name::$variant),+];

            /// The text stored in the database and shown in JSON.
            #[must_use]
            pub const fn as_str(self) -> &'static str {
                match self {
                    $( $name::$variant => $text, )+
                }
            }
        }

        impl std::fmt::Display for $name {
            fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
                f.write_str(self.as_str())
            }
        }

        impl std::str::FromStr for $name {
            type Err = $crate::domain::UnknownText;

            fn from_str(text: &str) -> Result<Self, Self::Err> {
                match text {
                    $( $text => Ok($name::$variant), )+
                    _ => Err($crate::domain::UnknownText {
                        what: $what,
                        text: text.to_owned(),
                        expected: $name::ALL.iter().map(|v| v.as_str()).collect(),
                    }),
                }
            }
        }

        impl rusqlite::types::ToSql for $name {
            fn to_sql(&self) -> rusqlite::Result<rusqlite::types::ToSqlOutput<'_>> {
                Ok(rusqlite::types::ToSqlOutput::from(self.as_str()))
            }
        }

        impl rusqlite::types::FromSql for $name {
            fn column_result(value: rusqlite::types::ValueRef<'_>) -> rusqlite::types::FromSqlResult<Self> {
                value.as_str()?.parse().map_err(|e| rusqlite::types::FromSqlError::Other(Box::new(e)))
            }
        }
    };
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn the_expected_texts_read_as_a_sentence() {
        let e = |expected: Vec<&'static str>| {
            UnknownText { what: "thing", text: "x".into(), expected }.to_string()
        };
        assert_eq!(e(vec!["a"]), "unknown thing \"x\": expected a");
        assert_eq!(e(vec!["a", "b"]), "unknown thing \"x\": expected a or b");
        assert_eq!(e(vec!["a", "b", "c"]), "unknown thing \"x\": expected a, b or c");
    }
}
