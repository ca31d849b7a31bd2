//! An empty Tauri v2 app: one window, an empty page, no plugins and no commands. What it
//! costs in memory (app process plus WebKit's web and network processes) is the floor
//! Memory Bank is compared with in BENCHMARKS.md, "Idle memory against an empty Tauri app".

fn main() {
    // The same rule as Memory Bank's `avoid_software_compositing` (src-tauri/src/lib.rs):
    // without a DRM render node WebKitGTK's compositing is turned off, so both apps are
    // measured with the same WebKit mode.
    #[cfg(target_os = "linux")]
    {
        const VAR: &str = "WEBKIT_DISABLE_COMPOSITING_MODE";
        let has_gpu = std::fs::read_dir("/dev/dri")
            .map(|dir| {
                dir.filter_map(Result::ok)
                    .any(|e| e.file_name().to_string_lossy().starts_with("renderD"))
            })
            .unwrap_or(false);
        if !has_gpu && std::env::var_os(VAR).is_none() {
            // SAFETY: first thing in main, before any other thread exists.
            unsafe { std::env::set_var(VAR, "1") };
        }
    }
    tauri::Builder::default()
        .run(tauri::generate_context!())
        .expect("tauri-floor: cannot start");
}
