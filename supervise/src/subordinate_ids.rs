//! The subordinate ids of an unprivileged caller (`/etc/subuid` and `/etc/subgid`, as rootless
//! containers use them): where the caller has a range of each and the system has the setuid
//! helpers `newuidmap` and `newgidmap` (Debian's package `uidmap`), every sandbox of the caller
//! runs as a uid and gid of its own from those ranges, mapped into its user namespace by the
//! helpers (`id_mapper.rs`), instead of as the caller's own uid (`docs/supervision.md`,
//! "Identity").

use std::path::{Path, PathBuf};
use std::sync::{Mutex, PoisonError};

use serde::{Deserialize, Serialize};

use crate::sandbox_profile::IdRange;

/// Which subordinate ids the sandboxes of an unprivileged caller run as
/// ([`SandboxProfile::subordinate_ids`](crate::SandboxProfile)); unused when the caller is
/// root (its sandboxes run as ids of [`SandboxProfile::ids`](crate::SandboxProfile)).
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash, Default, Serialize, Deserialize)]
#[serde(rename_all = "snake_case")]
pub enum SubordinateIds {
    /// None: every sandbox runs as the caller's uid outside its user namespace.
    Off,
    /// The caller's subordinate uid range (its largest line of `/etc/subuid`, by name or
    /// uid) and gid range (`/etc/subgid`), the n-th gid going with the n-th uid, when it has
    /// both and `newuidmap` and `newgidmap` are installed and work; otherwise, said once in
    /// the log, as [`SubordinateIds::Off`].
    #[default]
    Auto,
    /// Only these uids, which must lie in one of the caller's subordinate uid ranges (the gid
    /// of each at the same offset in the caller's largest subordinate gid range); a caller
    /// without them gets an error, not the caller's uid.
    Within(IdRange),
}

impl std::str::FromStr for SubordinateIds {
    type Err = String;

    /// `auto`, `off`, or `FIRST:COUNT` (as in `/etc/subuid`).
    fn from_str(text: &str) -> Result<Self, String> {
        match text.trim() {
            "auto" => Ok(Self::Auto),
            "off" => Ok(Self::Off),
            range => {
                let parsed = range.split_once(':').and_then(|(first, count)| {
                    Some(IdRange { first: first.parse().ok()?, count: count.parse().ok()? })
                });
                let range = parsed.ok_or_else(|| {
                    format!("invalid subordinate ids {text:?}: expected \"auto\", \"off\" or FIRST:COUNT")
                })?;
                range.validate()?;
                Ok(Self::Within(range))
            }
        }
    }
}

/// The ids a caller's sandboxes may lease: `count` uids from `uid_first`, the n-th with the
/// gid `gid_first + n`. The probe of the sandbox runs as the id just past them (see
/// [`SubRange::probe_user`]).
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash)]
pub(crate) struct SubRange {
    /// The uids leased.
    pub(crate) uids: IdRange,
    /// The gid of the first uid.
    pub(crate) gid_first: u32,
}

impl SubRange {
    /// The user the isolation probe runs as: the last id of the caller's range, which no
    /// lease takes.
    pub(crate) fn probe_user(&self) -> crate::sandbox::BotUser {
        let offset = self.uids.count;
        crate::sandbox::BotUser { uid: self.uids.first + offset, gid: self.gid_first + offset }
    }
}

/// What the lookup found: the ranges, or why the caller's sandboxes share its uid.
#[derive(Debug, Clone, PartialEq, Eq)]
pub(crate) enum Found {
    /// The caller may use these ids.
    Ranges(SubRange),
    /// No subordinate ids for the caller, and why (`Off`, no range, no helper).
    Absent(String),
}

/// Where the helpers are looked for (never the caller's `PATH`: the stub runs with the bot's
/// environment).
const TOOL_DIRS: [&str; 4] = ["/usr/bin", "/bin", "/usr/sbin", "/sbin"];

