-- Each memory's sentence vector (memory_bank_store::meaning), made by the model named in
-- `model` from the memory's own text only, and made again from it whenever missing.
-- Inside the bank's file, so inside its encryption when the bank is encrypted.
-- `seq` grows with every write and is never reused (AUTOINCREMENT): a process keeps a
-- copy of a person's vectors in memory and catches up by reading the rows past the last
-- `seq` it saw, whoever wrote them.
CREATE TABLE memory_vector (
    seq       INTEGER PRIMARY KEY AUTOINCREMENT,
    memory_id TEXT NOT NULL UNIQUE,
    user_id   TEXT NOT NULL,
    model     TEXT NOT NULL,
    vector    BLOB NOT NULL
);
CREATE INDEX memory_vector_user_seq ON memory_vector (user_id, model, seq);
