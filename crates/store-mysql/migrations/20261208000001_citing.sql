-- Which memories cite a session (the Sessions view's markers): the cited session id as a
-- virtual column with an index (MariaDB and MySQL both index virtual columns; neither
-- indexes an expression on JSON directly in every version we support).
ALTER TABLE memory_context
    ADD COLUMN conversation_id VARCHAR(128) AS (JSON_UNQUOTE(JSON_EXTRACT(citation, '$.conversationId'))) VIRTUAL,
    ADD KEY memory_context_conversation (conversation_id);