/// The path of the system's `newuidmap` or `newgidmap`, if installed.
pub(crate) fn tool(name: &str) -> Option<PathBuf> {
    TOOL_DIRS.iter().map(|dir| Path::new(dir).join(name)).find(|path| path.is_file())
}

/// The subordinate ids of this process's (non-root) user under `choice`, looked up once per
/// process and choice.
///
/// # Errors
/// A [`SubordinateIds::Within`] range that is not the caller's, naming why.
pub(crate) fn find(choice: SubordinateIds) -> Result<Found, String> {
    static FOUND: Mutex<Vec<(SubordinateIds, Result<Found, String>)>> = Mutex::new(Vec::new());
    let mut found = FOUND.lock().unwrap_or_else(PoisonError::into_inner);
    if let Some((_, outcome)) = found.iter().find(|(c, _)| *c == choice) {
        return outcome.clone();
    }
    let outcome = look_up(choice, nix::unistd::geteuid().as_raw(), Path::new("/etc"));
    found.push((choice, outcome.clone()));
    outcome
}

/// [`find`] without the cache, for user `uid`, with the id files in `etc`.
fn look_up(choice: SubordinateIds, uid: u32, etc: &Path) -> Result<Found, String> {
    if choice == SubordinateIds::Off {
        return Ok(Found::Absent("subordinate ids are off (subordinate_ids = off)".to_owned()));
    }
    let name = nix::unistd::User::from_uid(nix::unistd::Uid::from_raw(uid)).ok().flatten().map(|u| u.name);
    let owner = name.clone().unwrap_or_else(|| uid.to_string());
    let read = |file: &str| {
        std::fs::read_to_string(etc.join(file)).map(|text| ranges_of(&text, name.as_deref(), uid))
    };
    let absent = |why: String| match choice {
        SubordinateIds::Within(_) => Err(why),
        _ => Ok(Found::Absent(why)),
    };
    let (uids, gids) = match (read("subuid"), read("subgid")) {
        (Ok(uids), Ok(gids)) if !uids.is_empty() && !gids.is_empty() => (uids, gids),
        (Ok(uids), Ok(_)) => {
            let file = if uids.is_empty() { "subuid" } else { "subgid" };
            return absent(format!("user {owner} has no range in {}", etc.join(file).display()));
        }
        (Err(e), _) | (_, Err(e)) => {
            return absent(format!("cannot read {}/subuid and subgid: {e}", etc.display()));
        }
    };
    for helper in ["newuidmap", "newgidmap"] {
        if tool(helper).is_none() {
            return absent(format!("no {helper} in {} (Debian's package uidmap)", TOOL_DIRS.join(", ")));
        }
    }
    let largest = |ranges: &[IdRange]| ranges.iter().copied().max_by_key(|r| r.count);
    let gid_range = largest(&gids).unwrap_or(IdRange { first: 0, count: 0 });
    let (uid_range, wanted) = match choice {
        SubordinateIds::Within(wanted) => {
            let holder = uids.iter().copied().find(|r| contains(*r, wanted)).ok_or_else(|| {
                format!(
                    "subordinate ids {}:{} are not in a range of user {owner} in {}",
                    wanted.first,
                    wanted.count,
                    etc.join("subuid").display()
                )
            })?;
            (holder, wanted)
        }
        _ => {
            let holder = largest(&uids).unwrap_or(IdRange { first: 0, count: 0 });
            (holder, holder)
        }
    };
    // The gids at the same offsets, within the gid range; one id kept for the probe.
    let offset = wanted.first - uid_range.first;
    let usable = wanted.count.min(gid_range.count.saturating_sub(offset));
    if usable < 2 || wanted.first == 0 || gid_range.first.checked_add(offset).is_none_or(|g| g == 0) {
        return absent(format!(
            "the subordinate ranges of user {owner} ({}:{} in subuid, {}:{} in subgid) leave no two ids to use",
            uid_range.first, uid_range.count, gid_range.first, gid_range.count
        ));
    }
    let uids = IdRange { first: wanted.first, count: usable - 1 };
    uids.validate()?;
    Ok(Found::Ranges(SubRange { uids, gid_first: gid_range.first + offset }))
}

