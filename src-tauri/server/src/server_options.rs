//! How the server is started: the command line (the same `--hostname` / `--port` flags as
//! `opencode serve`, plus Dossier's `--ui`, `--allowed-host` and `--allowed-origin`), what the
//! environment adds (the password from `DOSSIER_SERVER_PASSWORD`, more allowed hosts and
//! origins), and the rules for any address but loopback: it is served only over TLS
//! (`--tls-cert`/`--tls-key`) or behind a proxy that terminates TLS (`--behind-proxy`, said out
//! loud), and only with a password or an access token to check requests against.

use crate::database_choice::{DatabaseUrl, DATABASE_URL_VARIABLE};
use crate::error::ServerError;
use crate::request_origin::{parse_allowed_host, parse_origin, AllowedHost, WebOrigin};
use crate::tls_configuration::TlsFiles;
use std::net::IpAddr;
use std::time::Duration;

pub const DEFAULT_HOSTNAME: &str = "127.0.0.1";
pub const DEFAULT_PORT: u16 = 4096;
pub const PASSWORD_VARIABLE: &str = "DOSSIER_SERVER_PASSWORD";
/// Comma-separated `NAME[:PORT]`s, added to the `--allowed-host` flags.
pub const ALLOWED_HOSTS_VARIABLE: &str = "DOSSIER_ALLOWED_HOSTS";
/// Comma-separated origins, added to the `--allowed-origin` flags.
pub const ALLOWED_ORIGINS_VARIABLE: &str = "DOSSIER_ALLOWED_ORIGINS";
/// The PEM certificate chain and key when `--tls-cert` / `--tls-key` are not given: a service
/// manager or a container passes paths by environment more easily than by flags.
pub const TLS_CERTIFICATE_VARIABLE: &str = "DOSSIER_TLS_CERT";
pub const TLS_KEY_VARIABLE: &str = "DOSSIER_TLS_KEY";
pub const HEARTBEAT_INTERVAL: Duration = Duration::from_secs(10);
/// Prompts carry attachments as `data:` URLs; OpenCode accepts large bodies, so do we.
pub const BODY_LIMIT: usize = 64 * 1024 * 1024;

#[derive(Debug, Clone, PartialEq, Eq)]
pub struct ServerOptions {
    pub hostname: String,
    pub port: u16,
    /// When set, every request needs HTTP Basic (user `dossier`) or `Bearer <password>`.
    pub password: Option<String>,
    /// How often `GET /event` sends `server.heartbeat`; tests shorten it.
    pub heartbeat: Duration,
    /// The largest request body accepted, in bytes; larger ones get 413.
    pub body_limit: usize,
    /// The built web UI served at `/` (`--ui <folder>`); none means API only.
    pub ui_directory: Option<std::path::PathBuf>,
    /// Names served besides the loopback ones and the bound address (`--allowed-host`).
    pub allowed_hosts: Vec<AllowedHost>,
    /// Web pages trusted besides the server's own (`--allowed-origin`).
    pub allowed_origins: Vec<WebOrigin>,
    /// Serve HTTPS with this PEM certificate chain and key (`--tls-cert`, `--tls-key`).
    pub tls: Option<TlsFiles>,
    /// Plain HTTP on a non-loopback address because a proxy in front terminates TLS
    /// (`--behind-proxy`); the operator's statement, since the server cannot see the proxy.
    pub behind_proxy: bool,
    /// The PostgreSQL database to keep the ledger in (`--database`, `DOSSIER_DATABASE_URL`)
    /// instead of the SQLite file in the data folder.
    pub database: Option<DatabaseUrl>,
    /// The folder whose `*.gguf` files are served as models of provider `local`
    /// (`--models-dir`); the data folder's `models/` when absent.
    pub models_dir: Option<std::path::PathBuf>,
}

/// What start-up reads from the environment, read once by `main` so that parsing stays a pure
/// function of its inputs.
#[derive(Debug, Clone, Default)]
pub struct StartEnvironment {
    pub password: Option<String>,
    pub allowed_hosts: Option<String>,
    pub allowed_origins: Option<String>,
    pub tls_certificate: Option<String>,
    pub tls_key: Option<String>,
    pub database_url: Option<String>,
}

