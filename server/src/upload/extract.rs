//! Safe unpacking of an upload into an empty directory: only regular files and
//! directories, only relative paths without `..`, a bounded number of entries
//! and a bounded unpacked size, counted on the bytes actually written (so a
//! zip bomb stops at the limit, whatever its headers claim).

use std::fs::{self, File, OpenOptions};
use std::io::{self, Read, Write};
use std::os::unix::fs::OpenOptionsExt;
use std::path::{Component, Path, PathBuf};

use super::UploadKind;

/// Limits on what an upload may unpack to.
#[derive(Debug, Clone, Copy)]
pub struct UnpackLimits {
    /// The most entries (files and directories).
    pub max_entries: usize,
    /// The most bytes written in all.
    pub max_bytes: u64,
}

/// What an upload unpacked to.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct UnpackSummary {
    /// Regular files written.
    pub files: usize,
    /// Bytes written.
    pub bytes: u64,
}

/// Why an upload was refused.
#[derive(Debug, thiserror::Error)]
pub enum UploadError {
    /// The upload breaks a rule (the message says which).
    #[error("{0}")]
    Refused(String),
    /// The archive could not be read.
    #[error("the archive is damaged or not a {kind} archive: {message}")]
    Corrupt {
        /// zip or tar.
        kind: &'static str,
        /// The reader's message.
        message: String,
    },
    /// Writing the files failed.
    #[error("cannot write the upload: {0}")]
    Io(#[from] io::Error),
}

fn refused(message: impl Into<String>) -> UploadError {
    UploadError::Refused(message.into())
}

/// Unpacks `bytes` (named `file_name`) into the directory `dest`, which must
/// exist and be empty. A single file is saved as `main`; an archive must
/// contain `main` at its root.
pub fn unpack(
    bytes: &[u8],
    file_name: &str,
    main: &str,
    dest: &Path,
    limits: UnpackLimits,
) -> Result<UnpackSummary, UploadError> {
    if bytes.is_empty() {
        return Err(refused("the upload is empty"));
    }
    let mut out = Writer { dest, limits, summary: UnpackSummary { files: 0, bytes: 0 }, entries: 0 };
    match UploadKind::from_file_name(file_name) {
        UploadKind::Single => {
            out.file(Path::new(main), &mut &bytes[..], true)?;
            return Ok(out.summary);
        }
        UploadKind::Zip => unpack_zip(bytes, &mut out)?,
        UploadKind::Tar => unpack_tar(bytes, &mut out)?,
        UploadKind::TarGz => unpack_tar(flate2::read::GzDecoder::new(bytes), &mut out)?,
    }
    if !dest.join(main).is_file() {
        return Err(refused(format!(
            "the archive has no file {main} at its root (this language's entry file)"
        )));
    }
    Ok(out.summary)
}

/// Writes entries under `dest`, counting them against the limits.
struct Writer<'a> {
    dest: &'a Path,
    limits: UnpackLimits,
    summary: UnpackSummary,
    entries: usize,
}

impl Writer<'_> {
    fn count_entry(&mut self) -> Result<(), UploadError> {
        self.entries += 1;
        if self.entries > self.limits.max_entries {
            return Err(refused(format!("the archive has more than {} entries", self.limits.max_entries)));
        }
        Ok(())
    }

    fn dir(&mut self, path: &Path) -> Result<(), UploadError> {
        self.count_entry()?;
        let rel = safe_relative(path)?;
        if rel.as_os_str().is_empty() {
            return Ok(());
        }
        fs::create_dir_all(self.dest.join(rel))?;
        Ok(())
    }

    fn file(&mut self, path: &Path, data: &mut dyn Read, executable: bool) -> Result<(), UploadError> {
        self.count_entry()?;
        let rel = safe_relative(path)?;
        if rel.as_os_str().is_empty() {
            return Err(refused(format!("the entry {} has no file name", path.display())));
        }
        let target = self.dest.join(&rel);
        if let Some(parent) = target.parent() {
            fs::create_dir_all(parent)?;
        }
        let mut f: File = OpenOptions::new()
            .write(true)
            .create_new(true)
            .mode(if executable { 0o755 } else { 0o644 })
            .open(&target)
            .map_err(|e| {
                if e.kind() == io::ErrorKind::AlreadyExists {
                    refused(format!("the archive has {} twice", rel.display()))
                } else {
                    UploadError::Io(e)
                }
            })?;
        let room = self.limits.max_bytes - self.summary.bytes;
        let written = io::copy(&mut data.take(room + 1), &mut f)?;
        if written > room {
            return Err(refused(format!("the upload unpacks to more than {} bytes", self.limits.max_bytes)));
        }
        f.flush()?;
        self.summary.bytes += written;
        self.summary.files += 1;
        Ok(())
    }
}