/// Every subordinate uid and gid range of this process's (non-root) user, as listed in
/// `/etc/subuid` and `/etc/subgid` (each range once), for the user namespace its sandboxes
/// share (`shared_user_namespace.rs`): whatever range [`find`] picks for a sandbox lies in them.
///
/// # Errors
/// A file that cannot be read, or no range in one of them.
pub(crate) fn own_ranges() -> Result<(Vec<IdRange>, Vec<IdRange>), String> {
    all_ranges(nix::unistd::geteuid().as_raw(), Path::new("/etc"))
}

/// [`own_ranges`] for user `uid`, with the id files in `etc`.
fn all_ranges(uid: u32, etc: &Path) -> Result<(Vec<IdRange>, Vec<IdRange>), String> {
    let name = nix::unistd::User::from_uid(nix::unistd::Uid::from_raw(uid)).ok().flatten().map(|u| u.name);
    let read = |file: &str| {
        let path = etc.join(file);
        let text =
            std::fs::read_to_string(&path).map_err(|e| format!("cannot read {}: {e}", path.display()))?;
        let mut ranges = ranges_of(&text, name.as_deref(), uid);
        ranges.sort_by_key(|r| (r.first, r.count));
        ranges.dedup();
        if ranges.is_empty() {
            return Err(format!(
                "user {} has no range in {}",
                name.clone().unwrap_or_else(|| uid.to_string()),
                path.display()
            ));
        }
        Ok(ranges)
    };
    Ok((read("subuid")?, read("subgid")?))
}

fn contains(outer: IdRange, inner: IdRange) -> bool {
    inner.first >= outer.first
        && u64::from(inner.first) + u64::from(inner.count) <= u64::from(outer.first) + u64::from(outer.count)
}