impl StartEnvironment {
    pub fn read() -> Self {
        Self {
            password: std::env::var(PASSWORD_VARIABLE).ok(),
            allowed_hosts: std::env::var(ALLOWED_HOSTS_VARIABLE).ok(),
            allowed_origins: std::env::var(ALLOWED_ORIGINS_VARIABLE).ok(),
            tls_certificate: std::env::var(TLS_CERTIFICATE_VARIABLE).ok(),
            tls_key: std::env::var(TLS_KEY_VARIABLE).ok(),
            database_url: std::env::var(DATABASE_URL_VARIABLE).ok(),
        }
    }
}

impl Default for ServerOptions {
    fn default() -> Self {
        Self {
            hostname: DEFAULT_HOSTNAME.into(),
            port: DEFAULT_PORT,
            password: None,
            heartbeat: HEARTBEAT_INTERVAL,
            body_limit: BODY_LIMIT,
            ui_directory: None,
            allowed_hosts: Vec::new(),
            allowed_origins: Vec::new(),
            tls: None,
            behind_proxy: false,
            database: None,
            models_dir: None,
        }
    }
}

impl ServerOptions {
    /// Reads the flags (without the program name) and what the environment adds.
    pub fn from_arguments(
        arguments: impl IntoIterator<Item = String>,
        environment: StartEnvironment,
    ) -> Result<Self, ServerError> {
        let mut options = Self {
            password: environment.password.filter(|password| !password.is_empty()),
            ..Self::default()
        };
        for host in list_items(environment.allowed_hosts.as_deref()) {
            options
                .allowed_hosts
                .push(allowed_host(ALLOWED_HOSTS_VARIABLE, host)?);
        }
        for origin in list_items(environment.allowed_origins.as_deref()) {
            options
                .allowed_origins
                .push(allowed_origin(ALLOWED_ORIGINS_VARIABLE, origin)?);
        }
        // A flag replaces its variable; an empty variable counts as unset.
        let mut tls_certificate: Option<std::path::PathBuf> = environment
            .tls_certificate
            .filter(|path| !path.is_empty())
            .map(Into::into);
        let mut tls_key: Option<std::path::PathBuf> = environment
            .tls_key
            .filter(|path| !path.is_empty())
            .map(Into::into);
        options.database = match environment.database_url.as_deref().map(str::trim) {
            Some(text) if !text.is_empty() => {
                Some(DatabaseUrl::parse(DATABASE_URL_VARIABLE, text)?)
            }
            _ => None,
        };
        let mut arguments = arguments.into_iter();
        while let Some(argument) = arguments.next() {
            let (flag, inline_value) = match argument.split_once('=') {
                Some((flag, value)) => (flag.to_string(), Some(value.to_string())),
                None => (argument.clone(), None),
            };
            let mut value = |name: &str| {
                inline_value
                    .clone()
                    .or_else(|| arguments.next())
                    .ok_or_else(|| ServerError::BadArgument(format!("{name} needs a value")))
            };
            match flag.as_str() {
                "--hostname" => options.hostname = value("--hostname")?,
                "--port" => {
                    let text = value("--port")?;
                    options.port = text.parse().map_err(|_| {
                        ServerError::BadArgument(format!(
                            "--port must be a number from 0 to 65535, not \"{text}\""
                        ))
                    })?;
                }
                "--ui" => options.ui_directory = Some(value("--ui")?.into()),
                "--allowed-host" => {
                    let text = value("--allowed-host")?;
                    options
                        .allowed_hosts
                        .push(allowed_host("--allowed-host", &text)?);
                }
                "--allowed-origin" => {
                    let text = value("--allowed-origin")?;
                    options
                        .allowed_origins
                        .push(allowed_origin("--allowed-origin", &text)?);
                }
                "--tls-cert" => tls_certificate = Some(value("--tls-cert")?.into()),
                "--tls-key" => tls_key = Some(value("--tls-key")?.into()),
                "--behind-proxy" if inline_value.is_none() => options.behind_proxy = true,
                "--database" => {
                    options.database =
                        Some(DatabaseUrl::parse("--database", &value("--database")?)?)
                }
                "--models-dir" => options.models_dir = Some(value("--models-dir")?.into()),
                "--help" | "-h" => return Err(ServerError::HelpRequested),
                _ => {
                    return Err(ServerError::BadArgument(format!(
                        "unknown argument \"{argument}\""
                    )))
                }
            }
        }
        options.tls =
            match (tls_certificate, tls_key) {
                (Some(certificate), Some(key)) => Some(TlsFiles { certificate, key }),
                (None, None) => None,
                (Some(_), None) => return Err(ServerError::BadArgument(
                    "--tls-cert (or $DOSSIER_TLS_CERT) needs --tls-key (or $DOSSIER_TLS_KEY): the \
                     certificate's private key, PEM"
                        .into(),
                )),
                (None, Some(_)) => return Err(ServerError::BadArgument(
                    "--tls-key (or $DOSSIER_TLS_KEY) needs --tls-cert (or $DOSSIER_TLS_CERT): the \
                     certificate chain, PEM"
                        .into(),
                )),
            };
        options.check_exposure()?;
        Ok(options)
    }

