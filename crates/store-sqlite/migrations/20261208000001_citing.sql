-- Which memories cite a session (the Sessions view's markers): an index on the cited
-- session id inside each context's citation, so the lookup never walks every context.
CREATE INDEX memory_context_conversation ON memory_context (json_extract(citation, '$.conversationId'));
