//! Names users choose: a user's and a bot's, valid by construction
//! (`TryFrom<String>` checks them with [`crate::names::validate_name`]).

use std::fmt;

/// A name that breaks the rules of [`crate::names::validate_name`].
#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
#[error("{0}")]
pub struct InvalidName(pub String);

macro_rules! name_type {
    ($(#[$meta:meta])* $name:ident, $what:literal) => {
        $(#[$meta])*
        #[derive(Debug, Clone, PartialEq, Eq, Hash, PartialOrd, Ord, serde::Serialize, serde::Deserialize, utoipa::ToSchema)]
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

        impl AsRef<str> for $name {
            fn as_ref(&self) -> &str {
                &self.0
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
                $name::try_from(value.as_str()?).map_err(|e| rusqlite::types::FromSqlError::Other(Box::new(e)))
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
        assert_eq!(
            serde_json::to_string(&UserName::try_from("alice").expect("valid")).expect("json"),
            "\"alice\""
        );
    }

    #[test]
    fn a_bad_name_in_the_database_is_refused_when_read() {
        let conn = rusqlite::Connection::open_in_memory().expect("db");
        let good: BotName = conn.query_row("SELECT 'greedy'", [], |r| r.get(0)).expect("row");
        assert_eq!(good.as_str(), "greedy");
        let e = conn.query_row("SELECT 'no/slash'", [], |r| r.get::<_, BotName>(0)).expect_err("refused");
        assert!(e.to_string().contains("no/slash"), "{e}");
    }
}