    /// Only loopback may be served over plain HTTP (unless a proxy in front adds TLS): on a
    /// network, anyone on the path could read the password, the tokens and every session.
    pub fn check_exposure(&self) -> Result<(), ServerError> {
        if is_loopback(&self.hostname) {
            return Ok(());
        }
        if self.tls.is_none() && !self.behind_proxy {
            return Err(ServerError::TlsRequired {
                hostname: self.hostname.clone(),
            });
        }
        Ok(())
    }

    /// Beyond loopback, someone must be able to prove who they are: a password or at least
    /// one access token (`tokens_exist`, known once the ledger is open). Without either the
    /// server would refuse every request, or, before tokens, serve anyone.
    pub fn check_credentials(&self, tokens_exist: bool) -> Result<(), ServerError> {
        if !is_loopback(&self.hostname) && self.password.is_none() && !tokens_exist {
            return Err(ServerError::PasswordRequired {
                hostname: self.hostname.clone(),
            });
        }
        Ok(())
    }
}

/// The items of a comma-separated variable, blanks skipped.
fn list_items(text: Option<&str>) -> impl Iterator<Item = &str> {
    text.into_iter()
        .flat_map(|text| text.split(','))
        .map(str::trim)
        .filter(|item| !item.is_empty())
}

fn allowed_host(source: &str, text: &str) -> Result<AllowedHost, ServerError> {
    parse_allowed_host(text).ok_or_else(|| {
        ServerError::BadArgument(format!(
            "{source}: \"{text}\" is not a host name with an optional :port, such as \
             dossier.example.org or box.lan:4096"
        ))
    })
}

fn allowed_origin(source: &str, text: &str) -> Result<WebOrigin, ServerError> {
    parse_origin(text.trim().trim_end_matches('/')).ok_or_else(|| {
        ServerError::BadArgument(format!(
            "{source}: \"{text}\" is not an origin such as https://dossier.example.org or \
             http://localhost:5173"
        ))
    })
}

pub fn is_loopback(hostname: &str) -> bool {
    let bare = hostname.trim_start_matches('[').trim_end_matches(']');
    bare.eq_ignore_ascii_case("localhost")
        || bare
            .parse::<IpAddr>()
            .is_ok_and(|address| address.is_loopback())
}

#[cfg(test)]
#[allow(clippy::unwrap_used)] // a failing unwrap is the test's report
mod tests {
    use super::*;

    fn parse(arguments: &[&str], password: Option<&str>) -> Result<ServerOptions, ServerError> {
        ServerOptions::from_arguments(
            arguments.iter().map(|argument| argument.to_string()),
            StartEnvironment {
                password: password.map(str::to_string),
                ..StartEnvironment::default()
            },
        )
    }

    #[test]
    fn defaults_to_loopback_on_4096() {
        let options = parse(&[], None).unwrap();
        assert_eq!(options.hostname, "127.0.0.1");
        assert_eq!(options.port, 4096);
        assert_eq!(options.password, None);
        assert_eq!(options.heartbeat, Duration::from_secs(10));
    }

    #[test]
    fn reads_flags_with_spaces_or_equals() {
        let options = parse(&["--hostname", "::1", "--port=0"], None).unwrap();
        assert_eq!(options.hostname, "::1");
        assert_eq!(options.port, 0);
        assert_eq!(options.models_dir, None);
        let options = parse(&["--models-dir", "/srv/models"], None).unwrap();
        assert_eq!(options.models_dir, Some("/srv/models".into()));
    }

