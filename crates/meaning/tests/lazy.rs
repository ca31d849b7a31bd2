//! The model is loaded only when first needed and let go once idle, with the real
//! model's files (`scripts/fetch-model.sh`); a folder without them gives a reason that
//! says what to do, every time, and nothing is loaded.

use std::time::{Duration, Instant};

use memory_bank_meaning::LocalModel;
use memory_bank_store::Embed as _;

fn model_dir() -> std::path::PathBuf {
    memory_bank_embed::default_model_dir().expect("the embedding model is missing: run scripts/fetch-model.sh")
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn the_model_loads_on_first_use_and_is_let_go_when_idle() {
    let model = LocalModel::with(Some(model_dir()), Duration::from_millis(600));
    assert!(!model.is_loaded(), "nothing is read until it is needed");
    let vectors = model.embed(vec!["My daughter is allergic to peanuts".into()]).await.unwrap();
    assert_eq!(vectors[0].len(), 384);
    assert!(model.is_loaded());
    // Used again before the idle time: still loaded.
    tokio::time::sleep(Duration::from_millis(300)).await;
    model.embed(vec!["again".into()]).await.unwrap();
    assert!(model.is_loaded());
    let deadline = Instant::now() + Duration::from_secs(10);
    while model.is_loaded() {
        assert!(Instant::now() < deadline, "the idle model was not let go");
        tokio::time::sleep(Duration::from_millis(50)).await;
    }
    // And loaded again when needed.
    let again = model.embed(vec!["My daughter is allergic to peanuts".into()]).await.unwrap();
    assert_eq!(again, vectors, "the same vector after a reload");
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_folder_without_the_model_gives_a_reason_and_loads_nothing() {
    let empty = tempfile::tempdir().unwrap();
    let model = LocalModel::with(Some(empty.path().to_path_buf()), Duration::from_secs(60));
    let why = model.embed(vec!["x".into()]).await.unwrap_err();
    assert!(why.contains(&empty.path().display().to_string()), "names the folder: {why}");
    assert_eq!(model.check().await.unwrap_err(), why, "the same reason until it is tried again");
    assert!(!model.is_loaded());
}
