//! TLS to the database server: a throwaway MariaDB started with certificates made at
//! test time, and a user that may only log in over TLS (`REQUIRE SSL`), as managed
//! MySQL services demand. The store connects with `ssl-mode` and `ssl-ca` in the URL.

use std::sync::Arc;

use memory_bank_contract::validate::{validate_save, ValidSearch};
use memory_bank_contract::wire::SaveMemoryRequest;
use memory_bank_store::{Bank, MemoryStore, StoreError};
use memory_bank_store_mysql::testing::{MariaDb, TestCertificates, TestDatabase};
use memory_bank_store_mysql::MySqlStore;

/// A TLS-enabled throwaway server, a database on it, and a `REQUIRE SSL` user that
/// may use that database. The returned URL has no ssl-mode yet.
async fn tls_server() -> (TestCertificates, MariaDb, TestDatabase, String) {
    let certs = TestCertificates::generate().unwrap_or_else(|e| panic!("cannot make test certificates: {e}"));
    let args = certs.server_args();
    let server = tokio::task::spawn_blocking(move || MariaDb::start_with(&args))
        .await
        .unwrap()
        .unwrap_or_else(|e| panic!("cannot start a MariaDB with TLS: {e}"));
    let db = TestDatabase::create_on(&server.server_url()).await;
    let root = MySqlStore::open(db.url()).await.unwrap();
    // Fixed statements (the database name is made of letters, digits and _ only).
    sqlx::raw_sql("CREATE USER 'tls_only'@'%' IDENTIFIED BY 'secret' REQUIRE SSL").execute(root.pool()).await.unwrap();
    let grant = format!("GRANT ALL PRIVILEGES ON {}.* TO 'tls_only'@'%'", db.name());
    sqlx::raw_sql(sqlx::AssertSqlSafe(grant)).execute(root.pool()).await.unwrap();
    let url = format!("mysql://tls_only:secret@127.0.0.1:{}/{}", server.port(), db.name());
    (certs, server, db, url)
}

async fn cipher(store: &MySqlStore) -> String {
    let row: (String, String) = sqlx::query_as("SHOW SESSION STATUS LIKE 'Ssl_cipher'").fetch_one(store.pool()).await.unwrap();
    row.1
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_require_ssl_user_connects_with_a_verified_certificate_and_is_refused_without_tls() {
    let (certs, _server, _db, url) = tls_server().await;
    let ca = certs.ca().display().to_string();

    // VERIFY_CA: the server's certificate must chain to ssl-ca.
    let store = MySqlStore::open(&format!("{url}?ssl-mode=VERIFY_CA&ssl-ca={ca}")).await.unwrap();
    assert!(!cipher(&store).await.is_empty(), "the session is encrypted");
    store.migrate().await.unwrap();
    let bank = Bank::new(Arc::new(store.clone()));
    let user = bank.add_user("tls@example.com").await.unwrap().id;
    let org = bank.add_org("Encrypted").await.unwrap().id;
    bank.add_member(&org, &user).await.unwrap();
    let input = validate_save(SaveMemoryRequest { content: "Ada keeps her keys in the lighthouse".into(), ..Default::default() }).unwrap();
    bank.save(&user, &org, input).await.unwrap();
    let hits = bank.search(&user, &ValidSearch { query: "lighthouse".into(), limit: 5, words_only: false }).await.unwrap();
    assert_eq!(hits.len(), 1);

    // VERIFY_IDENTITY also checks the URL's host against the certificate (127.0.0.1).
    let strict = MySqlStore::open(&format!("{url}?ssl-mode=VERIFY_IDENTITY&ssl-ca={ca}")).await.unwrap();
    assert!(strict.search_index_exists().await.unwrap());
    assert!(!cipher(&strict).await.is_empty());

    // Without TLS the login is refused, and the error says how to turn TLS on.
    let err = MySqlStore::open(&format!("{url}?ssl-mode=DISABLED")).await.unwrap_err();
    assert!(matches!(err, StoreError::Invalid(_)), "{err:?}");
    let message = err.to_string();
    assert!(message.contains("ssl-mode=DISABLED") && message.contains("ssl-mode=VERIFY_IDENTITY&ssl-ca="), "{message}");

    // A CA that did not sign the server's certificate: refused, naming ssl-ca.
    let other = certs.other_ca().display().to_string();
    let err = MySqlStore::open(&format!("{url}?ssl-mode=VERIFY_CA&ssl-ca={other}")).await.unwrap_err();
    assert!(matches!(err, StoreError::Invalid(_)), "{err:?}");
    assert!(err.to_string().contains("ssl-ca"), "{err}");
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn verified_modes_fail_clearly_against_a_server_without_tls() {
    // The shared test server runs without certificates.
    let db = TestDatabase::create().await;
    let separator = if db.url().contains('?') { '&' } else { '?' };
    let err = MySqlStore::open(&format!("{}{separator}ssl-mode=VERIFY_IDENTITY", db.url())).await.unwrap_err();
    assert!(matches!(err, StoreError::Invalid(_)), "{err:?}");
    assert!(err.to_string().contains("TLS"), "{err}");
}