    #[test]
    fn loopback_names_are_recognised() {
        for (hostname, loopback) in [
            ("127.0.0.1", true),
            ("127.1.2.3", true),
            ("localhost", true),
            ("::1", true),
            ("[::1]", true),
            ("0.0.0.0", false),
            ("192.168.1.4", false),
            ("example.org", false),
        ] {
            assert_eq!(is_loopback(hostname), loopback, "{hostname}");
        }
    }

    #[test]
    fn non_loopback_hostname_over_plain_http_is_refused() {
        let error = parse(&["--hostname", "0.0.0.0"], Some("secret")).unwrap_err();
        assert!(
            matches!(&error, ServerError::TlsRequired { hostname } if hostname == "0.0.0.0"),
            "{error}"
        );
        assert!(error.to_string().contains("--tls-cert"), "{error}");
        assert!(error.to_string().contains("--behind-proxy"), "{error}");
    }

    #[test]
    fn non_loopback_hostname_without_password_or_tokens_is_refused() {
        let options = parse(&["--hostname", "0.0.0.0", "--behind-proxy"], None).unwrap();
        let error = options.check_credentials(false).unwrap_err();
        assert!(
            matches!(&error, ServerError::PasswordRequired { hostname } if hostname == "0.0.0.0"),
            "{error}"
        );
        assert!(error.to_string().contains(PASSWORD_VARIABLE));
        assert!(error.to_string().contains("token create"), "{error}");
    }

    #[test]
    fn credentials_are_needed_beyond_loopback_only() {
        for (hostname, password, tokens_exist, accepted) in [
            ("127.0.0.1", None, false, true),
            ("::1", None, false, true),
            ("0.0.0.0", None, false, false),
            ("0.0.0.0", None, true, true),
            ("0.0.0.0", Some("secret"), false, true),
            ("192.168.1.4", None, false, false),
        ] {
            let options = ServerOptions {
                hostname: hostname.into(),
                password: password.map(str::to_string),
                behind_proxy: true,
                ..ServerOptions::default()
            };
            assert_eq!(
                options.check_credentials(tokens_exist).is_ok(),
                accepted,
                "{hostname} {password:?} {tokens_exist}"
            );
        }
    }

    #[test]
    fn non_loopback_hostname_with_password_and_tls_or_a_proxy_is_accepted() {
        let options = parse(&["--hostname", "0.0.0.0", "--behind-proxy"], Some("secret")).unwrap();
        assert_eq!(options.password.as_deref(), Some("secret"));
        assert!(options.behind_proxy);
        assert_eq!(options.tls, None);
        let options = parse(
            &[
                "--hostname=192.168.1.4",
                "--tls-cert",
                "/etc/dossier/cert.pem",
                "--tls-key=/etc/dossier/key.pem",
            ],
            Some("secret"),
        )
        .unwrap();
        assert_eq!(
            options.tls,
            Some(TlsFiles {
                certificate: "/etc/dossier/cert.pem".into(),
                key: "/etc/dossier/key.pem".into(),
            })
        );
        assert!(!options.behind_proxy);
    }

    #[test]
    fn tls_paths_come_from_the_environment_and_flags_replace_them() {
        let environment = |certificate: &str, key: &str| StartEnvironment {
            password: Some("secret".into()),
            tls_certificate: Some(certificate.into()),
            tls_key: Some(key.into()),
            ..StartEnvironment::default()
        };
        let options = ServerOptions::from_arguments(
            ["--hostname", "0.0.0.0"].map(str::to_string),
            environment("/etc/dossier/cert.pem", "/etc/dossier/key.pem"),
        )
        .unwrap();
        assert_eq!(
            options.tls,
            Some(TlsFiles {
                certificate: "/etc/dossier/cert.pem".into(),
                key: "/etc/dossier/key.pem".into(),
            })
        );
        let options = ServerOptions::from_arguments(
            ["--tls-cert", "flag.pem"].map(str::to_string),
            environment("/etc/dossier/cert.pem", "/etc/dossier/key.pem"),
        )
        .unwrap();
        assert_eq!(
            options.tls.map(|files| (files.certificate, files.key)),
            Some(("flag.pem".into(), "/etc/dossier/key.pem".into()))
        );
        let error = ServerOptions::from_arguments(
            Vec::<String>::new(),
            environment("/etc/dossier/cert.pem", ""),
        )
        .unwrap_err();
        assert!(error.to_string().contains("needs --tls-key"), "{error}");
    }

