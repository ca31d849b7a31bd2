-- Each memory's sentence vector (memory_bank_store::meaning), made by the model named in
-- `model` from the memory's own text only, and made again from it whenever missing.
-- `seq` grows with every write: a process keeps a copy of a person's vectors in memory
-- and catches up by reading the rows past the last `seq` it saw (and reloads when its
-- count differs, which covers a Galera node's interleaved auto-increments).
-- Idempotent: an adopted database replays it.
CREATE TABLE IF NOT EXISTS memory_vector (
    seq       BIGINT UNSIGNED NOT NULL AUTO_INCREMENT PRIMARY KEY,
    memory_id VARCHAR(64)     NOT NULL,
    user_id   VARCHAR(64)     NOT NULL,
    model     VARCHAR(64)     NOT NULL,
    vector    VARBINARY(2048) NOT NULL,
    UNIQUE KEY memory_vector_memory (memory_id),
    KEY memory_vector_user_seq (user_id, model, seq)
) ENGINE = InnoDB DEFAULT CHARSET = utf8mb4 COLLATE = utf8mb4_bin;
