//! Built bots in the database: after a version passes its build (on a worker, or on the leader
//! for a version it built before the switch to workers), its built folder is stored as a
//! gzip-compressed tar, content-addressed (the SHA-256 of those bytes) and keyed by the CPU
//! architecture it was built on (a worker of another architecture builds its own); `version_artifacts` says which is
//! whose. A worker fetches a version's artifact once, checks its hash, and keeps it unpacked
//! in its cache folder under that hash (`--cache DIR`), where the sandbox runs it as the
//! server runs the arena's copy.

use std::path::{Path, PathBuf};

use sha2::{Digest, Sha256};

use crate::arena::Arena;
use crate::db::{Conn, OptionalExtension, params};
use crate::domain::VersionId;
use crate::error::ServerError;

/// The largest artifact stored (compressed): a bigger built folder cannot be played by workers.
pub const MAX_ARTIFACT_BYTES: usize = 128 << 20;

/// The CPU architecture of this machine, as artifacts are keyed (`x86_64`, `aarch64`...).
#[must_use]
pub fn arch() -> &'static str {
    std::env::consts::ARCH
}

/// The environment variable that names a worker's architecture instead of its machine's: a
/// knob for tests and emulation (a worker whose programs run under `qemu-user`, say), never
/// needed on a real machine of another architecture.
pub const ARCH_ENV: &str = "BAO_WORKER_ARCH";

/// The architecture a worker builds for and fetches artifacts of: [`ARCH_ENV`] if set, else
/// the machine's.
#[must_use]
pub fn worker_arch() -> String {
    std::env::var(ARCH_ENV)
        .ok()
        .map(|a| a.trim().to_owned())
        .filter(|a| !a.is_empty())
        .unwrap_or_else(|| arch().to_owned())
}

/// The SHA-256 of `bytes` in hex.
#[must_use]
pub fn hash(bytes: &[u8]) -> String {
    Sha256::digest(bytes).iter().map(|b| format!("{b:02x}")).collect()
}

/// The folder `dir` as a gzip-compressed tar (symbolic links kept as links, modes kept,
/// owners and times left out), refused above [`MAX_ARTIFACT_BYTES`].
pub fn pack(dir: &Path) -> Result<Vec<u8>, ServerError> {
    check_paths(dir, Path::new(""))?;
    let bytes = pack_any(dir)?;
    if bytes.len() > MAX_ARTIFACT_BYTES {
        return Err(ServerError::Invalid(format!(
            "the built folder is {} MiB compressed, more than the {} MiB a worker can fetch",
            bytes.len() >> 20,
            MAX_ARTIFACT_BYTES >> 20
        )));
    }
    Ok(bytes)
}

/// The longest path inside a built folder, in bytes: each worker unpacks it under a cache
/// folder of its own, and the kernel takes 4,096 bytes for a whole path. A longer one is the
/// bot's (it would fail to unpack on every worker, as if the machines failed).
pub const MAX_ARTIFACT_PATH: usize = 1024;

/// Refuses a built folder holding a path (relative to it) longer than [`MAX_ARTIFACT_PATH`];
/// looks no deeper than that, so the walk itself never meets the kernel's limit.
fn check_paths(root: &Path, rel: &Path) -> Result<(), ServerError> {
    let dir = root.join(rel);
    let entries =
        std::fs::read_dir(&dir).map_err(|e| ServerError::io(format!("cannot read {}", dir.display()), e))?;
    for entry in entries {
        let entry = entry.map_err(|e| ServerError::io(format!("cannot read {}", dir.display()), e))?;
        let path = rel.join(entry.file_name());
        let len = path.as_os_str().len();
        if len > MAX_ARTIFACT_PATH {
            let shown: String = path.to_string_lossy().chars().take(60).collect();
            return Err(ServerError::Invalid(format!(
                "the built folder holds a path of more than {MAX_ARTIFACT_PATH} bytes ({shown}…): \
                 a worker cannot unpack it; keep the build's paths shorter"
            )));
        }
        let kind =
            entry.file_type().map_err(|e| ServerError::io(format!("cannot read {}", dir.display()), e))?;
        if kind.is_dir() {
            check_paths(root, &path)?;
        }
    }
    Ok(())
}