/// The ranges of `/etc/subuid` or `/etc/subgid` (`OWNER:FIRST:COUNT` lines) whose owner is
/// the user's name or its uid as a number; other and malformed lines are skipped.
fn ranges_of(text: &str, name: Option<&str>, uid: u32) -> Vec<IdRange> {
    let uid = uid.to_string();
    text.lines()
        .filter_map(|line| {
            let mut fields = line.trim().split(':');
            let (owner, first, count) = (fields.next()?, fields.next()?, fields.next()?);
            if fields.next().is_some() || (Some(owner) != name && owner != uid) {
                return None;
            }
            Some(IdRange { first: first.parse().ok()?, count: count.parse().ok()? })
        })
        .filter(|range| range.count > 0)
        .collect()
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn lines_are_taken_by_name_or_uid() {
        let text =
            "alice:100000:65536\n# a comment\n1001:300000:10\nbob:200000:65536\nalice:bad:1\n\nalice:5:0\n";
        assert_eq!(
            ranges_of(text, Some("alice"), 1001),
            [IdRange { first: 100_000, count: 65_536 }, IdRange { first: 300_000, count: 10 }]
        );
        assert_eq!(ranges_of(text, None, 1001), [IdRange { first: 300_000, count: 10 }]);
        assert!(ranges_of(text, Some("carol"), 7).is_empty());
    }

    #[test]
    fn all_ranges_are_listed_once_each() {
        let etc = tempfile::tempdir().unwrap();
        let uid = 3_999_999_002;
        std::fs::write(
            etc.path().join("subuid"),
            format!("{uid}:300000:10\n{uid}:100000:65536\n{uid}:300000:10\nx:1:5\n"),
        )
        .unwrap();
        std::fs::write(etc.path().join("subgid"), format!("{uid}:200000:65536\n")).unwrap();
        assert_eq!(
            all_ranges(uid, etc.path()),
            Ok((
                vec![IdRange { first: 100_000, count: 65_536 }, IdRange { first: 300_000, count: 10 }],
                vec![IdRange { first: 200_000, count: 65_536 }]
            ))
        );
        let none = all_ranges(uid + 1, etc.path()).unwrap_err();
        assert!(none.contains("has no range in") && none.contains("subuid"), "{none}");
        std::fs::remove_file(etc.path().join("subgid")).unwrap();
        assert!(all_ranges(uid, etc.path()).unwrap_err().contains("cannot read"));
    }

    #[test]
    fn choices_parse_and_bad_ones_say_why() {
        assert_eq!("auto".parse(), Ok(SubordinateIds::Auto));
        assert_eq!(" off ".parse(), Ok(SubordinateIds::Off));
        assert_eq!(
            "200000:1000".parse(),
            Ok(SubordinateIds::Within(IdRange { first: 200_000, count: 1000 }))
        );
        assert!("lots".parse::<SubordinateIds>().unwrap_err().contains("FIRST:COUNT"));
        assert!("0:5".parse::<SubordinateIds>().unwrap_err().contains("root"));
    }

    /// A user is looked up by uid number here (3999999001: no account), in id files of a test
    /// folder; the helpers must be installed for ranges to be found.
    #[test]
    fn ranges_are_found_narrowed_or_refused() {
        let etc = tempfile::tempdir().unwrap();
        let uid = 3_999_999_001;
        std::fs::write(etc.path().join("subuid"), format!("{uid}:100000:65536\nother:1:5\n")).unwrap();
        std::fs::write(etc.path().join("subgid"), format!("{uid}:300000:65536\n")).unwrap();
        let helpers = tool("newuidmap").is_some() && tool("newgidmap").is_some();
        let auto = look_up(SubordinateIds::Auto, uid, etc.path()).unwrap();
        let within = look_up(SubordinateIds::Within(IdRange { first: 110_000, count: 100 }), uid, etc.path());
        if helpers {
            let range = SubRange { uids: IdRange { first: 100_000, count: 65_535 }, gid_first: 300_000 };
            assert_eq!(auto, Found::Ranges(range));
            assert_eq!(range.probe_user(), crate::sandbox::BotUser { uid: 165_535, gid: 365_535 });
            let narrowed = SubRange { uids: IdRange { first: 110_000, count: 99 }, gid_first: 310_000 };
            assert_eq!(within, Ok(Found::Ranges(narrowed)));
        } else {
            let why = "skipped part: newuidmap and newgidmap are not installed (Debian's package uidmap)";
            assert!(std::env::var("BAO_REQUIRE_ALL").as_deref() != Ok("1"), "{why} (BAO_REQUIRE_ALL=1)");
            eprintln!("ranges_are_found_narrowed_or_refused: {why}");
            assert!(matches!(&auto, Found::Absent(why) if why.contains("newuidmap")), "{auto:?}");
        }
        let outside = look_up(SubordinateIds::Within(IdRange { first: 99_000, count: 10 }), uid, etc.path());
        if helpers {
            assert!(outside.unwrap_err().contains("not in a range of user 3999999001"));
        }
        assert_eq!(
            look_up(SubordinateIds::Auto, uid + 1, etc.path()),
            Ok(Found::Absent(format!(
                "user {} has no range in {}",
                uid + 1,
                etc.path().join("subuid").display()
            )))
        );
        assert!(matches!(look_up(SubordinateIds::Off, uid, etc.path()), Ok(Found::Absent(_))));
        let within_none =
            look_up(SubordinateIds::Within(IdRange { first: 5, count: 1 }), uid + 1, etc.path());
        assert!(
            within_none.unwrap_err().contains("no range"),
            "a range asked for by name is never dropped silently"
        );
    }
}