/// The longest file or directory name accepted in an archive, in bytes (the
/// kernel's own limit of a name).
const MAX_NAME_BYTES: usize = 255;
/// The longest path accepted in an archive, in bytes (well within the kernel's
/// 4096 with the arena's own directories in front).
const MAX_PATH_BYTES: usize = 1024;

/// The path as plain relative components: refuses absolute paths, `..`,
/// Windows prefixes, components that are not valid UTF-8 or hold a NUL or backslash,
/// names longer than the kernel accepts, and names that start with `-` or `@` (which
/// `g++ ./*.cpp`-style build commands would take for options or response files when
/// the glob is written without `./`).
fn safe_relative(path: &Path) -> Result<PathBuf, UploadError> {
    let mut out = PathBuf::new();
    for c in path.components() {
        match c {
            Component::Normal(part) => {
                let s = part
                    .to_str()
                    .ok_or_else(|| refused(format!("the path {} is not UTF-8", path.display())))?;
                if s.contains(['\\', '\0']) {
                    return Err(refused(format!("the path {s:?} contains a backslash or NUL")));
                }
                if s.len() > MAX_NAME_BYTES {
                    return Err(refused(format!(
                        "the name {}... in the archive is longer than {MAX_NAME_BYTES} bytes",
                        s.chars().take(40).collect::<String>()
                    )));
                }
                if s.starts_with(['-', '@']) {
                    return Err(refused(format!(
                        "the name {s:?} in the archive starts with '{}': a build command would read it \
                         as an option or a response file; rename it",
                        &s[..1]
                    )));
                }
                out.push(s);
            }
            Component::CurDir => {}
            Component::ParentDir => {
                return Err(refused(format!("the path {} contains '..'", path.display())));
            }
            Component::RootDir | Component::Prefix(_) => {
                return Err(refused(format!("the path {} is absolute", path.display())));
            }
        }
    }
    if out.components().count() > 16 {
        return Err(refused(format!("the path {} is nested too deeply", path.display())));
    }
    if out.as_os_str().len() > MAX_PATH_BYTES {
        return Err(refused(format!("a path in the archive is longer than {MAX_PATH_BYTES} bytes")));
    }
    Ok(out)
}

fn unpack_zip(bytes: &[u8], out: &mut Writer<'_>) -> Result<(), UploadError> {
    let corrupt = |e: zip::result::ZipError| UploadError::Corrupt { kind: "zip", message: e.to_string() };
    let mut archive = zip::ZipArchive::new(io::Cursor::new(bytes)).map_err(corrupt)?;
    if archive.len() > out.limits.max_entries {
        return Err(refused(format!(
            "the archive has {} entries, more than {}",
            archive.len(),
            out.limits.max_entries
        )));
    }
    for i in 0..archive.len() {
        let mut entry = archive.by_index(i).map_err(corrupt)?;
        let name = entry.name().to_owned();
        if entry.is_symlink() {
            return Err(refused(format!("the archive entry {name} is a symbolic link")));
        }
        let path = PathBuf::from(&name);
        if entry.is_dir() {
            out.dir(&path)?;
        } else if entry.is_file() {
            let executable = entry.unix_mode().is_some_and(|m| m & 0o111 != 0);
            out.file(&path, &mut entry, executable).map_err(|e| match e {
                UploadError::Io(io)
                    if io.kind() == io::ErrorKind::InvalidData || io.kind() == io::ErrorKind::Other =>
                {
                    UploadError::Corrupt { kind: "zip", message: io.to_string() }
                }
                other => other,
            })?;
        } else {
            return Err(refused(format!("the archive entry {name} is neither a file nor a directory")));
        }
    }
    Ok(())
}

fn unpack_tar(reader: impl Read, out: &mut Writer<'_>) -> Result<(), UploadError> {
    let corrupt = |e: io::Error| UploadError::Corrupt { kind: "tar", message: e.to_string() };
    let mut archive = tar::Archive::new(reader);
    for entry in archive.entries().map_err(corrupt)? {
        let mut entry = entry.map_err(corrupt)?;
        let path = entry.path().map_err(corrupt)?.into_owned();
        let kind = entry.header().entry_type();
        if kind.is_dir() {
            out.dir(&path)?;
        } else if kind.is_file() {
            let executable = entry.header().mode().is_ok_and(|m| m & 0o111 != 0);
            out.file(&path, &mut entry, executable)?;
        } else if kind.is_symlink() || kind.is_hard_link() {
            return Err(refused(format!("the archive entry {} is a link", path.display())));
        } else if kind.is_pax_global_extensions() || kind.is_pax_local_extensions() {
            continue;
        } else {
            return Err(refused(format!(
                "the archive entry {} is of a kind not allowed ({kind:?}): only files and directories",
                path.display()
            )));
        }
    }
    Ok(())
}

