//! HTTPS: the certificate chain and private key named by `--tls-cert` / `--tls-key` (PEM), read
//! into a rustls server configuration with the ring provider. Ring is passed in explicitly rather
//! than installed process-wide: the workspace builds rustls with more than one provider in some
//! builds (the updater's reqwest has none of its own), and a server that picked "the default"
//! would then depend on which crate asked first. Every problem with the files is a typed error
//! naming the file and what is wrong with it, found before the server says it is listening.

use crate::error::ServerError;
use rustls::pki_types::pem::{self, PemObject};
use rustls::pki_types::{CertificateDer, PrivateKeyDer};
use rustls::ServerConfig;
use std::path::{Path, PathBuf};
use std::sync::Arc;

/// The two PEM files given on the command line.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct TlsFiles {
    pub certificate: PathBuf,
    pub key: PathBuf,
}

/// Which of the two files a problem is in, for the message.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum TlsFileRole {
    Certificate,
    Key,
}

impl std::fmt::Display for TlsFileRole {
    fn fmt(&self, formatter: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        formatter.write_str(match self {
            Self::Certificate => "certificate file (--tls-cert)",
            Self::Key => "private key file (--tls-key)",
        })
    }
}

/// What is wrong with one of the files.
#[derive(Debug, thiserror::Error)]
pub enum TlsFileProblem {
    #[error("cannot read it: {0}")]
    Unreadable(std::io::Error),
    #[error("it holds no PEM certificate (a \"-----BEGIN CERTIFICATE-----\" block)")]
    NoCertificate,
    #[error(
        "it holds no PEM private key (a \"-----BEGIN PRIVATE KEY-----\", \"RSA PRIVATE KEY\" or \
         \"EC PRIVATE KEY\" block)"
    )]
    NoPrivateKey,
    #[error("it is not valid PEM: {0}")]
    Malformed(String),
    #[error("the key does not fit the certificate, or rustls cannot use it: {0}")]
    Rejected(String),
}

/// Reads both files and builds the server configuration (HTTP/1.1 only, as the server speaks).
pub fn load(files: &TlsFiles) -> Result<Arc<ServerConfig>, ServerError> {
    let certificates = read_certificates(&files.certificate)?;
    let key = read_key(&files.key)?;
    let provider = Arc::new(rustls::crypto::ring::default_provider());
    let rejected = |error: rustls::Error| ServerError::TlsFile {
        role: TlsFileRole::Key,
        path: files.key.clone(),
        problem: TlsFileProblem::Rejected(error.to_string()),
    };
    let mut configuration = ServerConfig::builder_with_provider(provider)
        .with_safe_default_protocol_versions()
        .map_err(rejected)?
        .with_no_client_auth()
        .with_single_cert(certificates, key)
        .map_err(rejected)?;
    configuration.alpn_protocols = vec![b"http/1.1".to_vec()];
    Ok(Arc::new(configuration))
}

fn read_certificates(path: &Path) -> Result<Vec<CertificateDer<'static>>, ServerError> {
    let problem = |problem| ServerError::TlsFile {
        role: TlsFileRole::Certificate,
        path: path.to_path_buf(),
        problem,
    };
    let text = std::fs::read(path).map_err(|error| problem(TlsFileProblem::Unreadable(error)))?;
    let certificates = CertificateDer::pem_slice_iter(&text)
        .collect::<Result<Vec<_>, _>>()
        .map_err(|error| problem(pem_problem(error, TlsFileProblem::NoCertificate)))?;
    if certificates.is_empty() {
        return Err(problem(TlsFileProblem::NoCertificate));
    }
    Ok(certificates)
}

fn read_key(path: &Path) -> Result<PrivateKeyDer<'static>, ServerError> {
    let problem = |problem| ServerError::TlsFile {
        role: TlsFileRole::Key,
        path: path.to_path_buf(),
        problem,
    };
    let text = std::fs::read(path).map_err(|error| problem(TlsFileProblem::Unreadable(error)))?;
    PrivateKeyDer::from_pem_slice(&text)
        .map_err(|error| problem(pem_problem(error, TlsFileProblem::NoPrivateKey)))
}

fn pem_problem(error: pem::Error, when_empty: TlsFileProblem) -> TlsFileProblem {
    match error {
        pem::Error::NoItemsFound => when_empty,
        other => TlsFileProblem::Malformed(other.to_string()),
    }
}

#[cfg(test)]
#[allow(clippy::unwrap_used)] // a failing unwrap is the test's report
mod tests {
    use super::*;

    fn files(folder: &Path, certificate: &str, key: &str) -> TlsFiles {
        let certificate_path = folder.join("cert.pem");
        let key_path = folder.join("key.pem");
        std::fs::write(&certificate_path, certificate).unwrap();
        std::fs::write(&key_path, key).unwrap();
        TlsFiles {
            certificate: certificate_path,
            key: key_path,
        }
    }

    fn made_certificate() -> rcgen::CertifiedKey<rcgen::KeyPair> {
        rcgen::generate_simple_self_signed(vec!["localhost".to_string()]).unwrap()
    }

    #[test]
    fn a_matching_certificate_and_key_load() {
        let folder = tempfile::tempdir().unwrap();
        let made = made_certificate();
        let configuration = load(&files(
            folder.path(),
            &made.cert.pem(),
            &made.signing_key.serialize_pem(),
        ))
        .unwrap();
        assert_eq!(configuration.alpn_protocols, [b"http/1.1".to_vec()]);
    }

    #[test]
    fn each_bad_file_is_named_with_its_problem() {
        let folder = tempfile::tempdir().unwrap();
        let made = made_certificate();
        let other = made_certificate();
        let certificate = made.cert.pem();
        let key = made.signing_key.serialize_pem();
        let cases: [(&str, &str, TlsFileRole, &str); 5] = [
            ("", &key, TlsFileRole::Certificate, "no PEM certificate"),
            (&key, &key, TlsFileRole::Certificate, "no PEM certificate"),
            (
                &certificate,
                &certificate,
                TlsFileRole::Key,
                "no PEM private key",
            ),
            (
                "-----BEGIN CERTIFICATE-----\n!!!\n-----END CERTIFICATE-----\n",
                &key,
                TlsFileRole::Certificate,
                "not valid PEM",
            ),
            (
                &certificate,
                &other.signing_key.serialize_pem(),
                TlsFileRole::Key,
                "does not fit the certificate",
            ),
        ];
        for (certificate, key, role, expected) in cases {
            let files = files(folder.path(), certificate, key);
            let error = load(&files).unwrap_err();
            let ServerError::TlsFile {
                role: found_role,
                path,
                ..
            } = &error
            else {
                panic!("not a TLS file error: {error}");
            };
            assert_eq!(*found_role, role, "{error}");
            let expected_path = match role {
                TlsFileRole::Certificate => &files.certificate,
                TlsFileRole::Key => &files.key,
            };
            assert_eq!(path, expected_path);
            let message = error.to_string();
            assert!(message.contains(expected), "{message}");
            assert!(
                message.contains(&expected_path.display().to_string()),
                "{message}"
            );
        }
    }

    #[test]
    fn a_missing_file_is_unreadable_not_a_panic() {
        let folder = tempfile::tempdir().unwrap();
        let error = load(&TlsFiles {
            certificate: folder.path().join("absent.pem"),
            key: folder.path().join("absent-key.pem"),
        })
        .unwrap_err();
        let message = error.to_string();
        assert!(message.contains("absent.pem"), "{message}");
        assert!(message.contains("cannot read it"), "{message}");
    }
}
