//! Database ids, one type per table, so that a game's id cannot be passed
//! where a version's is expected. Each is an `i64` in the database and a
//! number in JSON.

macro_rules! id_type {
    ($(#[$meta:meta])* $name:ident) => {
        $(#[$meta])*
        #[derive(
            Debug, Clone, Copy, PartialEq, Eq, Hash, PartialOrd, Ord,
            serde::Serialize, serde::Deserialize, utoipa::ToSchema,
        )]
        #[serde(transparent)]
        pub struct $name(i64);

        impl $name {
            /// The id stored in the database as `value`.
            #[must_use]
            pub const fn new(value: i64) -> $name {
                $name(value)
            }

            /// The number stored in the database.
            #[must_use]
            pub const fn get(self) -> i64 {
                self.0
            }
        }

        impl std::fmt::Display for $name {
            fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
                self.0.fmt(f)
            }
        }

        impl rusqlite::types::ToSql for $name {
            fn to_sql(&self) -> rusqlite::Result<rusqlite::types::ToSqlOutput<'_>> {
                Ok(rusqlite::types::ToSqlOutput::from(self.0))
            }
        }

        impl rusqlite::types::FromSql for $name {
            fn column_result(value: rusqlite::types::ValueRef<'_>) -> rusqlite::types::FromSqlResult<Self> {
                i64::column_result(value).map($name)
            }
        }
    };
}

id_type! {
    /// The id of a bot version (`versions.id`).
    VersionId
}

id_type! {
    /// The id of a game (`games.id`).
    GameId
}

id_type! {
    /// The id of a bot (`bots.id`).
    BotId
}

id_type! {
    /// The id of a user (`users.id`).
    UserId
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn ids_are_plain_numbers_in_json_and_in_the_database() {
        assert_eq!(serde_json::to_string(&GameId::new(42)).expect("json"), "42");
        assert_eq!(serde_json::from_str::<VersionId>("7").expect("json"), VersionId::new(7));
        let conn = rusqlite::Connection::open_in_memory().expect("db");
        let back: BotId = conn.query_row("SELECT ?1", [BotId::new(9)], |r| r.get(0)).expect("row");
        assert_eq!(back, BotId::new(9));
        let as_int: i64 = conn.query_row("SELECT ?1", [UserId::new(3)], |r| r.get(0)).expect("row");
        assert_eq!(as_int, 3);
        assert!(conn.query_row("SELECT 'x'", [], |r| r.get::<_, VersionId>(0)).is_err(), "text is no id");
    }
}