#[cfg(test)]
mod tests {
    use super::*;

    const LIMITS: UnpackLimits = UnpackLimits { max_entries: 10, max_bytes: 10_000 };

    fn zip_of(entries: &[(&str, &[u8])]) -> Vec<u8> {
        let mut w = zip::ZipWriter::new(io::Cursor::new(Vec::new()));
        let opts =
            zip::write::SimpleFileOptions::default().compression_method(zip::CompressionMethod::Deflated);
        for (name, data) in entries {
            w.start_file(*name, opts).expect("start");
            w.write_all(data).expect("write");
        }
        w.finish().expect("finish").into_inner()
    }

    fn tar_with(build: impl FnOnce(&mut tar::Builder<Vec<u8>>)) -> Vec<u8> {
        let mut b = tar::Builder::new(Vec::new());
        build(&mut b);
        b.into_inner().expect("tar")
    }

    fn tar_file(b: &mut tar::Builder<Vec<u8>>, name: &str, data: &[u8]) {
        let mut h = tar::Header::new_gnu();
        h.set_size(data.len() as u64);
        h.set_mode(0o644);
        h.set_entry_type(tar::EntryType::Regular);
        // Bypass the builder's own path checks to write hostile names.
        let bytes = name.as_bytes();
        h.as_old_mut().name[..bytes.len()].copy_from_slice(bytes);
        h.set_cksum();
        b.append(&h, data).expect("append");
    }

    fn refusal(r: Result<UnpackSummary, UploadError>) -> String {
        match r {
            Err(UploadError::Refused(m)) => m,
            other => panic!("expected a refusal, got {other:?}"),
        }
    }

    #[test]
    fn single_file_is_saved_as_main() {
        let d = tempfile::tempdir().expect("tempdir");
        let s = unpack(b"print(1)", "anything.py", "main.py", d.path(), LIMITS).expect("ok");
        assert_eq!(s, UnpackSummary { files: 1, bytes: 8 });
        assert_eq!(fs::read(d.path().join("main.py")).expect("read"), b"print(1)");
    }

    #[test]
    fn zip_with_subdirectories_unpacks() {
        let d = tempfile::tempdir().expect("tempdir");
        let z = zip_of(&[("main.py", b"import lib.x"), ("lib/x.py", b"X = 1")]);
        let s = unpack(&z, "bot.zip", "main.py", d.path(), LIMITS).expect("ok");
        assert_eq!(s.files, 2);
        assert_eq!(fs::read(d.path().join("lib/x.py")).expect("read"), b"X = 1");
    }

    #[test]
    fn zip_traversal_and_absolute_paths_are_refused() {
        let d = tempfile::tempdir().expect("tempdir");
        let z = zip_of(&[("../evil.py", b"x")]);
        assert!(refusal(unpack(&z, "b.zip", "main.py", d.path(), LIMITS)).contains(".."));
        let z = zip_of(&[("/etc/evil", b"x")]);
        assert!(refusal(unpack(&z, "b.zip", "main.py", d.path(), LIMITS)).contains("absolute"));
        assert!(!d.path().parent().expect("parent").join("evil.py").exists());
    }

    #[test]
    fn zip_bomb_stops_at_the_limit() {
        let d = tempfile::tempdir().expect("tempdir");
        let zeros = vec![0u8; 5_000_000];
        let z = zip_of(&[("main.py", &zeros)]);
        assert!(z.len() < 50_000, "the bomb compresses well: {}", z.len());
        let m = refusal(unpack(&z, "b.zip", "main.py", d.path(), LIMITS));
        assert!(m.contains("more than 10000 bytes"), "{m}");
        let written = fs::metadata(d.path().join("main.py")).expect("meta").len();
        assert!(written <= 10_001, "wrote {written}");
    }

    #[test]
    fn too_many_entries_are_refused() {
        let d = tempfile::tempdir().expect("tempdir");
        let names: Vec<String> = (0..11).map(|i| format!("f{i}")).collect();
        let entries: Vec<(&str, &[u8])> = names.iter().map(|n| (n.as_str(), &b"x"[..])).collect();
        let m = refusal(unpack(&zip_of(&entries), "b.zip", "f0", d.path(), LIMITS));
        assert!(m.contains("entries"), "{m}");
    }

