//! How much memory the web view keeps (issue 14, BENCHMARKS.md).

/// JavaScriptCore options for the web process, each set unless the person set that
/// variable themselves (JSC reads `JSC_<option>`, and the web process inherits our
/// environment):
///
/// - `forceMiniVMMode`: by default a small page heap on a desktop may about double between
///   collections, and each list row scrolled past leaves garbage (its DOM nodes are freed
///   only once their wrappers are collected); mini mode uses one smaller growth factor and
///   leaner allocator settings. The web process after scrolling 10 000 memories kept
///   177 MB instead of 263 MB, with the same frame times.
/// - `useDFGJIT=false`: JSC's optimising compilers (DFG, and FTL on top of it) stay off;
///   the interpreter and the baseline JIT remain. Their code and what they leave in the
///   heaps cost the web process ~20–30 MB after scrolling 10 000 memories; frame times in
///   the list and in the Sessions view's Markdown stayed within the spread of runs with
///   every JIT. Turning the whole JIT off (`useJIT=false`) saved a few MB more but made
///   the Markdown transcript's frames ~10 ms slower.
///
/// Must run before any thread exists.
pub fn small_javascript_heap() {
    for (var, value) in [("JSC_forceMiniVMMode", "true"), ("JSC_useDFGJIT", "false")] {
        if std::env::var_os(var).is_none() {
            // SAFETY: called first thing in `run`, before any other thread exists.
            unsafe { std::env::set_var(var, value) };
        }
    }
}
