include!("app_commands.rs");

fn main() {
    // Declaring the app's commands makes each one need a permission, so the window can
    // call only what `capabilities/default.json` grants.
    let manifest = tauri_build::AppManifest::new().commands(APP_COMMANDS);
    tauri_build::try_build(tauri_build::Attributes::new().app_manifest(manifest))
        .expect("tauri build step");
}
