//! How much memory the web view keeps (issue 14, BENCHMARKS.md).

/// JavaScriptCore in the web process runs in its "mini VM" mode, unless the person set
/// the variable themselves (JSC reads `JSC_<option>`, and the web process inherits our
/// environment). By default a small page heap on a desktop may about double between
/// collections, and each list row scrolled past leaves garbage (its DOM nodes are freed
/// only once their wrappers are collected); mini mode uses one smaller growth factor and
/// leaner allocator settings (the JIT stays on). Measured, the web process after scrolling 10 000 memories kept
/// 177 MB instead of 263 MB, with the same frame times (BENCHMARKS.md, issue 14).
/// Must run before any thread exists.
pub fn small_javascript_heap() {
    const VAR: &str = "JSC_forceMiniVMMode";
    if std::env::var_os(VAR).is_none() {
        // SAFETY: called first thing in `run`, before any other thread exists.
        unsafe { std::env::set_var(VAR, "true") };
    }
}