/// The folder `dir` as a gzip-compressed tar, whatever its size (an upload's folder, which
/// the upload's limits bound already).
pub fn pack_any(dir: &Path) -> Result<Vec<u8>, ServerError> {
    let gz = flate2::write::GzEncoder::new(Vec::new(), flate2::Compression::default());
    let mut tar = tar::Builder::new(gz);
    tar.mode(tar::HeaderMode::Deterministic);
    tar.follow_symlinks(false);
    tar.append_dir_all(".", dir).map_err(|e| ServerError::io(format!("cannot pack {}", dir.display()), e))?;
    let bytes = tar
        .into_inner()
        .and_then(flate2::write::GzEncoder::finish)
        .map_err(|e| ServerError::io(format!("cannot pack {}", dir.display()), e))?;
    Ok(bytes)
}

/// Stores `bytes` as the artifact of `version` for `arch` (one transaction); returns its hash.
pub fn store(
    conn: &mut Conn,
    version: VersionId,
    arch: &str,
    bytes: &[u8],
    now: i64,
) -> Result<String, ServerError> {
    let tx = conn.transaction()?;
    let h = store_in(&tx, version, arch, bytes, now)?;
    tx.commit()?;
    Ok(h)
}

/// [`store`] in the caller's transaction.
pub fn store_in(
    conn: &Conn,
    version: VersionId,
    arch: &str,
    bytes: &[u8],
    now: i64,
) -> Result<String, ServerError> {
    let h = hash(bytes);
    let size = i64::try_from(bytes.len()).unwrap_or(i64::MAX);
    conn.execute(
        "INSERT INTO artifacts (hash, arch, bytes, data, created_at) VALUES (?1, ?2, ?3, ?4, ?5)
         ON CONFLICT (hash, arch) DO NOTHING",
        params![h, arch, size, bytes, now],
    )?;
    conn.execute(
        "INSERT INTO version_artifacts (version_id, arch, hash) VALUES (?1, ?2, ?3)
         ON CONFLICT (version_id, arch) DO UPDATE SET hash = excluded.hash",
        params![version, arch, h],
    )?;
    Ok(h)
}

/// The hash of `version`'s artifact for `arch`, if stored.
pub fn hash_of(conn: &Conn, version: VersionId, arch: &str) -> Result<Option<String>, ServerError> {
    Ok(conn
        .query_row(
            "SELECT hash FROM version_artifacts WHERE version_id = ?1 AND arch = ?2",
            params![version, arch],
            |r| r.get(0),
        )
        .optional()?)
}

/// The artifact's bytes.
pub fn bytes(conn: &Conn, hash: &str, arch: &str) -> Result<Option<Vec<u8>>, ServerError> {
    Ok(conn
        .query_row("SELECT data FROM artifacts WHERE hash = ?1 AND arch = ?2", params![hash, arch], |r| {
            r.get(0)
        })
        .optional()?)
}

/// Stores the built folder of `version` (in the arena at `dir`, built by this server) for
/// this machine's architecture unless the version has an artifact already (for any
/// architecture: one the workers built, whose other architectures they build themselves).
pub async fn ensure(arena: &Arena, version: VersionId, dir: PathBuf) -> Result<(), ServerError> {
    let any: Option<String> = arena
        .db
        .read(move |c| {
            Ok(c.query_row(
                "SELECT hash FROM version_artifacts WHERE version_id = ?1 LIMIT 1",
                [version],
                |r| r.get(0),
            )
            .optional()?)
        })
        .await?;
    if any.is_some() {
        return Ok(());
    }
    let bytes = tokio::task::spawn_blocking(move || pack(&dir))
        .await
        .map_err(|e| ServerError::Internal(format!("packing a built folder failed: {e}")))??;
    let h = arena.db.write(move |c| store(c, version, arch(), &bytes, crate::db::now_ms())).await?;
    tracing::info!(version = version.get(), hash = %h, "built folder stored for the workers");
    Ok(())
}

/// The folder this server runs `version`'s built bot from (a game with a person, `/play`): its
/// version folder, or, when the workers build ([`crate::build::on_workers`]: no server has
/// one), the version's artifact for this machine's architecture, unpacked under the arena's
/// `artifacts/` folder by hash.
pub async fn served_dir(arena: &Arena, version: &crate::versions::Version) -> Result<PathBuf, ServerError> {
    if !crate::build::on_workers(arena) {
        return Ok(arena.version_dir(version.bot_id, version.number));
    }
    let id = version.id;
    let hash = arena.db.read(move |c| hash_of(c, id, arch())).await?.ok_or_else(|| {
        ServerError::Invalid(format!(
            "{} v{} is not built for this server's architecture ({}): no worker of it has built it yet",
            version.bot,
            version.number,
            arch()
        ))
    })?;
    let cache = arena.dir.join("artifacts");
    if cache.join(&hash).is_dir() {
        return Ok(cache.join(hash));
    }
    let h = hash.clone();
    let data = arena
        .db
        .read(move |c| bytes(c, &h, arch()))
        .await?
        .ok_or_else(|| ServerError::Internal(format!("the artifact {hash} is not in the database")))?;
    tokio::task::spawn_blocking(move || {
        std::fs::create_dir_all(&cache)
            .map_err(|e| ServerError::io(format!("cannot create {}", cache.display()), e))?;
        // Passed through to each bot's folder, never listed (see the worker's cache).
        crate::db::make_private(&cache, 0o711)?;
        unpack_cached(&cache, &hash, &data)
    })
    .await
    .map_err(|e| ServerError::Internal(format!("unpacking an artifact failed: {e}")))?
}