    #[test]
    fn zip_symlink_is_refused() {
        let d = tempfile::tempdir().expect("tempdir");
        let mut w = zip::ZipWriter::new(io::Cursor::new(Vec::new()));
        w.add_symlink("main.py", "/etc/passwd", zip::write::SimpleFileOptions::default()).expect("link");
        let z = w.finish().expect("finish").into_inner();
        assert!(refusal(unpack(&z, "b.zip", "main.py", d.path(), LIMITS)).contains("symbolic link"));
    }

    #[test]
    fn tar_links_and_traversal_are_refused() {
        let d = tempfile::tempdir().expect("tempdir");
        let t = tar_with(|b| {
            let mut h = tar::Header::new_gnu();
            h.set_entry_type(tar::EntryType::Symlink);
            h.set_size(0);
            b.append_link(&mut h, "main.py", "/etc/passwd").expect("link");
        });
        assert!(refusal(unpack(&t, "b.tar", "main.py", d.path(), LIMITS)).contains("link"));
        let t = tar_with(|b| {
            let mut h = tar::Header::new_gnu();
            h.set_entry_type(tar::EntryType::Link);
            h.set_size(0);
            b.append_link(&mut h, "main.py", "other").expect("hard link");
        });
        assert!(refusal(unpack(&t, "b.tar", "main.py", d.path(), LIMITS)).contains("link"));
        let t = tar_with(|b| tar_file(b, "../../escape.py", b"x"));
        assert!(refusal(unpack(&t, "b.tar", "main.py", d.path(), LIMITS)).contains(".."));
    }

    #[test]
    fn option_and_response_file_names_are_refused() {
        for name in ["@o.cpp", "-wrapper.cpp", "src/-x.cpp", "@dir/a.cpp"] {
            let d = tempfile::tempdir().expect("tempdir");
            let z = zip_of(&[("main.cpp", b"int main(){}"), (name, b"x")]);
            let m = refusal(unpack(&z, "b.zip", "main.cpp", d.path(), LIMITS));
            assert!(m.contains("starts with") && m.contains("rename"), "{name}: {m}");
        }
        let d = tempfile::tempdir().expect("tempdir");
        let t = tar_with(|b| tar_file(b, "@o.cpp", b"x"));
        assert!(refusal(unpack(&t, "b.tar", "main.cpp", d.path(), LIMITS)).contains("starts with"));
        // Inside a name, '-' and '@' are fine.
        let z = zip_of(&[("main.cpp", b"int main(){}"), ("a-b@c.cpp", b"x")]);
        assert_eq!(unpack(&z, "b.zip", "main.cpp", d.path(), LIMITS).expect("ok").files, 2);
    }

    #[test]
    fn a_name_longer_than_the_kernel_takes_is_refused() {
        let d = tempfile::tempdir().expect("tempdir");
        let long = format!("{}.py", "a".repeat(300));
        let z = zip_of(&[("main.py", b"x"), (long.as_str(), b"x")]);
        let m = refusal(unpack(&z, "b.zip", "main.py", d.path(), LIMITS));
        assert!(m.contains("longer than 255 bytes"), "{m}");
        let fits = format!("{}.py", "a".repeat(252));
        let d = tempfile::tempdir().expect("tempdir");
        let z = zip_of(&[("main.py", b"x"), (fits.as_str(), b"x")]);
        assert_eq!(unpack(&z, "b.zip", "main.py", d.path(), LIMITS).expect("255 bytes fit").files, 2);
    }

    #[test]
    fn tar_gz_unpacks_and_needs_main() {
        let d = tempfile::tempdir().expect("tempdir");
        let t = tar_with(|b| tar_file(b, "src/a.cpp", b"int main(){}"));
        let mut gz = flate2::write::GzEncoder::new(Vec::new(), flate2::Compression::fast());
        gz.write_all(&t).expect("gz");
        let gz = gz.finish().expect("gz");
        let m = refusal(unpack(&gz, "b.tgz", "main.cpp", d.path(), LIMITS));
        assert!(m.contains("main.cpp"), "{m}");
    }

    #[test]
    fn garbage_archive_is_reported_as_corrupt() {
        let d = tempfile::tempdir().expect("tempdir");
        let r = unpack(b"this is not a zip", "b.zip", "main.py", d.path(), LIMITS);
        assert!(matches!(r, Err(UploadError::Corrupt { kind: "zip", .. })), "{r:?}");
        assert!(matches!(unpack(b"", "b.py", "main.py", d.path(), LIMITS), Err(UploadError::Refused(_))));
    }
}
