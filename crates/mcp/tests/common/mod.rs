//! What the in-process server tests share.

use memory_bank_mcp::MemoryBankMcp;
use rmcp::ServiceExt;

/// The official Rust SDK's client, connected to `server` over an in-memory pipe.
pub async fn connect(server: MemoryBankMcp) -> rmcp::service::RunningService<rmcp::RoleClient, ()> {
    let (server_side, client_side) = tokio::io::duplex(1 << 20);
    tokio::spawn(async move {
        let running = server.serve(server_side).await.unwrap();
        let _ = running.waiting().await;
    });
    ().serve(client_side).await.unwrap()
}
