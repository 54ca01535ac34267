//! A real PostgreSQL for the Postgres store's tests: the server `scripts/postgres-for-tests.sh`
//! starts (once per test binary; it reuses one already running), or the one named by
//! `DOSSIER_TEST_POSTGRES_URL` (an admin URL, for CI or a developer's own server). Each test
//! gets a database of its own, so tests run side by side without seeing each other's rows.

use sqlx::{Connection, PgConnection, PgPool};
use std::process::Command;
use std::sync::atomic::{AtomicU32, Ordering};
use std::sync::OnceLock;

const PREFIX: &str = "dossier_test_";

static ADMIN_URL: OnceLock<String> = OnceLock::new();
static NEXT: AtomicU32 = AtomicU32::new(0);
static LEFTOVERS_DROPPED: tokio::sync::OnceCell<()> = tokio::sync::OnceCell::const_new();

/// The admin URL of the test server (a superuser on its `postgres` database).
pub fn admin_url() -> &'static str {
    ADMIN_URL.get_or_init(|| {
        if let Ok(url) = std::env::var("DOSSIER_TEST_POSTGRES_URL") {
            return url;
        }
        let script = script();
        let output = Command::new("bash")
            .arg(script)
            .arg("start")
            .output()
            .unwrap_or_else(|error| panic!("running {script}: {error}"));
        assert!(
            output.status.success(),
            "{script} start failed:\n{}",
            String::from_utf8_lossy(&output.stderr)
        );
        String::from_utf8_lossy(&output.stdout)
            .lines()
            .last()
            .unwrap_or_else(|| panic!("{script} start printed no URL"))
            .trim()
            .to_string()
    })
}

/// The certificate authority that signed the test server's TLS certificate (for 127.0.0.1 and
/// localhost): the one `scripts/postgres-for-tests.sh` made, or `DOSSIER_TEST_POSTGRES_CA` with
/// a server of one's own (`DOSSIER_TEST_POSTGRES_URL`). None when such a server has no CA
/// named: the TLS tests then say they were skipped.
pub fn certificate_authority() -> Option<std::path::PathBuf> {
    let admin = admin_url();
    if std::env::var_os("DOSSIER_TEST_POSTGRES_URL").is_some() {
        return std::env::var_os("DOSSIER_TEST_POSTGRES_CA").map(Into::into);
    }
    let output = Command::new("bash")
        .arg(script())
        .arg("ca")
        .output()
        .unwrap_or_else(|error| panic!("running {}: {error}", script()));
    assert!(
        output.status.success(),
        "{} ca failed (server {}):\n{}",
        script(),
        admin.split('@').next_back().unwrap_or_default(),
        String::from_utf8_lossy(&output.stderr)
    );
    let path = String::from_utf8_lossy(&output.stdout).trim().to_string();
    Some(path.into())
}

fn script() -> &'static str {
    concat!(
        env!("CARGO_MANIFEST_DIR"),
        "/../../scripts/postgres-for-tests.sh"
    )
}

/// A database of the test's own, dropped by `drop_database` (a failed test leaves it; the next
/// run of the tests drops it, once the process that made it is gone).
pub struct TestDatabase {
    pub name: String,
    pub url: String,
}

/// `admin` with its database replaced by `name`.
fn url_of(admin: &str, name: &str) -> String {
    let mut url = url::Url::parse(admin).unwrap_or_else(|error| panic!("{admin}: {error}"));
    url.set_path(name);
    url.to_string()
}

pub async fn fresh_database() -> TestDatabase {
    let admin = admin_url();
    let mut connection = PgConnection::connect(admin)
        .await
        .unwrap_or_else(|error| panic!("connecting to the test server: {error}"));
    LEFTOVERS_DROPPED
        .get_or_init(|| drop_leftovers(admin))
        .await;
    let name = format!(
        "{PREFIX}{}_{}",
        std::process::id(),
        NEXT.fetch_add(1, Ordering::SeqCst)
    );
    sqlx::query(&format!("CREATE DATABASE {name}"))
        .execute(&mut connection)
        .await
        .unwrap_or_else(|error| panic!("creating {name}: {error}"));
    TestDatabase {
        url: url_of(admin, &name),
        name,
    }
}

/// Drops the databases of earlier test processes that have ended (their pid is gone).
async fn drop_leftovers(admin: &str) {
    let mut connection = PgConnection::connect(admin)
        .await
        .unwrap_or_else(|error| panic!("connecting to the test server: {error}"));
    let names: Vec<String> =
        sqlx::query_scalar("SELECT datname FROM pg_database WHERE starts_with(datname, $1)")
            .bind(PREFIX)
            .fetch_all(&mut connection)
            .await
            .unwrap_or_else(|error| panic!("listing test databases: {error}"));
    for name in names {
        let pid = name
            .trim_start_matches(PREFIX)
            .split('_')
            .next()
            .unwrap_or_default();
        if std::path::Path::new(&format!("/proc/{pid}")).exists() {
            continue;
        }
        sqlx::query(&format!("DROP DATABASE IF EXISTS {name} WITH (FORCE)"))
            .execute(&mut connection)
            .await
            .unwrap_or_else(|error| panic!("dropping {name}: {error}"));
    }
}

impl TestDatabase {
    /// Opens the Postgres store on this database (connect and migrate).
    pub async fn open(&self) -> PgPool {
        dossier_core::store::postgres::open(&self.url)
            .await
            .unwrap_or_else(|error| panic!("opening {}: {error}", self.name))
    }

    pub async fn drop_database(self, pool: PgPool) {
        pool.close().await;
        let mut connection = PgConnection::connect(admin_url())
            .await
            .unwrap_or_else(|error| panic!("connecting to the test server: {error}"));
        sqlx::query(&format!("DROP DATABASE {} WITH (FORCE)", self.name))
            .execute(&mut connection)
            .await
            .unwrap_or_else(|error| panic!("dropping {}: {error}", self.name));
    }
}

/// The password in a database URL (the tests check it never reaches a message).
pub fn password_of(url: &str) -> String {
    let parsed = url::Url::parse(url).unwrap_or_else(|error| panic!("{url}: {error}"));
    parsed
        .password()
        .unwrap_or_else(|| panic!("{url} has no password"))
        .to_string()
}
