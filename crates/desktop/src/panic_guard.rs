//! A fault in one command must not take the app down or leave the UI waiting: a panic
//! inside a command becomes the error answer `internal`, like any other failure.

use std::future::Future;
use std::panic::AssertUnwindSafe;

use futures_util::FutureExt as _;
use memory_bank_contract::ErrorCode;

use crate::DesktopError;

/// Runs a command's future; a panic in it is answered as [`DesktopError`] `internal`.
pub async fn catch_panics<T>(
    command: impl Future<Output = Result<T, DesktopError>>,
) -> Result<T, DesktopError> {
    match AssertUnwindSafe(command).catch_unwind().await {
        Ok(answer) => answer,
        Err(panic) => {
            let what = panic
                .downcast_ref::<&str>()
                .map(|s| (*s).to_owned())
                .or_else(|| panic.downcast_ref::<String>().cloned())
                .unwrap_or_else(|| "unknown fault".into());
            tracing::error!(fault = %what, "a command panicked");
            Err(DesktopError::new(ErrorCode::Internal, format!("Memory Bank hit an internal fault ({what}); nothing was changed. Please report it.")))
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[tokio::test]
    async fn a_panicking_command_answers_internal_and_the_next_one_runs() {
        let answer: Result<u32, _> = catch_panics(async {
            let index = [1, 2, 3];
            let at = index.len() + 2;
            Ok(index[at])
        })
        .await;
        let err = answer.unwrap_err();
        assert_eq!(err.code, ErrorCode::Internal);
        assert!(
            err.message.contains("index out of bounds"),
            "{}",
            err.message
        );
        assert_eq!(
            catch_panics(async { Ok::<_, DesktopError>(7) })
                .await
                .unwrap(),
            7
        );
        let refused =
            catch_panics(async { Err::<(), _>(DesktopError::new(ErrorCode::InvalidRequest, "no")) }).await;
        assert_eq!(refused.unwrap_err().code, ErrorCode::InvalidRequest);
    }
}
