//! The desktop app on Tauri's mock runtime (no window), for the command-layer tests.
#![allow(dead_code)] // each test file uses a different part of it

use serde_json::Value;
use tauri::ipc::{CallbackFn, InvokeBody};
use tauri::test::{get_ipc_response, mock_builder, mock_context, noop_assets, MockRuntime, INVOKE_KEY};
use tauri::webview::InvokeRequest;
use tauri::{App, WebviewWindow, WebviewWindowBuilder};

/// Builds the app with `identifier`, runs its setup hook (which starts the core; it runs on
/// the event loop's first turn), and opens the `main` window.
pub fn start(identifier: &str) -> (App<MockRuntime>, WebviewWindow<MockRuntime>) {
    let mut context = mock_context(noop_assets());
    context.config_mut().identifier = identifier.into();
    let mut app = memory_bank_app_lib::configure(mock_builder()).build(context).expect("app builds");
    #[allow(deprecated)]
    app.run_iteration(|_, _| {});
    let window = WebviewWindowBuilder::new(&app, "main", Default::default()).build().expect("window");
    (app, window)
}

/// Invokes a command as the UI does; `Err` holds the rejection's body.
pub fn call(window: &WebviewWindow<MockRuntime>, cmd: &str, args: Value) -> Result<Value, Value> {
    let request = InvokeRequest {
        cmd: cmd.into(),
        callback: CallbackFn(0),
        error: CallbackFn(1),
        url: "tauri://localhost".parse().unwrap(),
        body: InvokeBody::Json(args),
        headers: Default::default(),
        invoke_key: INVOKE_KEY.to_string(),
    };
    get_ipc_response(window, request).map(|body| body.deserialize::<Value>().unwrap())
}
