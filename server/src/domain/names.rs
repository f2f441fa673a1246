//! Names users choose: a user's and a bot's. A name that comes in (a request,
//! a command line, JSON) is made only by `TryFrom<String>`, which checks it
//! with [`crate::names::validate_name`]. A name read back from the database was
//! checked when it was written and is taken as stored: a row written under
//! older rules still shows (escaped, like every name) instead of failing the
//! whole page it is on.

use std::fmt;

/// A name that breaks the rules of [`crate::names::validate_name`].
#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
#[error("{0}")]
pub struct InvalidName(pub String);

macro_rules! name_type {
    ($(#[$meta:meta])* $name:ident, $what:literal) => {
        $(#[$meta])*
        #[derive(Clone, PartialEq, Eq, Hash, PartialOrd, Ord, serde::Serialize, serde::Deserialize, utoipa::ToSchema)]
        #[serde(try_from = "String", into = "String")]
        #[schema(value_type = String)]
        pub struct $name(String);

        impl $name {
            /// The name as written.
            #[must_use]
            pub fn as_str(&self) -> &str {
                &self.0
            }
        }

        impl TryFrom<String> for $name {
            type Error = InvalidName;

            fn try_from(name: String) -> Result<Self, Self::Error> {
                crate::names::validate_name(&name, $what).map_err(InvalidName)?;
                Ok($name(name))
            }
        }

        impl TryFrom<&str> for $name {
            type Error = InvalidName;

            fn try_from(name: &str) -> Result<Self, Self::Error> {
                $name::try_from(name.to_owned())
            }
        }

        impl From<$name> for String {
            fn from(name: $name) -> String {
                name.0
            }
        }

        impl std::ops::Deref for $name {
            type Target = str;

            fn deref(&self) -> &str {
                &self.0
            }
        }

        impl PartialEq<str> for $name {
            fn eq(&self, other: &str) -> bool {
                self.0 == other
            }
        }

        impl PartialEq<&str> for $name {
            fn eq(&self, other: &&str) -> bool {
                self.0 == *other
            }
        }

        impl AsRef<str> for $name {
            fn as_ref(&self) -> &str {
                &self.0
            }
        }

        /// Like the text's: `"alice"`, so that messages quoting a name read as before.
        impl fmt::Debug for $name {
            fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
                fmt::Debug::fmt(&self.0, f)
            }
        }

        impl fmt::Display for $name {
            fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
                f.write_str(&self.0)
            }
        }

        impl rusqlite::types::ToSql for $name {
            fn to_sql(&self) -> rusqlite::Result<rusqlite::types::ToSqlOutput<'_>> {
                Ok(rusqlite::types::ToSqlOutput::from(self.0.as_str()))
            }
        }

        impl rusqlite::types::FromSql for $name {
            fn column_result(value: rusqlite::types::ValueRef<'_>) -> rusqlite::types::FromSqlResult<Self> {
                Ok($name(value.as_str()?.to_owned()))
            }
        }
    };
}

name_type! {
    /// A bot's name: 1 to 32 ASCII letters, digits, `_` and `-`, starting with a letter or digit.
    BotName, "bot name"
}

name_type! {
    /// A user's name: 1 to 32 ASCII letters, digits, `_` and `-`, starting with a letter or digit.
    UserName, "user name"
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn names_are_checked_when_made() {
        assert_eq!(BotName::try_from("Bot-2".to_owned()).map(String::from), Ok("Bot-2".to_owned()));
        let e = BotName::try_from("<script>").expect_err("markup");
        assert!(e.to_string().starts_with("bot name \"<script>\""), "{e}");
        let e = UserName::try_from("").expect_err("empty");
        assert_eq!(e.to_string(), "user name is empty");
        assert!(serde_json::from_str::<UserName>("\"a b\"").is_err(), "JSON goes through the check");
        assert_eq!(format!("{:?}", BotName::try_from("x").expect("valid")), "\"x\"");
        assert_eq!(
            serde_json::to_string(&UserName::try_from("alice").expect("valid")).expect("json"),
            "\"alice\""
        );
    }

    #[test]
    fn a_stored_name_is_read_as_it_was_written() {
        let conn = rusqlite::Connection::open_in_memory().expect("db");
        let name = BotName::try_from("greedy").expect("valid");
        let back: BotName = conn.query_row("SELECT ?1", [&name], |r| r.get(0)).expect("row");
        assert_eq!(back, name);
        let old: UserName = conn.query_row("SELECT 'old name'", [], |r| r.get(0)).expect("row");
        assert_eq!(old, "old name", "a row written under other rules still reads");
        assert!(conn.query_row("SELECT 7", [], |r| r.get::<_, UserName>(0)).is_err(), "a number is no name");
    }
}
