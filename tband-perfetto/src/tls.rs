//! The certificate `--serve` presents on its HTTPS port: one made for
//! 127.0.0.1 and localhost and kept in the user's data directory, so that
//! a browser told once to trust it goes on trusting it; or one the user
//! gives.

use std::fs;
use std::io;
use std::path::{Path, PathBuf};
use std::sync::Arc;
use std::time::{Duration, SystemTime};

use rcgen::{CertificateParams, DistinguishedName, DnType, ExtendedKeyUsagePurpose, KeyPair};
use rustls::pki_types::pem::PemObject;
use rustls::pki_types::{CertificateDer, PrivateKeyDer};
use rustls::ServerConfig;

/// The names the made certificate is for.
const NAMES: [&str; 2] = ["127.0.0.1", "localhost"];

/// How long a made certificate is valid: the most macOS accepts of a
/// server certificate, trusted by its user or not.
const VALID_DAYS: i64 = 825;

/// A made certificate older than this is made again before it expires.
const RENEW_AFTER: Duration = Duration::from_secs(800 * 24 * 3600);

/// A certificate and its key, ready to serve.
pub struct Tls {
    pub config: Arc<ServerConfig>,
    /// The certificate's PEM file (what a user adds to a trust store).
    pub cert: PathBuf,
    /// Whether the certificate was made by this run, so the user has not
    /// been told yet how to trust it.
    pub made: bool,
}

/// The certificate kept in the data directory, made first if there is
/// none there yet or it is about to expire.
pub fn kept() -> Result<Tls, String> {
    let dir = dirs::data_dir().map(|d| d.join("tband")).ok_or(
        "no data directory to keep a certificate in: give one with --tls-cert and --tls-key",
    )?;
    let (cert, key) = (dir.join("localhost.pem"), dir.join("localhost-key.pem"));
    let made = !is_fresh(&cert) || !key.is_file();
    if made {
        make(&cert, &key).map_err(|e| {
            format!(
                "cannot make a certificate in {}: {e} (or give one with --tls-cert and --tls-key)",
                dir.display()
            )
        })?;
    }
    Ok(Tls {
        config: config(&cert, &key)?,
        cert,
        made,
    })
}

/// A certificate and key the user gives (PEM files).
pub fn given(cert: &Path, key: &Path) -> Result<Tls, String> {
    Ok(Tls {
        config: config(cert, key)?,
        cert: cert.to_path_buf(),
        made: false,
    })
}

fn is_fresh(cert: &Path) -> bool {
    fs::metadata(cert)
        .and_then(|m| m.modified())
        .is_ok_and(|made| SystemTime::now().duration_since(made).unwrap_or_default() < RENEW_AFTER)
}

/// Makes a self-signed certificate for [`NAMES`] and writes it and its key.
fn make(cert: &Path, key: &Path) -> Result<(), String> {
    let mut params =
        CertificateParams::new(NAMES.map(String::from).to_vec()).map_err(|e| e.to_string())?;
    let mut name = DistinguishedName::new();
    name.push(DnType::CommonName, "tband-perfetto --serve (127.0.0.1)");
    params.distinguished_name = name;
    params.extended_key_usages = vec![ExtendedKeyUsagePurpose::ServerAuth];
    let now = time::OffsetDateTime::now_utc();
    params.not_before = now - time::Duration::days(1);
    params.not_after = now + time::Duration::days(VALID_DAYS);
    let key_pair = KeyPair::generate().map_err(|e| e.to_string())?;
    let certificate = params.self_signed(&key_pair).map_err(|e| e.to_string())?;
    if let Some(dir) = cert.parent() {
        fs::create_dir_all(dir).map_err(|e| e.to_string())?;
    }
    // The key is the user's alone.
    write_whole(key, key_pair.serialize_pem().as_bytes(), 0o600).map_err(|e| e.to_string())?;
    write_whole(cert, certificate.pem().as_bytes(), 0o644).map_err(|e| e.to_string())
}

/// Writes `path` whole or not at all (another run reading it meanwhile
/// sees the old file or the new one), with the Unix permissions `mode`.
fn write_whole(path: &Path, bytes: &[u8], mode: u32) -> io::Result<()> {
    let temporary = path.with_extension(format!("{}.tmp", std::process::id()));
    let mut options = fs::OpenOptions::new();
    options.write(true).create(true).truncate(true);
    #[cfg(unix)]
    std::os::unix::fs::OpenOptionsExt::mode(&mut options, mode);
    #[cfg(not(unix))]
    let _ = mode;
    io::Write::write_all(&mut options.open(&temporary)?, bytes)?;
    fs::rename(&temporary, path)
}

fn config(cert: &Path, key: &Path) -> Result<Arc<ServerConfig>, String> {
    let unreadable = |path: &Path, e: &dyn std::fmt::Display| {
        format!(
            "cannot read the TLS certificate or key {}: {e}",
            path.display()
        )
    };
    let chain: Vec<CertificateDer<'static>> = CertificateDer::pem_file_iter(cert)
        .and_then(|certs| certs.collect())
        .map_err(|e| unreadable(cert, &e))?;
    if chain.is_empty() {
        return Err(unreadable(cert, &"no certificate in it"));
    }
    let key = PrivateKeyDer::from_pem_file(key).map_err(|e| unreadable(key, &e))?;
    let provider = Arc::new(rustls::crypto::ring::default_provider());
    ServerConfig::builder_with_provider(provider)
        .with_safe_default_protocol_versions()
        .and_then(|b| b.with_no_client_auth().with_single_cert(chain, key))
        .map(Arc::new)
        .map_err(|e| format!("cannot use the certificate {}: {e}", cert.display()))
}