    #[test]
    fn tls_on_loopback_needs_no_password() {
        let options = parse(&["--tls-cert", "c.pem", "--tls-key", "k.pem"], None).unwrap();
        assert!(options.tls.is_some());
    }

    #[test]
    fn a_certificate_without_its_key_or_a_valued_proxy_flag_is_refused() {
        let error = parse(&["--tls-cert", "c.pem"], None).unwrap_err();
        assert!(error.to_string().contains("needs --tls-key"), "{error}");
        let error = parse(&["--tls-key", "k.pem"], None).unwrap_err();
        assert!(error.to_string().contains("needs --tls-cert"), "{error}");
        let error = parse(&["--behind-proxy=yes"], None).unwrap_err();
        assert!(error.to_string().contains("--behind-proxy=yes"), "{error}");
    }

    #[test]
    fn empty_password_counts_as_none() {
        let options = parse(&["--hostname", "0.0.0.0", "--behind-proxy"], Some("")).unwrap();
        assert_eq!(options.password, None);
        assert!(matches!(
            options.check_credentials(false),
            Err(ServerError::PasswordRequired { .. })
        ));
    }

    #[test]
    fn bad_port_and_unknown_flag_say_what_is_wrong() {
        let error = parse(&["--port", "http"], None).unwrap_err();
        assert!(error.to_string().contains("\"http\""), "{error}");
        let error = parse(&["--verbose"], None).unwrap_err();
        assert!(error.to_string().contains("--verbose"), "{error}");
        let error = parse(&["--port"], None).unwrap_err();
        assert!(error.to_string().contains("needs a value"), "{error}");
    }

    #[test]
    fn allowed_hosts_and_origins_come_from_flags_and_the_environment() {
        let options = ServerOptions::from_arguments(
            [
                "--allowed-host",
                "Dossier.Example.org",
                "--allowed-host=box.lan:4096",
                "--allowed-origin",
                "https://dossier.example.org/",
            ]
            .map(str::to_string),
            StartEnvironment {
                password: None,
                allowed_hosts: Some(" [::2]:80 , ,proxy ".into()),
                allowed_origins: Some("http://localhost:5173".into()),
                ..StartEnvironment::default()
            },
        )
        .unwrap();
        let hosts: Vec<(&str, Option<u16>)> = options
            .allowed_hosts
            .iter()
            .map(|host| (host.name.as_str(), host.port))
            .collect();
        assert_eq!(
            hosts,
            [
                ("[::2]", Some(80)),
                ("proxy", None),
                ("dossier.example.org", None),
                ("box.lan", Some(4096)),
            ]
        );
        let origins: Vec<String> = options
            .allowed_origins
            .iter()
            .map(ToString::to_string)
            .collect();
        assert_eq!(
            origins,
            ["http://localhost:5173", "https://dossier.example.org:443"]
        );
    }

    #[test]
    fn malformed_allowed_hosts_and_origins_are_refused_at_start_up() {
        for arguments in [
            ["--allowed-host", "http://box.lan"],
            ["--allowed-host", "box.lan:http"],
            ["--allowed-host", ""],
            ["--allowed-origin", "box.lan"],
            ["--allowed-origin", "null"],
            ["--allowed-origin", "https://box.lan/app"],
            ["--allowed-origin", "file:///tmp"],
        ] {
            let error = parse(&arguments, None).unwrap_err();
            assert!(
                matches!(&error, ServerError::BadArgument(reason) if reason.starts_with(arguments[0])),
                "{arguments:?}: {error}"
            );
        }
        let error = ServerOptions::from_arguments(
            Vec::<String>::new(),
            StartEnvironment {
                allowed_origins: Some("*".into()),
                ..StartEnvironment::default()
            },
        )
        .unwrap_err();
        assert!(
            error.to_string().contains(ALLOWED_ORIGINS_VARIABLE),
            "{error}"
        );
    }
}