/// The folder where `hash`'s artifact is unpacked in `cache`, unpacking `bytes` there first
/// if it is not (after checking that they have that hash). Safe against another worker
/// process sharing the cache: each unpacks aside and renames into place.
pub fn unpack_cached(cache: &Path, hash_hex: &str, bytes: &[u8]) -> Result<PathBuf, ServerError> {
    let dir = cache.join(hash_hex);
    if dir.is_dir() {
        return Ok(dir);
    }
    let got = hash(bytes);
    if got != hash_hex {
        return Err(ServerError::Internal(format!(
            "the artifact {hash_hex} read from the database has hash {got}"
        )));
    }
    let aside = tempfile::Builder::new()
        .prefix(".unpack-")
        .tempdir_in(cache)
        .map_err(|e| ServerError::io(format!("cannot unpack into {}", cache.display()), e))?;
    unpack_into(bytes, aside.path())
        .map_err(|e| ServerError::io(format!("cannot unpack the artifact {hash_hex}"), e))?;
    let aside = aside.keep();
    match std::fs::rename(&aside, &dir) {
        Ok(()) => Ok(dir),
        // Another process put it there first: same hash, same files.
        Err(_) if dir.is_dir() => {
            let _ = std::fs::remove_dir_all(&aside);
            Ok(dir)
        }
        Err(e) => Err(ServerError::io(format!("cannot move the artifact into {}", dir.display()), e)),
    }
}

/// Unpacks a gzip-compressed tar into the folder `dir` (which exists), without set-uid and
/// set-gid bits, and makes `dir` readable by all (the sandbox's own uid reads it, as it reads
/// the arena's version folders).
pub fn unpack_into(bytes: &[u8], dir: &Path) -> std::io::Result<()> {
    let mut archive = tar::Archive::new(flate2::read::GzDecoder::new(bytes));
    // Read, write and execute bits only: a bot's build may set setuid or setgid bits on its
    // own files, which unpacked by a root worker would make them set-uid root on the host.
    archive.set_preserve_permissions(false);
    archive.set_overwrite(false);
    archive.unpack(dir)?;
    use std::os::unix::fs::PermissionsExt;
    std::fs::set_permissions(dir, std::fs::Permissions::from_mode(0o755))
}

#[cfg(test)]
mod tests {
    #[test]
    fn a_built_folder_with_a_path_too_long_to_unpack_is_the_bots() {
        let dir = tempfile::tempdir().expect("a folder");
        let mut deep = dir.path().to_path_buf();
        for _ in 0..6 {
            deep.push("d".repeat(200));
        }
        std::fs::create_dir_all(&deep).expect("deep folders");
        std::fs::write(deep.join("f"), "x").expect("a file");
        match super::pack(dir.path()) {
            Err(crate::error::ServerError::Invalid(why)) => {
                assert!(why.contains("path of more than 1024 bytes"), "{why}");
                assert!(!why.contains(&dir.path().display().to_string()), "no folder of the worker: {why}");
            }
            other => panic!("refused as the bot's: {:?}", other.map(|b| b.len())),
        }
        // Five levels (1,005 bytes and the file's name) pack.
        let ok = tempfile::tempdir().expect("a folder");
        let mut five = ok.path().to_path_buf();
        for _ in 0..5 {
            five.push("d".repeat(200));
        }
        std::fs::create_dir_all(&five).expect("folders");
        std::fs::write(five.join("f"), "x").expect("a file");
        assert!(super::pack(ok.path()).is_ok());
    }

    use super::*;

