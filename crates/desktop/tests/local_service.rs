//! The embedded local service as a person's machine runs it: its data folder is
//! private, a run that ended without cleaning up leaves no live token, and it answers
//! only its own loopback host names.

use std::sync::Arc;

use memory_bank_db_key::KeySource;
use memory_bank_desktop::local::start_local_service;
use memory_bank_store::Bank;
use memory_bank_store_sqlite::SqliteStore;
use tokio::io::{AsyncReadExt, AsyncWriteExt};

async fn bank_of(dir: &std::path::Path) -> Bank {
    let store = SqliteStore::open(&format!("sqlite://{}", dir.join("memory.db").display()))
        .await
        .unwrap();
    Bank::new(Arc::new(store))
}

#[tokio::test(flavor = "multi_thread")]
async fn a_run_that_ended_without_cleaning_up_has_its_token_revoked_at_the_next_start() {
    let dir = tempfile::tempdir().unwrap();
    let first = start_local_service(dir.path(), &KeySource::None, false).await.unwrap();
    let leftover = first.token.clone();
    // kill -9: neither `stop` nor the revocation in it ever runs.
    std::mem::forget(first);
    let bank = bank_of(dir.path()).await;
    assert!(
        bank.authenticate(&leftover).await.unwrap().is_some(),
        "precondition: the token is live"
    );

    let second = start_local_service(dir.path(), &KeySource::None, false).await.unwrap();
    assert!(
        bank.authenticate(&leftover).await.unwrap().is_none(),
        "the earlier run's token is still live"
    );
    assert!(bank.authenticate(&second.token).await.unwrap().is_some());
    second.stop().await;
}

async fn status_for_host(url: &str, host: &str) -> String {
    let address = url.trim_start_matches("http://");
    let mut stream = tokio::net::TcpStream::connect(address).await.unwrap();
    let request = format!("GET /healthz HTTP/1.1\r\nHost: {host}\r\nConnection: close\r\n\r\n");
    stream.write_all(request.as_bytes()).await.unwrap();
    let mut answer = String::new();
    stream.read_to_string(&mut answer).await.unwrap();
    answer.lines().next().unwrap_or_default().to_owned()
}

#[tokio::test(flavor = "multi_thread")]
async fn the_embedded_service_answers_only_its_own_loopback_host() {
    let dir = tempfile::tempdir().unwrap();
    let service = start_local_service(dir.path(), &KeySource::None, false).await.unwrap();
    let port = service.url.rsplit(':').next().unwrap().to_owned();
    assert!(status_for_host(&service.url, &format!("127.0.0.1:{port}"))
        .await
        .starts_with("HTTP/1.1 200"));
    assert!(status_for_host(&service.url, &format!("localhost:{port}"))
        .await
        .starts_with("HTTP/1.1 200"));
    // A page on a rebound domain sends its own name.
    assert!(
        status_for_host(&service.url, &format!("attacker.example:{port}"))
            .await
            .starts_with("HTTP/1.1 403")
    );
    service.stop().await;
}

#[cfg(unix)]
#[tokio::test(flavor = "multi_thread")]
async fn the_data_folder_is_0700_and_its_files_0600() {
    use std::os::unix::fs::PermissionsExt;
    let mode =
        |path: &std::path::Path| std::fs::metadata(path).unwrap().permissions().mode() & 0o777;
    let root = tempfile::tempdir().unwrap();
    let data = root.path().join("dev.memorybank.app");
    // A folder an older release made world-readable, with a preferences file in it.
    std::fs::create_dir_all(&data).unwrap();
    std::fs::set_permissions(&data, std::fs::Permissions::from_mode(0o755)).unwrap();
    std::fs::write(data.join("settings.json"), "{}").unwrap();
    std::fs::set_permissions(
        data.join("settings.json"),
        std::fs::Permissions::from_mode(0o644),
    )
    .unwrap();

    let service = start_local_service(&data, &KeySource::None, false).await.unwrap();
    assert_eq!(mode(&data), 0o700);
    for file in ["memory.db", "settings.json"] {
        assert_eq!(mode(&data.join(file)), 0o600, "{file}");
    }
    service.stop().await;

    // The app makes whatever it creates later private too (the session index, the
    // web view's storage), through the process's umask.
    memory_bank_desktop::private_files::restrict_new_files();
    std::fs::write(data.join("sessions-index.sqlite"), b"").unwrap();
    std::fs::create_dir(data.join("webview")).unwrap();
    assert_eq!(mode(&data.join("sessions-index.sqlite")), 0o600);
    assert_eq!(mode(&data.join("webview")), 0o700);
}
