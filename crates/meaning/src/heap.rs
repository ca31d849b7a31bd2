//! Gives the pages the model freed back to the system.
//!
//! # Why
//!
//! glibc's allocator keeps freed memory in its arenas for reuse. After the model (≈ 100 MiB
//! of weights and buffers, allocated from several threads) is dropped, the process would
//! otherwise stay ≈ 15–30 MB above where it was at rest, for as long as it runs. One
//! `malloc_trim(0)` right after the drop returns those pages. Other allocators (musl,
//! macOS, Windows) return large blocks on free, so there it is nothing.

/// Asks the allocator to return freed pages to the system, where that is a separate step.
#[cfg(all(target_os = "linux", target_env = "gnu"))]
#[allow(unsafe_code)]
pub(crate) fn return_freed_memory() {
    // SAFETY: malloc_trim takes no pointer and only walks glibc's own arenas under their
    // locks; it is documented as safe to call at any time from any thread.
    unsafe {
        libc::malloc_trim(0);
    }
}

#[cfg(not(all(target_os = "linux", target_env = "gnu")))]
pub(crate) fn return_freed_memory() {}