    #[test]
    fn a_folder_stored_and_unpacked_comes_back_the_same_and_a_bad_hash_is_refused() {
        let src = tempfile::tempdir().expect("src");
        std::fs::create_dir(src.path().join("lib")).expect("dir");
        std::fs::write(src.path().join("lib/data.txt"), "weights").expect("file");
        std::fs::write(src.path().join("bot"), "#!/bin/sh\necho hi\n").expect("file");
        use std::os::unix::fs::PermissionsExt;
        std::fs::set_permissions(src.path().join("bot"), std::fs::Permissions::from_mode(0o755))
            .expect("mode");
        std::os::unix::fs::symlink("lib/data.txt", src.path().join("link")).expect("link");
        // A build may leave set-uid and set-gid files: they must not come out so.
        std::fs::write(src.path().join("suid"), "#!/bin/sh\n").expect("file");
        std::fs::set_permissions(src.path().join("suid"), std::fs::Permissions::from_mode(0o6755))
            .expect("mode");
        let bytes = pack(src.path()).expect("pack");

        let db_dir = tempfile::tempdir().expect("db");
        let mut conn = crate::db::open(&db_dir.path().join("a.sqlite3")).expect("db");
        conn.execute_batch(
            "INSERT INTO users (id, name, created_at) VALUES (1, 'u', 0);
             INSERT INTO bots (id, name, owner_id, created_at) VALUES (1, 'b', 1, 0);
             INSERT INTO versions (id, bot_id, number, language, source_name, source_bytes, state, submitted_at, state_at)
             VALUES (1, 1, 1, 'python', 'a.py', 1, 'active', 0, 0);",
        )
        .expect("rows");
        let v = VersionId::new(1);
        let h = store(&mut conn, v, arch(), &bytes, 0).expect("store");
        assert_eq!(store(&mut conn, v, arch(), &bytes, 0).expect("again"), h, "stored once, by content");
        assert_eq!(hash_of(&conn, v, arch()).expect("hash"), Some(h.clone()));
        assert_eq!(hash_of(&conn, v, "some-other-arch").expect("hash"), None);
        let stored = bytes_of(&conn, &h);

        let cache = tempfile::tempdir().expect("cache");
        let dir = unpack_cached(cache.path(), &h, &stored).expect("unpack");
        assert_eq!(std::fs::read_to_string(dir.join("lib/data.txt")).expect("file"), "weights");
        let mode = std::fs::metadata(dir.join("bot")).expect("bot").permissions().mode();
        assert_eq!(mode & 0o111, 0o111, "still executable: {mode:o}");
        let mode = std::fs::metadata(dir.join("suid")).expect("suid").permissions().mode();
        assert_eq!(mode & 0o7777, 0o755, "unpacked without its set-uid and set-gid bits: {mode:o}");
        assert_eq!(std::fs::read_link(dir.join("link")).expect("link"), Path::new("lib/data.txt"));
        assert_eq!(unpack_cached(cache.path(), &h, &stored).expect("cached"), dir);

        let mut bad = stored.clone();
        let last = bad.len() - 1;
        bad[last] ^= 1;
        let other = tempfile::tempdir().expect("cache");
        let err = unpack_cached(other.path(), &h, &bad).expect_err("a corrupt artifact");
        assert!(err.to_string().contains("has hash"), "{err}");
        assert!(!other.path().join(&h).exists());
    }

    /// An artifact made elsewhere than [`pack`] (which writes only 644 and 755) with
    /// set-uid and set-gid bits: unpacked without them.
    #[test]
    fn set_uid_bits_do_not_survive_unpacking() {
        let gz = flate2::write::GzEncoder::new(Vec::new(), flate2::Compression::default());
        let mut tar = tar::Builder::new(gz);
        let mut header = tar::Header::new_gnu();
        header.set_size(3);
        header.set_mode(0o6755);
        header.set_entry_type(tar::EntryType::Regular);
        header.set_cksum();
        tar.append_data(&mut header, "suid", &b"hi\n"[..]).expect("append");
        let bytes = tar.into_inner().and_then(flate2::write::GzEncoder::finish).expect("gz");
        let cache = tempfile::tempdir().expect("cache");
        let dir = unpack_cached(cache.path(), &hash(&bytes), &bytes).expect("unpack");
        use std::os::unix::fs::PermissionsExt;
        let mode = std::fs::metadata(dir.join("suid")).expect("suid").permissions().mode();
        assert_eq!(mode & 0o7777, 0o755, "unpacked without its set-uid and set-gid bits: {mode:o}");
    }

    fn bytes_of(conn: &Conn, h: &str) -> Vec<u8> {
        bytes(conn, h, arch()).expect("read").expect("stored")
    }
}
