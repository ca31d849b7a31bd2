//! What the desktop tests share: a keyring that holds nothing, and a memory service on
//! loopback that stops when dropped. Included by `#[path]`, one copy per test binary.
#![allow(dead_code)]

use memory_bank_desktop::secrets::SecretStore;
use memory_bank_store::Bank;

/// No OS keyring in headless CI: nothing is stored, and a write says so.
pub struct NoKeyring;

impl SecretStore for NoKeyring {
    fn get(&self, _: &str) -> Result<Option<String>, String> {
        Ok(None)
    }
    fn set(&self, _: &str, _: &str) -> Result<(), String> {
        Err("no keyring in this test".into())
    }
    fn delete(&self, _: &str) -> Result<(), String> {
        Ok(())
    }
}

/// `serve` on a loopback port, stopped when this is dropped.
pub struct Served {
    pub url: String,
    stop: Option<tokio::sync::oneshot::Sender<()>>,
}

impl Served {
    pub async fn start(bank: Bank) -> Self {
        let listener = tokio::net::TcpListener::bind("127.0.0.1:0").await.unwrap();
        let url = format!("http://{}", listener.local_addr().unwrap());
        let (tx, rx) = tokio::sync::oneshot::channel::<()>();
        tokio::spawn(async move {
            memory_bank_server::serve(listener, bank, Default::default(), async move {
                let _ = rx.await;
            })
            .await
            .unwrap()
        });
        Self { url, stop: Some(tx) }
    }
}

impl Drop for Served {
    fn drop(&mut self) {
        if let Some(tx) = self.stop.take() {
            let _ = tx.send(());
        }
    }
}
