//! The client against a real `dossier-server` on 127.0.0.1 with one access token, no window:
//! "Test connection" tells a right token from a wrong one and a Dossier server from something
//! else, and the relay forwards the routes the attached UI uses, pages included, with the token,
//! and refuses the rest before anything is sent.

use dossier_attached_client::connection_check::check;
use dossier_attached_client::request_relay::{relay, RelayedRequest};
use dossier_attached_client::server_address::ServerAddress;
use dossier_attached_client::AttachedError;
use dossier_core::models::config::Locations;
use dossier_core::LedgerOptions;
use dossier_server::{bind, serve, ServerOptions};

struct Server {
    address: ServerAddress,
    token: String,
    _folder: tempfile::TempDir,
    _stop: tokio::sync::oneshot::Sender<()>,
}

/// A dossier-server with one access token, so every request needs one.
async fn start_server() -> Server {
    let folder = tempfile::tempdir().expect("temp dir");
    let mut options = LedgerOptions::at(Locations::from_values(
        Some(folder.path().join("data")),
        Some(folder.path().join("dossier.json")),
    ));
    options.default_directory = Some(folder.path().to_path_buf());
    let ledger = dossier_core::start_up::open(options)
        .await
        .expect("ledger opens");
    let token = ledger
        .store()
        .create_access_token("desk")
        .await
        .expect("token")
        .token;
    let options = ServerOptions {
        port: 0,
        ..ServerOptions::default()
    };
    let listener = bind(&options).await.expect("binds");
    let (ready_sender, ready) = tokio::sync::oneshot::channel();
    let (stop, stopped) = tokio::sync::oneshot::channel::<()>();
    tokio::spawn(async move {
        let outcome = serve(
            listener,
            async move { Ok(ledger) },
            &options,
            async move {
                // A dropped sender (the test is over) stops the server too.
                let _ = stopped.await;
            },
            move |address| {
                let _ = ready_sender.send(address);
            },
        )
        .await;
        if let Err(error) = outcome {
            panic!("server failed: {error}");
        }
    });
    let address = ready.await.expect("server ready");
    Server {
        address: ServerAddress::parse(&format!("http://{address}")).expect("a loopback address"),
        token,
        _folder: folder,
        _stop: stop,
    }
}

fn client() -> reqwest::Client {
    dossier_core::models::provider::http_client::install_tls_crypto_provider();
    reqwest::Client::builder()
        .redirect(reqwest::redirect::Policy::none())
        .build()
        .expect("a client")
}

fn request(method: &str, path: &str, body: Option<&str>) -> RelayedRequest {
    RelayedRequest {
        method: method.into(),
        path: path.into(),
        body: body.map(str::to_string),
    }
}

#[tokio::test]
async fn test_connection_accepts_the_token_and_refuses_a_wrong_one() {
    let server = start_server().await;
    let client = client();
    let passed = check(&client, &server.address, &server.token)
        .await
        .expect("the right token passes");
    assert_eq!(passed.url, server.address.origin());
    assert!(!passed.version.is_empty());
    let refused = check(&client, &server.address, "dossier_not-a-token")
        .await
        .expect_err("a wrong token is refused");
    assert!(
        matches!(refused, AttachedError::ServerTokenRefused { .. }),
        "{refused:?}"
    );
}

#[tokio::test]
async fn test_connection_says_when_nothing_answers() {
    let server = start_server().await;
    let address = server.address.clone();
    drop(server);
    tokio::time::sleep(std::time::Duration::from_millis(200)).await;
    let failure = check(&client(), &address, "dossier_x")
        .await
        .expect_err("nobody answers");
    assert!(
        matches!(failure, AttachedError::ServerUnreachable { .. }),
        "{failure:?}"
    );
}

#[tokio::test]
async fn the_relay_forwards_the_ui_routes_with_their_pages_and_refuses_the_rest() {
    let server = start_server().await;
    let client = client();
    for title in ["first", "second", "third"] {
        let created = relay(
            &client,
            &server.address,
            &server.token,
            request(
                "POST",
                "/session",
                Some(&format!(r#"{{"title":"{title}"}}"#)),
            ),
        )
        .await
        .expect("relayed");
        assert_eq!(created.status, 200, "{}", created.body);
    }
    let page = relay(
        &client,
        &server.address,
        &server.token,
        request("GET", "/session?limit=2", None),
    )
    .await
    .expect("relayed");
    assert_eq!(page.status, 200);
    let sessions: serde_json::Value = serde_json::from_str(&page.body).expect("JSON");
    assert_eq!(sessions.as_array().expect("a list").len(), 2);
    let cursor = page
        .headers
        .iter()
        .find(|(name, _)| name == "x-next-cursor")
        .map(|(_, value)| value.clone())
        .expect("the next page's cursor comes back");
    let rest = relay(
        &client,
        &server.address,
        &server.token,
        request("GET", &format!("/session?limit=2&cursor={cursor}"), None),
    )
    .await
    .expect("relayed");
    let rest: serde_json::Value = serde_json::from_str(&rest.body).expect("JSON");
    assert_eq!(rest.as_array().expect("a list").len(), 1);

    let refused = relay(
        &client,
        &server.address,
        &server.token,
        request("POST", "/global/dispose", None),
    )
    .await
    .expect_err("not a route the attached UI uses");
    assert!(
        matches!(refused, AttachedError::RelayRefused { .. }),
        "{refused:?}"
    );
    let revoked = relay(
        &client,
        &server.address,
        "dossier_revoked",
        request("GET", "/session", None),
    )
    .await
    .expect_err("a token the server does not take");
    assert!(
        matches!(revoked, AttachedError::ServerTokenNoLongerAccepted { .. }),
        "{revoked:?}"
    );
}
