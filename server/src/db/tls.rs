//! TLS to PostgreSQL. A `postgres://` URL asks for it the way libpq's do:
//!
//! - `sslmode=require` (or libpq's `verify-ca`, `verify-full`): TLS, with the server's
//!   certificate **verified** and its host name checked — stricter than libpq's `require`,
//!   which verifies nothing: a database that any machine on the path could impersonate is not
//!   one the server should write results to.
//! - `sslrootcert=PATH`: the PEM file of the certificate authorities to trust (a private CA,
//!   as managed databases and Kubernetes operators issue); without it, the public roots
//!   (Mozilla's, from `webpki-roots`).
//! - anything else (`disable`, `prefer`, no `sslmode`): no TLS, for a database on the same
//!   machine or a private network. `prefer` therefore never encrypts: say `require`.
//!
//! The rest of the URL goes to the `postgres` crate unchanged.

use std::str::FromStr;
use std::sync::Arc;

use postgres::config::SslMode;
use rustls::pki_types::CertificateDer;
use rustls::pki_types::pem::PemObject;
use tokio_postgres_rustls::MakeRustlsConnect;

use super::conn::{DbError, DbResult};

/// A parsed `postgres://` URL: the client's settings, and the TLS to use if it asks for it.
pub struct PgTarget {
    /// The settings for the `postgres` crate (without the parameters only this module reads).
    pub config: postgres::Config,
    /// The TLS connector, when the URL asks for TLS.
    pub tls: Option<MakeRustlsConnect>,
}

/// The URL without the parameters the `postgres` crate does not know, and what they said.
struct Split {
    url: String,
    root_cert: Option<String>,
    verify: bool,
}

/// Takes `sslrootcert` out of the URL's query and turns libpq's `verify-ca` and
/// `verify-full` into `require` (which this module always verifies).
fn split(url: &str) -> Split {
    let Some((base, query)) = url.split_once('?') else {
        return Split { url: url.to_owned(), root_cert: None, verify: false };
    };
    let (mut kept, mut root_cert, mut verify) = (Vec::new(), None, false);
    for pair in query.split('&').filter(|p| !p.is_empty()) {
        match pair.split_once('=') {
            Some(("sslrootcert", path)) => {
                root_cert = Some(percent_encoding::percent_decode_str(path).decode_utf8_lossy().into_owned());
            }
            Some(("sslmode", "verify-ca" | "verify-full")) => {
                verify = true;
                kept.push("sslmode=require".to_owned());
            }
            _ => kept.push(pair.to_owned()),
        }
    }
    let url = if kept.is_empty() { base.to_owned() } else { format!("{base}?{}", kept.join("&")) };
    Split { url, root_cert, verify }
}

/// Parses a `postgres://` URL (see the module's documentation for its TLS parameters).
pub fn target(url: &str) -> DbResult<PgTarget> {
    let split = split(url);
    let config = postgres::Config::from_str(&split.url)
        .map_err(|e| DbError::Value(format!("invalid PostgreSQL URL: {e}")))?;
    let wants_tls = split.verify || config.get_ssl_mode() == SslMode::Require;
    if !wants_tls {
        if split.root_cert.is_some() {
            return Err(DbError::Value(
                "invalid PostgreSQL URL: sslrootcert is given but not sslmode=require (or verify-full): \
                 say sslmode=require to use TLS"
                    .into(),
            ));
        }
        return Ok(PgTarget { config, tls: None });
    }
    let roots = match &split.root_cert {
        Some(path) => roots_from(path)?,
        None => rustls::RootCertStore { roots: webpki_roots::TLS_SERVER_ROOTS.to_vec() },
    };
    let provider = Arc::new(rustls::crypto::ring::default_provider());
    let tls = rustls::ClientConfig::builder_with_provider(provider)
        .with_safe_default_protocol_versions()
        .map_err(|e| DbError::Value(format!("cannot set up TLS: {e}")))?
        .with_root_certificates(roots)
        .with_no_client_auth();
    Ok(PgTarget { config, tls: Some(MakeRustlsConnect::new(tls)) })
}

/// The certificate authorities of a PEM file.
fn roots_from(path: &str) -> DbResult<rustls::RootCertStore> {
    let certs: Vec<CertificateDer<'static>> = CertificateDer::pem_file_iter(path)
        .and_then(Iterator::collect)
        .map_err(|e| DbError::Value(format!("cannot read the certificates of sslrootcert={path}: {e}")))?;
    if certs.is_empty() {
        return Err(DbError::Value(format!("sslrootcert={path} holds no PEM certificate")));
    }
    let mut roots = rustls::RootCertStore::empty();
    let (_, refused) = roots.add_parsable_certificates(certs);
    if roots.is_empty() {
        return Err(DbError::Value(format!(
            "sslrootcert={path}: none of its {refused} certificates can be used as an authority"
        )));
    }
    Ok(roots)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn the_parameters_of_this_module_are_taken_out_of_the_url() {
        let s = split(
            "postgres://u@db:5432/arena?sslmode=verify-full&sslrootcert=%2Fetc%2Fca.pem&connect_timeout=5",
        );
        assert_eq!(s.url, "postgres://u@db:5432/arena?sslmode=require&connect_timeout=5");
        assert_eq!(s.root_cert.as_deref(), Some("/etc/ca.pem"));
        assert!(s.verify);
        let plain = split("postgres://u@db/arena");
        assert_eq!(
            (plain.url.as_str(), plain.root_cert, plain.verify),
            ("postgres://u@db/arena", None, false)
        );
    }

    #[test]
    fn tls_only_when_asked() {
        assert!(target("postgres://u@db/arena").expect("a URL").tls.is_none());
        assert!(target("postgres://u@db/arena?sslmode=prefer").expect("a URL").tls.is_none());
        assert!(target("postgres://u@db/arena?sslmode=require").expect("a URL").tls.is_some());
        assert!(target("postgres://u@db/arena?sslmode=verify-ca").expect("a URL").tls.is_some());
    }

    #[test]
    fn bad_tls_parameters_are_named() {
        let err = |url: &str| target(url).err().map(|e| e.to_string()).unwrap_or_default();
        assert!(
            err("postgres://u@db/a?sslrootcert=/x.pem")
                .contains("sslrootcert is given but not sslmode=require")
        );
        let missing = err("postgres://u@db/a?sslmode=require&sslrootcert=/nonexistent/ca.pem");
        assert!(missing.contains("sslrootcert=/nonexistent/ca.pem"), "{missing}");
        let dir = tempfile::tempdir().expect("a temporary folder");
        let empty = dir.path().join("empty.pem");
        std::fs::write(&empty, "not a certificate\n").expect("written");
        let none = err(&format!("postgres://u@db/a?sslmode=require&sslrootcert={}", empty.display()));
        assert!(none.contains("holds no PEM certificate"), "{none}");
        assert!(err("postgres://u@db/a?sslmode=sometimes").contains("invalid PostgreSQL URL"));
    }
}
