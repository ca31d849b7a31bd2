//! The web view only ever shows the app's own pages. Links in transcripts are opened in
//! the system browser by the UI (through the opener plugin); this is the second line: a
//! navigation the UI did not stop (a click it missed, a script in a message that somehow
//! ran) is refused here instead of loading someone else's page with the app's IPC.

use tauri::Url;

/// Whether `url` is one of the app's own pages: the embedded assets (`tauri://localhost`,
/// or `http(s)://tauri.localhost` where WebView2 and Android serve them) or, in a dev
/// build, the Vite dev server (`devUrl`).
pub fn is_app_page(url: &Url, dev_url: Option<&Url>) -> bool {
    match (url.scheme(), url.host_str()) {
        ("tauri", Some("localhost")) => true,
        ("http" | "https", Some("tauri.localhost")) => true,
        _ => dev_url.is_some_and(|dev| dev.origin() == url.origin()),
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn page(url: &str, dev: Option<&str>) -> bool {
        let dev = dev.map(|d| Url::parse(d).unwrap());
        is_app_page(&Url::parse(url).unwrap(), dev.as_ref())
    }

    #[test]
    fn only_the_apps_own_pages_load() {
        assert!(page("tauri://localhost/", None));
        assert!(page("tauri://localhost/index.html#sessions", None));
        assert!(page("http://tauri.localhost/", None));
        assert!(page(
            "http://localhost:5173/",
            Some("http://localhost:5173")
        ));

        for foreign in [
            "https://example.com/",
            "http://localhost:5173/",
            "tauri://example.com/",
            "http://tauri.localhost.example.com/",
            "javascript:alert(1)",
            "data:text/html,<script>alert(1)</script>",
            "file:///etc/passwd",
            "mailto:ada@example.com",
        ] {
            assert!(!page(foreign, None), "{foreign}");
        }
        assert!(!page(
            "http://localhost:8080/",
            Some("http://localhost:5173")
        ));
    }
}
