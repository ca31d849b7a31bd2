//! The Qwen Code reader on files the real CLI wrote (0.24.4, against a loopback stub of the
//! OpenAI API; paths changed to `/home/ana/projects/atlas`) and on generated files for what
//! a short run does not write: titles, prompt projections, sub-agents, sidecars, archived
//! sessions, the legacy `tmp/<hash>` layout, other OSes' paths and links out of the root.

use std::collections::HashMap;
use std::io::Write as _;
use std::path::{Path, PathBuf};

use memory_bank_sessions::testing as common;
use memory_bank_sessions::testing::{reader, read_unit, ParsedSession, SourceReader, TitleRank, Unit, UnitKind};
use memory_bank_sessions::{Env, ReadArgs, Role, Source};
use serde_json::{json, Value};

use common::{messages, ms};

/// Two turns: a `glob` tool call, then a prompt with an `@NOTES.md` reference (its
/// `at_command` record holds what was typed). `qwen --auth-type openai --yolo -p …`, then
/// `--continue -p …`. Qwen Code 0.24.4.
const REAL_TOOL_AND_AT_FILE: &str = r#"{"uuid":"ea657154-b1dd-46ce-8b5b-084fb6cbd657","parentUuid":null,"sessionId":"b34d8e61-4b94-4879-8701-5d3fefd97ce8","timestamp":"2026-12-05T19:45:13.105Z","type":"user","provenance":"real_user","cwd":"/home/ana/projects/atlas","version":"0.24.4","gitBranch":"main","message":{"role":"user","parts":[{"text":"USE-TOOL please list the markdown files"}]}}
{"uuid":"2e7b3d0e-2a0d-4fdb-9d99-300cb05d5324","parentUuid":"ea657154-b1dd-46ce-8b5b-084fb6cbd657","sessionId":"b34d8e61-4b94-4879-8701-5d3fefd97ce8","timestamp":"2026-12-05T19:45:13.114Z","type":"system","provenance":"system","cwd":"/home/ana/projects/atlas","version":"0.24.4","gitBranch":"main","subtype":"attribution_snapshot","systemPayload":{"snapshot":{"type":"attribution-snapshot","version":1,"surface":"cli","fileStates":{},"promptCount":1,"promptCountAtLastCommit":0}}}
{"uuid":"01d7ec2b-1e2d-4659-ab6d-d7cfcdd0adbe","parentUuid":"2e7b3d0e-2a0d-4fdb-9d99-300cb05d5324","sessionId":"b34d8e61-4b94-4879-8701-5d3fefd97ce8","timestamp":"2026-12-05T19:45:13.405Z","type":"system","provenance":"system","cwd":"/home/ana/projects/atlas","version":"0.24.4","gitBranch":"main","subtype":"ui_telemetry","systemPayload":{"uiEvent":{"event.name":"qwen-code.api_response","event.timestamp":"2026-12-05T19:45:13.405Z","response_id":"chatcmpl-stub","model":"stub-model","status_code":200,"duration_ms":227,"input_token_count":100,"output_token_count":10,"cached_content_token_count":0,"thoughts_token_count":0,"total_token_count":110,"prompt_id":"b34d8e61-4b94-4879-8701-5d3fefd97ce8########0","auth_type":"openai","ttft_ms":225}}}
{"uuid":"bb478ad0-03e2-4d00-9474-406e4b0a68f6","parentUuid":"01d7ec2b-1e2d-4659-ab6d-d7cfcdd0adbe","sessionId":"b34d8e61-4b94-4879-8701-5d3fefd97ce8","timestamp":"2026-12-05T19:45:13.406Z","type":"assistant","provenance":"assistant_output","cwd":"/home/ana/projects/atlas","version":"0.24.4","gitBranch":"main","model":"stub-model","message":{"role":"model","parts":[{"functionCall":{"id":"call_stub_1","name":"glob","args":{"pattern":"*.md"}}}]},"usageMetadata":{"promptTokenCount":100,"candidatesTokenCount":10,"thoughtsTokenCount":0,"totalTokenCount":110,"cachedContentTokenCount":0}}
{"uuid":"b2f1090c-7662-4969-9a79-9714b275201c","parentUuid":"bb478ad0-03e2-4d00-9474-406e4b0a68f6","sessionId":"b34d8e61-4b94-4879-8701-5d3fefd97ce8","timestamp":"2026-12-05T19:45:13.444Z","type":"system","provenance":"system","cwd":"/home/ana/projects/atlas","version":"0.24.4","gitBranch":"main","subtype":"ui_telemetry","systemPayload":{"uiEvent":{"event.name":"qwen-code.tool_call","event.timestamp":"2026-12-05T19:45:13.444Z","call_id":"call_stub_1","function_name":"glob","function_args":{"pattern":"*.md"},"duration_ms":21,"status":"success","execution_status":"success","success":true,"decision":"auto_accept","prompt_id":"b34d8e61-4b94-4879-8701-5d3fefd97ce8########0","response_id":"chatcmpl-stub","tool_type":"native","content_length":142}}}
{"uuid":"1e0b7dbd-c591-4ec0-b34d-2d4d6d8609a6","parentUuid":"b2f1090c-7662-4969-9a79-9714b275201c","sessionId":"b34d8e61-4b94-4879-8701-5d3fefd97ce8","timestamp":"2026-12-05T19:45:13.446Z","type":"tool_result","provenance":"tool_result","cwd":"/home/ana/projects/atlas","version":"0.24.4","gitBranch":"main","message":{"role":"user","parts":[{"functionResponse":{"id":"call_stub_1","name":"glob","response":{"output":"Found 1 file(s) matching \"*.md\" in the workspace directory, sorted by modification time (newest first):\n---\n/home/ana/projects/atlas/NOTES.md"}}}]},"toolCallResult":{"callId":"call_stub_1","status":"success","resultDisplay":"Found 1 matching file(s)","executionStatus":"success"}}
{"uuid":"00f3b4ab-70c0-464b-bced-34a5ea9ef4ac","parentUuid":"1e0b7dbd-c591-4ec0-b34d-2d4d6d8609a6","sessionId":"b34d8e61-4b94-4879-8701-5d3fefd97ce8","timestamp":"2026-12-05T19:45:13.467Z","type":"system","provenance":"system","cwd":"/home/ana/projects/atlas","version":"0.24.4","gitBranch":"main","subtype":"ui_telemetry","systemPayload":{"uiEvent":{"event.name":"qwen-code.api_response","event.timestamp":"2026-12-05T19:45:13.467Z","response_id":"chatcmpl-stub","model":"stub-model","status_code":200,"duration_ms":17,"input_token_count":100,"output_token_count":10,"cached_content_token_count":0,"thoughts_token_count":0,"total_token_count":110,"response_text":"Stub model says: use the deploy script.","prompt_id":"b34d8e61-4b94-4879-8701-5d3fefd97ce8########0","auth_type":"openai","ttft_ms":16}}}
{"uuid":"2b135d7d-c3a4-46b9-905e-bfdc2fc5889f","parentUuid":"00f3b4ab-70c0-464b-bced-34a5ea9ef4ac","sessionId":"b34d8e61-4b94-4879-8701-5d3fefd97ce8","timestamp":"2026-12-05T19:45:13.479Z","type":"assistant","provenance":"assistant_output","cwd":"/home/ana/projects/atlas","version":"0.24.4","gitBranch":"main","model":"stub-model","message":{"role":"model","parts":[{"text":"Stub model says: use the deploy script."}]},"usageMetadata":{"promptTokenCount":100,"candidatesTokenCount":10,"thoughtsTokenCount":0,"totalTokenCount":110,"cachedContentTokenCount":0}}
{"uuid":"85ec1621-7a8d-4602-b781-d0f10b04b942","parentUuid":"2b135d7d-c3a4-46b9-905e-bfdc2fc5889f","sessionId":"b34d8e61-4b94-4879-8701-5d3fefd97ce8","timestamp":"2026-12-05T19:45:15.772Z","type":"system","provenance":"system","cwd":"/home/ana/projects/atlas","version":"0.24.4","gitBranch":"main","subtype":"at_command","systemPayload":{"filesRead":["NOTES.md"],"status":"success","userText":"and what about @NOTES.md ?"}}
{"uuid":"1f872c33-bd00-4f32-b814-5a5d70e9a3a6","parentUuid":"85ec1621-7a8d-4602-b781-d0f10b04b942","sessionId":"b34d8e61-4b94-4879-8701-5d3fefd97ce8","timestamp":"2026-12-05T19:45:15.783Z","type":"user","provenance":"real_user","cwd":"/home/ana/projects/atlas","version":"0.24.4","gitBranch":"main","message":{"role":"user","parts":[{"text":"and what about @NOTES.md ?"},{"text":"\n--- Content from referenced files ---"},{"text":"\nContent from NOTES.md:\n"},{"text":"deploy: run ./deploy.sh staging\n"},{"text":"\n--- End of content ---"}]}}
{"uuid":"a9396b08-8230-439c-be54-8e59dca1790d","parentUuid":"1f872c33-bd00-4f32-b814-5a5d70e9a3a6","sessionId":"b34d8e61-4b94-4879-8701-5d3fefd97ce8","timestamp":"2026-12-05T19:45:15.784Z","type":"system","provenance":"system","cwd":"/home/ana/projects/atlas","version":"0.24.4","gitBranch":"main","subtype":"attribution_snapshot","systemPayload":{"snapshot":{"type":"attribution-snapshot","version":1,"surface":"cli","fileStates":{},"promptCount":2,"promptCountAtLastCommit":0}}}
{"uuid":"ee6a9906-83c3-4f8e-8a00-bb6d252cbb23","parentUuid":"a9396b08-8230-439c-be54-8e59dca1790d","sessionId":"b34d8e61-4b94-4879-8701-5d3fefd97ce8","timestamp":"2026-12-05T19:45:16.198Z","type":"system","provenance":"system","cwd":"/home/ana/projects/atlas","version":"0.24.4","gitBranch":"main","subtype":"ui_telemetry","systemPayload":{"uiEvent":{"event.name":"qwen-code.api_response","event.timestamp":"2026-12-05T19:45:16.197Z","response_id":"chatcmpl-stub","model":"stub-model","status_code":200,"duration_ms":342,"input_token_count":100,"output_token_count":10,"cached_content_token_count":0,"thoughts_token_count":0,"total_token_count":110,"response_text":"Stub model says: use the deploy script.","prompt_id":"b34d8e61-4b94-4879-8701-5d3fefd97ce8########2","auth_type":"openai","ttft_ms":334}}}
{"uuid":"a8b8e889-be2a-46bf-9a8a-9c5bca738207","parentUuid":"ee6a9906-83c3-4f8e-8a00-bb6d252cbb23","sessionId":"b34d8e61-4b94-4879-8701-5d3fefd97ce8","timestamp":"2026-12-05T19:45:16.202Z","type":"assistant","provenance":"assistant_output","cwd":"/home/ana/projects/atlas","version":"0.24.4","gitBranch":"main","model":"stub-model","message":{"role":"model","parts":[{"text":"Stub model says: use the deploy script."}]},"usageMetadata":{"promptTokenCount":100,"candidatesTokenCount":10,"thoughtsTokenCount":0,"totalTokenCount":110,"cachedContentTokenCount":0}}
{"uuid":"a6c339d1-a39f-4c63-a83a-d059bb19fd14","parentUuid":"a8b8e889-be2a-46bf-9a8a-9c5bca738207","sessionId":"b34d8e61-4b94-4879-8701-5d3fefd97ce8","timestamp":"2026-12-05T19:45:16.450Z","type":"system","provenance":"system","cwd":"/home/ana/projects/atlas","version":"0.24.4","gitBranch":"main","subtype":"ui_telemetry","systemPayload":{"uiEvent":{"event.name":"qwen-code.api_response","event.timestamp":"2026-12-05T19:45:16.449Z","response_id":"chatcmpl-stub","model":"stub-model","status_code":200,"duration_ms":178,"input_token_count":100,"output_token_count":10,"cached_content_token_count":0,"thoughts_token_count":0,"total_token_count":110,"response_text":"Stub model says: use the deploy script.","prompt_id":"b34d8e61-4b94-4879-8701-5d3fefd97ce8#managed-auto-memory-extractor-c5dfd947#0","auth_type":"openai","ttft_ms":177,"subagent_name":"managed-auto-memory-extractor","subagent_id":"managed-auto-memory-extractor-c5dfd947","subagent_type":"managed-auto-memory-extractor"}}}"#;

/// Interactive (in tmux): two turns, `/rename Deploy notes`, Esc Esc → rewind to the second
/// turn ("Restore conversation only"), a new prompt, `/quit` (which re-appends the title).
/// Qwen Code 0.24.4.
const REAL_RENAME_AND_REWIND: &str = r#"{"uuid":"5e5e3845-cba7-4b1f-bf80-2d39addbfacd","parentUuid":null,"sessionId":"1703a300-bc26-42bb-961e-d25657ab0354","timestamp":"2026-12-05T19:45:30.275Z","type":"user","provenance":"real_user","cwd":"/home/ana/projects/atlas","version":"0.24.4","gitBranch":"main","message":{"role":"user","parts":[{"text":"how do I deploy to staging?"}]}}
{"uuid":"5a8a06b3-5f2c-45fd-bcfd-2ccfc4948d7c","parentUuid":"5e5e3845-cba7-4b1f-bf80-2d39addbfacd","sessionId":"1703a300-bc26-42bb-961e-d25657ab0354","timestamp":"2026-12-05T19:45:30.283Z","type":"system","provenance":"system","cwd":"/home/ana/projects/atlas","version":"0.24.4","gitBranch":"main","subtype":"attribution_snapshot","systemPayload":{"snapshot":{"type":"attribution-snapshot","version":1,"surface":"cli","fileStates":{},"promptCount":1,"promptCountAtLastCommit":0}}}
{"uuid":"710141dc-da39-4926-b9ba-526629f88ac3","parentUuid":"5a8a06b3-5f2c-45fd-bcfd-2ccfc4948d7c","sessionId":"1703a300-bc26-42bb-961e-d25657ab0354","timestamp":"2026-12-05T19:45:30.288Z","type":"system","provenance":"system","cwd":"/home/ana/projects/atlas","version":"0.24.4","gitBranch":"main","subtype":"file_history_snapshot","systemPayload":{"snapshots":[{"promptId":"1703a300-bc26-42bb-961e-d25657ab0354########0","timestamp":"2026-12-05T19:45:30.288Z","trackedFileBackups":{}}]}}
{"uuid":"9418c252-126d-43d5-8f61-7660076defd2","parentUuid":"710141dc-da39-4926-b9ba-526629f88ac3","sessionId":"1703a300-bc26-42bb-961e-d25657ab0354","timestamp":"2026-12-05T19:45:31.009Z","type":"system","provenance":"system","cwd":"/home/ana/projects/atlas","version":"0.24.4","gitBranch":"main","subtype":"ui_telemetry","systemPayload":{"uiEvent":{"event.name":"qwen-code.api_response","event.timestamp":"2026-12-05T19:45:31.008Z","response_id":"chatcmpl-stub","model":"stub-model","status_code":200,"duration_ms":441,"input_token_count":100,"output_token_count":10,"cached_content_token_count":0,"thoughts_token_count":0,"total_token_count":110,"response_text":"Stub model says: use the deploy script.","prompt_id":"1703a300-bc26-42bb-961e-d25657ab0354########0","auth_type":"openai","ttft_ms":437}}}
{"uuid":"80f8177d-35fa-4417-bf58-7472878756eb","parentUuid":"9418c252-126d-43d5-8f61-7660076defd2","sessionId":"1703a300-bc26-42bb-961e-d25657ab0354","timestamp":"2026-12-05T19:45:31.010Z","type":"assistant","provenance":"assistant_output","cwd":"/home/ana/projects/atlas","version":"0.24.4","gitBranch":"main","model":"stub-model","message":{"role":"model","parts":[{"text":"Stub model says: use the deploy script."}]},"usageMetadata":{"promptTokenCount":100,"candidatesTokenCount":10,"thoughtsTokenCount":0,"totalTokenCount":110,"cachedContentTokenCount":0}}
{"uuid":"679eac99-1b99-40d1-b08a-318a9a43b2b1","parentUuid":"80f8177d-35fa-4417-bf58-7472878756eb","sessionId":"1703a300-bc26-42bb-961e-d25657ab0354","timestamp":"2026-12-05T19:45:31.240Z","type":"system","provenance":"system","cwd":"/home/ana/projects/atlas","version":"0.24.4","gitBranch":"main","subtype":"ui_telemetry","systemPayload":{"uiEvent":{"event.name":"qwen-code.api_response","event.timestamp":"2026-12-05T19:45:31.240Z","response_id":"chatcmpl-stub","model":"stub-model","status_code":200,"duration_ms":137,"input_token_count":100,"output_token_count":10,"cached_content_token_count":0,"thoughts_token_count":0,"total_token_count":110,"response_text":"Stub model says: use the deploy script.","prompt_id":"1703a300-bc26-42bb-961e-d25657ab0354#managed-auto-memory-extractor-22d4915f#0","auth_type":"openai","ttft_ms":136,"subagent_name":"managed-auto-memory-extractor","subagent_id":"managed-auto-memory-extractor-22d4915f","subagent_type":"managed-auto-memory-extractor"}}}
{"uuid":"613a34f3-c83b-4f53-a91d-6a64d634e538","parentUuid":"679eac99-1b99-40d1-b08a-318a9a43b2b1","sessionId":"1703a300-bc26-42bb-961e-d25657ab0354","timestamp":"2026-12-05T19:45:34.645Z","type":"user","provenance":"real_user","cwd":"/home/ana/projects/atlas","version":"0.24.4","gitBranch":"main","message":{"role":"user","parts":[{"text":"and to production?"}]}}
{"uuid":"d65b7924-f523-45c5-a627-ed450ad175c2","parentUuid":"613a34f3-c83b-4f53-a91d-6a64d634e538","sessionId":"1703a300-bc26-42bb-961e-d25657ab0354","timestamp":"2026-12-05T19:45:34.646Z","type":"system","provenance":"system","cwd":"/home/ana/projects/atlas","version":"0.24.4","gitBranch":"main","subtype":"attribution_snapshot","systemPayload":{"snapshot":{"type":"attribution-snapshot","version":1,"surface":"cli","fileStates":{},"promptCount":2,"promptCountAtLastCommit":0}}}
{"uuid":"cab71311-66ab-4686-b01b-ec16519c76e7","parentUuid":"d65b7924-f523-45c5-a627-ed450ad175c2","sessionId":"1703a300-bc26-42bb-961e-d25657ab0354","timestamp":"2026-12-05T19:45:34.651Z","type":"system","provenance":"system","cwd":"/home/ana/projects/atlas","version":"0.24.4","gitBranch":"main","subtype":"file_history_snapshot","systemPayload":{"snapshots":[{"promptId":"1703a300-bc26-42bb-961e-d25657ab0354########1","timestamp":"2026-12-05T19:45:34.651Z","trackedFileBackups":{}}]}}
{"uuid":"009ad79a-f58e-4d55-9daa-2218ced87066","parentUuid":"cab71311-66ab-4686-b01b-ec16519c76e7","sessionId":"1703a300-bc26-42bb-961e-d25657ab0354","timestamp":"2026-12-05T19:45:34.721Z","type":"system","provenance":"system","cwd":"/home/ana/projects/atlas","version":"0.24.4","gitBranch":"main","subtype":"ui_telemetry","systemPayload":{"uiEvent":{"event.name":"qwen-code.api_response","event.timestamp":"2026-12-05T19:45:34.720Z","response_id":"chatcmpl-stub","model":"stub-model","status_code":200,"duration_ms":38,"input_token_count":100,"output_token_count":10,"cached_content_token_count":0,"thoughts_token_count":0,"total_token_count":110,"response_text":"Stub model says: use the deploy script.","prompt_id":"1703a300-bc26-42bb-961e-d25657ab0354########1","auth_type":"openai","ttft_ms":37}}}
{"uuid":"a7548ed2-6644-4af5-b002-af53d9378507","parentUuid":"009ad79a-f58e-4d55-9daa-2218ced87066","sessionId":"1703a300-bc26-42bb-961e-d25657ab0354","timestamp":"2026-12-05T19:45:34.721Z","type":"assistant","provenance":"assistant_output","cwd":"/home/ana/projects/atlas","version":"0.24.4","gitBranch":"main","model":"stub-model","message":{"role":"model","parts":[{"text":"Stub model says: use the deploy script."}]},"usageMetadata":{"promptTokenCount":100,"candidatesTokenCount":10,"thoughtsTokenCount":0,"totalTokenCount":110,"cachedContentTokenCount":0}}
{"uuid":"1945ccae-7ad9-49a6-a5b5-b41d9cd494c8","parentUuid":"a7548ed2-6644-4af5-b002-af53d9378507","sessionId":"1703a300-bc26-42bb-961e-d25657ab0354","timestamp":"2026-12-05T19:45:35.218Z","type":"system","provenance":"system","cwd":"/home/ana/projects/atlas","version":"0.24.4","gitBranch":"main","subtype":"ui_telemetry","systemPayload":{"uiEvent":{"event.name":"qwen-code.api_response","event.timestamp":"2026-12-05T19:45:35.218Z","response_id":"chatcmpl-stub","model":"stub-model","status_code":200,"duration_ms":90,"input_token_count":100,"output_token_count":10,"cached_content_token_count":0,"thoughts_token_count":0,"total_token_count":110,"response_text":"Stub model says: use the deploy script.","prompt_id":"1703a300-bc26-42bb-961e-d25657ab0354#managed-auto-memory-extractor-50077b6b#0","auth_type":"openai","ttft_ms":88,"subagent_name":"managed-auto-memory-extractor","subagent_id":"managed-auto-memory-extractor-50077b6b","subagent_type":"managed-auto-memory-extractor"}}}
{"uuid":"3ab8388b-1b7b-4019-bc48-fd4eb9781adf","parentUuid":"1945ccae-7ad9-49a6-a5b5-b41d9cd494c8","sessionId":"1703a300-bc26-42bb-961e-d25657ab0354","timestamp":"2026-12-05T19:45:39.164Z","type":"system","provenance":"system","cwd":"/home/ana/projects/atlas","version":"0.24.4","gitBranch":"main","subtype":"custom_title","systemPayload":{"customTitle":"Deploy notes","titleSource":"manual"}}
{"uuid":"b25f0264-7b2e-4232-859c-b306cfbdb5aa","parentUuid":"3ab8388b-1b7b-4019-bc48-fd4eb9781adf","sessionId":"1703a300-bc26-42bb-961e-d25657ab0354","timestamp":"2026-12-05T19:45:39.173Z","type":"system","provenance":"system","cwd":"/home/ana/projects/atlas","version":"0.24.4","gitBranch":"main","subtype":"slash_command","systemPayload":{"phase":"invocation","rawCommand":"/rename Deploy notes","sentToModel":false,"hiddenInvocation":false}}
{"uuid":"0778d732-b12c-4aaf-b589-cc77b2ac75bb","parentUuid":"b25f0264-7b2e-4232-859c-b306cfbdb5aa","sessionId":"1703a300-bc26-42bb-961e-d25657ab0354","timestamp":"2026-12-05T19:45:39.173Z","type":"system","provenance":"system","cwd":"/home/ana/projects/atlas","version":"0.24.4","gitBranch":"main","subtype":"slash_command","systemPayload":{"phase":"result","rawCommand":"/rename Deploy notes","outputHistoryItems":[{"type":"info","text":"Session renamed to \"Deploy notes\""}]}}
{"uuid":"092575c9-b63e-4f74-8fee-b361ce0a052c","parentUuid":"679eac99-1b99-40d1-b08a-318a9a43b2b1","sessionId":"1703a300-bc26-42bb-961e-d25657ab0354","timestamp":"2026-12-05T19:45:52.567Z","type":"system","provenance":"system","cwd":"/home/ana/projects/atlas","version":"0.24.4","gitBranch":"main","subtype":"rewind","systemPayload":{"truncatedCount":4}}
{"uuid":"1c393714-e82a-4614-8bfc-ed66e7a96451","parentUuid":"092575c9-b63e-4f74-8fee-b361ce0a052c","sessionId":"1703a300-bc26-42bb-961e-d25657ab0354","timestamp":"2026-12-05T19:45:52.567Z","type":"system","provenance":"system","cwd":"/home/ana/projects/atlas","version":"0.24.4","gitBranch":"main","subtype":"file_history_snapshot","systemPayload":{"snapshots":[{"promptId":"1703a300-bc26-42bb-961e-d25657ab0354########0","timestamp":"2026-12-05T19:45:30.288Z","trackedFileBackups":{}},{"promptId":"1703a300-bc26-42bb-961e-d25657ab0354########1","timestamp":"2026-12-05T19:45:34.651Z","trackedFileBackups":{}}]}}
{"uuid":"14c07b70-2a6a-4ad9-9ba8-bcc5b63511ae","parentUuid":"1c393714-e82a-4614-8bfc-ed66e7a96451","sessionId":"1703a300-bc26-42bb-961e-d25657ab0354","timestamp":"2026-12-05T19:45:54.640Z","type":"user","provenance":"real_user","cwd":"/home/ana/projects/atlas","version":"0.24.4","gitBranch":"main","message":{"role":"user","parts":[{"text":"and to the moon?"}]}}
{"uuid":"0056e700-40bf-438c-a734-fb52fc201db9","parentUuid":"14c07b70-2a6a-4ad9-9ba8-bcc5b63511ae","sessionId":"1703a300-bc26-42bb-961e-d25657ab0354","timestamp":"2026-12-05T19:45:54.640Z","type":"system","provenance":"system","cwd":"/home/ana/projects/atlas","version":"0.24.4","gitBranch":"main","subtype":"attribution_snapshot","systemPayload":{"snapshot":{"type":"attribution-snapshot","version":1,"surface":"cli","fileStates":{},"promptCount":3,"promptCountAtLastCommit":0}}}
{"uuid":"c764b0ff-7945-4f49-ba59-1a1adbd3a6ea","parentUuid":"0056e700-40bf-438c-a734-fb52fc201db9","sessionId":"1703a300-bc26-42bb-961e-d25657ab0354","timestamp":"2026-12-05T19:45:54.649Z","type":"system","provenance":"system","cwd":"/home/ana/projects/atlas","version":"0.24.4","gitBranch":"main","subtype":"file_history_snapshot","systemPayload":{"snapshots":[{"promptId":"1703a300-bc26-42bb-961e-d25657ab0354########2","timestamp":"2026-12-05T19:45:54.649Z","trackedFileBackups":{}}]}}
{"uuid":"06b2059e-f8d7-4fed-86e6-333e912f17fd","parentUuid":"c764b0ff-7945-4f49-ba59-1a1adbd3a6ea","sessionId":"1703a300-bc26-42bb-961e-d25657ab0354","timestamp":"2026-12-05T19:45:54.702Z","type":"system","provenance":"system","cwd":"/home/ana/projects/atlas","version":"0.24.4","gitBranch":"main","subtype":"ui_telemetry","systemPayload":{"uiEvent":{"event.name":"qwen-code.api_response","event.timestamp":"2026-12-05T19:45:54.701Z","response_id":"chatcmpl-stub","model":"stub-model","status_code":200,"duration_ms":15,"input_token_count":100,"output_token_count":10,"cached_content_token_count":0,"thoughts_token_count":0,"total_token_count":110,"response_text":"Stub model says: use the deploy script.","prompt_id":"1703a300-bc26-42bb-961e-d25657ab0354########2","auth_type":"openai","ttft_ms":14}}}
{"uuid":"edf3b877-f90d-456a-bc80-33eb05f75d07","parentUuid":"06b2059e-f8d7-4fed-86e6-333e912f17fd","sessionId":"1703a300-bc26-42bb-961e-d25657ab0354","timestamp":"2026-12-05T19:45:54.702Z","type":"assistant","provenance":"assistant_output","cwd":"/home/ana/projects/atlas","version":"0.24.4","gitBranch":"main","model":"stub-model","message":{"role":"model","parts":[{"text":"Stub model says: use the deploy script."}]},"usageMetadata":{"promptTokenCount":100,"candidatesTokenCount":10,"thoughtsTokenCount":0,"totalTokenCount":110,"cachedContentTokenCount":0}}
{"uuid":"ab1b1e7c-e937-4cdd-b561-d6bc0ef87b9c","parentUuid":"edf3b877-f90d-456a-bc80-33eb05f75d07","sessionId":"1703a300-bc26-42bb-961e-d25657ab0354","timestamp":"2026-12-05T19:45:55.140Z","type":"system","provenance":"system","cwd":"/home/ana/projects/atlas","version":"0.24.4","gitBranch":"main","subtype":"ui_telemetry","systemPayload":{"uiEvent":{"event.name":"qwen-code.api_response","event.timestamp":"2026-12-05T19:45:55.140Z","response_id":"chatcmpl-stub","model":"stub-model","status_code":200,"duration_ms":56,"input_token_count":100,"output_token_count":10,"cached_content_token_count":0,"thoughts_token_count":0,"total_token_count":110,"response_text":"Stub model says: use the deploy script.","prompt_id":"1703a300-bc26-42bb-961e-d25657ab0354#managed-auto-memory-extractor-33e44c16#0","auth_type":"openai","ttft_ms":55,"subagent_name":"managed-auto-memory-extractor","subagent_id":"managed-auto-memory-extractor-33e44c16","subagent_type":"managed-auto-memory-extractor"}}}
{"uuid":"47678755-d4d1-40fc-b211-232c605ea11c","parentUuid":"ab1b1e7c-e937-4cdd-b561-d6bc0ef87b9c","sessionId":"1703a300-bc26-42bb-961e-d25657ab0354","timestamp":"2026-12-05T19:46:02.992Z","type":"system","provenance":"system","cwd":"/home/ana/projects/atlas","version":"0.24.4","gitBranch":"main","subtype":"custom_title","systemPayload":{"customTitle":"Deploy notes","titleSource":"manual"}}"#;

const ATLAS: &str = "/home/ana/projects/atlas";
const STUB_REPLY: &str = "Stub model says: use the deploy script.";

fn qwen() -> &'static dyn SourceReader {
    reader(Source::QwenCode)
}

/// Writes `text` at `rel` under `home`, making its folders.
fn put(home: &Path, rel: &str, text: &str) -> PathBuf {
    let path = home.join(rel);
    std::fs::create_dir_all(path.parent().unwrap()).unwrap();
    std::fs::write(&path, text).unwrap();
    path
}

fn lines(values: &[Value]) -> String {
    values.iter().map(|v| v.to_string() + "\n").collect()
}

/// Reads one session file of the current layout, in one pass.
fn read_jsonl(text: &str) -> ParsedSession {
    let dir = tempfile::tempdir().unwrap();
    let path = put(dir.path(), "chats/0c0ffee0-0000-4000-8000-000000000000.jsonl", text);
    common::read_one(qwen(), &Unit::new(Source::QwenCode, path, UnitKind::Jsonl))
}

/// A record of the current layout: the common fields, then `fields`.
fn rec(uuid: &str, parent: Option<&str>, kind: &str, fields: Value) -> Value {
    let mut record = json!({"uuid": uuid, "parentUuid": parent, "sessionId": "0c0ffee0-0000-4000-8000-000000000000",
        "timestamp": "2026-06-01T10:00:00.000Z", "type": kind, "cwd": ATLAS, "version": "0.24.4"});
    record.as_object_mut().unwrap().extend(fields.as_object().unwrap().clone());
    record
}

fn text_parts(texts: &[&str]) -> Value {
    json!({"parts": texts.iter().map(|t| json!({"text": t})).collect::<Vec<_>>()})
}

#[test]
fn default_roots_follow_qwen_home_and_the_runtime_dir() {
    let env = |vars: &[(&str, &str)]| Env {
        home: Some(PathBuf::from("/home/ana")),
        vars: vars.iter().map(|(k, v)| (k.to_string(), v.to_string())).collect::<HashMap<_, _>>(),
    };
    assert_eq!(qwen().default_roots(&env(&[])), vec![PathBuf::from("/home/ana/.qwen")]);
    assert_eq!(qwen().default_roots(&env(&[("QWEN_HOME", "/srv/qwen")])), vec![PathBuf::from("/srv/qwen")]);
    assert_eq!(qwen().default_roots(&env(&[("QWEN_HOME", "~/dots/qwen")])), vec![Path::new("/home/ana").join("dots").join("qwen")]);
    assert_eq!(
        qwen().default_roots(&env(&[("QWEN_RUNTIME_DIR", "/var/qwen-runs"), ("QWEN_HOME", "  ")])),
        vec![PathBuf::from("/var/qwen-runs"), PathBuf::from("/home/ana/.qwen")]
    );
    assert!(qwen().default_roots(&Env::default()).is_empty());
}

#[test]
fn a_real_session_with_a_tool_call_and_an_at_file_prompt() {
    let s = read_jsonl(REAL_TOOL_AND_AT_FILE);
    assert_eq!(s.session_id.as_deref(), Some("b34d8e61-4b94-4879-8701-5d3fefd97ce8"));
    assert_eq!(s.workspace.as_deref(), Some(ATLAS));
    assert!(!s.hidden);
    assert_eq!(
        messages(&s),
        vec![
            ("ea657154-b1dd-46ce-8b5b-084fb6cbd657".into(), Role::User, "USE-TOOL please list the markdown files".into()),
            // The reply that only called `glob` has no text; its tool result is no message.
            ("2b135d7d-c3a4-46b9-905e-bfdc2fc5889f".into(), Role::Assistant, STUB_REPLY.into()),
            // What was typed (`at_command.userText`), not the prompt with NOTES.md pasted in.
            ("1f872c33-bd00-4f32-b814-5a5d70e9a3a6".into(), Role::User, "and what about @NOTES.md ?".into()),
            ("a8b8e889-be2a-46bf-9a8a-9c5bca738207".into(), Role::Assistant, STUB_REPLY.into()),
        ]
    );
    let calls: Vec<(&str, &str, i64)> = s.tool_calls.iter().map(|c| (c.key.as_str(), c.name.as_str(), c.after)).collect();
    assert_eq!(calls, vec![("call_stub_1", "glob", 0)]);
    assert_eq!(s.messages[1].timestamp, ms("2026-12-05T19:45:13.479Z"));
    // No title record: the first prompt stands for it.
    assert_eq!(s.title_candidate, None);
    assert_eq!(s.created, ms("2026-12-05T19:45:13.105Z"));
    assert_eq!(s.updated, ms("2026-12-05T19:45:16.450Z"));
}

const KEPT_AFTER_REWIND: [(&str, &str); 4] = [
    ("5e5e3845-cba7-4b1f-bf80-2d39addbfacd", "how do I deploy to staging?"),
    ("80f8177d-35fa-4417-bf58-7472878756eb", STUB_REPLY),
    ("14c07b70-2a6a-4ad9-9ba8-bcc5b63511ae", "and to the moon?"),
    ("edf3b877-f90d-456a-bc80-33eb05f75d07", STUB_REPLY),
];

fn kept_after_rewind() -> Vec<(String, Role, String)> {
    let roles = [Role::User, Role::Assistant, Role::User, Role::Assistant];
    KEPT_AFTER_REWIND.iter().zip(roles).map(|((id, text), role)| (id.to_string(), role, text.to_string())).collect()
}

#[test]
fn a_real_rewind_drops_the_turn_it_went_back_to_and_a_rename_is_the_title() {
    let s = read_jsonl(REAL_RENAME_AND_REWIND);
    // "and to production?" and its reply were rewound; the slash command is no message.
    assert_eq!(messages(&s), kept_after_rewind());
    assert_eq!(s.title_candidate, Some((TitleRank::Custom, "Deploy notes".to_string())));
    assert_eq!(s.updated, ms("2026-12-05T19:46:02.992Z"));
}

#[test]
fn a_rewind_read_in_any_later_pass_than_the_turn_it_removes() {
    // The index reads appended lines only: split the real file at every line, read the
    // first part, then the rest, and the transcript is the same.
    let all: Vec<&str> = REAL_RENAME_AND_REWIND.lines().collect();
    for split in 0..=all.len() {
        let dir = tempfile::tempdir().unwrap();
        let home = dir.path().join("home");
        let rel = ".qwen/projects/-home-ana-projects-atlas/chats/1703a300-bc26-42bb-961e-d25657ab0354.jsonl";
        let path = put(&home, rel, &all[..split].iter().map(|l| format!("{l}\n")).collect::<String>());
        let lib = common::library(&home, Some(&dir.path().join("index.sqlite")));
        let rest: String = all[split..].iter().map(|l| format!("{l}\n")).collect();
        std::fs::OpenOptions::new().append(true).open(&path).unwrap().write_all(rest.as_bytes()).unwrap();
        lib.refresh().unwrap();
        let t = lib.read_transcript(ReadArgs { session_id: Some("1703a300-bc26-42bb-961e-d25657ab0354".into()), ..Default::default() });
        let got: Vec<(String, Role, String)> = t.unwrap().messages.into_iter().map(|m| (m.message_id, m.role, m.text)).collect();
        assert_eq!(got, kept_after_rewind(), "split after line {split}");
    }
}

#[test]
fn a_rewind_to_the_first_turn_and_records_that_do_not_move_the_chain() {
    let text = lines(&[
        rec("u1", None, "user", json!({"message": text_parts(&["first question"])})),
        rec("a1", Some("u1"), "assistant", json!({"message": text_parts(&["first answer"])})),
        // Re-anchored title: written after a1 but the chain goes on from a1.
        rec("t1", Some("a1"), "system", json!({"subtype": "custom_title", "systemPayload": {"customTitle": "Old", "titleSource": "auto"}})),
        rec("u2", Some("a1"), "user", json!({"message": text_parts(&["second question"])})),
        rec("a2", Some("u2"), "assistant", json!({"message": text_parts(&["second answer"])})),
        // Rewind to turn 0: the parent of u1, none.
        rec("r1", None, "system", json!({"subtype": "rewind", "systemPayload": {"truncatedCount": 4}})),
        rec("u3", Some("r1"), "user", json!({"message": text_parts(&["a fresh start"])})),
    ]);
    let s = read_jsonl(&text);
    assert_eq!(messages(&s), vec![("u3".into(), Role::User, "a fresh start".into())]);
    assert_eq!(s.title_candidate, Some((TitleRank::Generated, "Old".to_string())));
}

#[test]
fn titles_generated_and_chosen() {
    let title = |uuid: &str, title: &str, source: Option<&str>| {
        let mut payload = json!({"customTitle": title});
        if let Some(source) = source {
            payload["titleSource"] = json!(source);
        }
        rec(uuid, Some("u1"), "system", json!({"subtype": "custom_title", "systemPayload": payload}))
    };
    let u1 = rec("u1", None, "user", json!({"message": text_parts(&["fix the build"])}));
    let s = read_jsonl(&lines(&[u1.clone(), title("t1", "Build fix", Some("auto"))]));
    assert_eq!(s.title_candidate, Some((TitleRank::Generated, "Build fix".to_string())));
    // A rename wins over the generated title; a record without a source (older versions)
    // is a rename; an empty title is none.
    let s = read_jsonl(&lines(&[
        u1.clone(),
        title("t1", "Build fix", Some("auto")),
        title("t2", "CI is red", Some("manual")),
        title("t3", "CI is green", None),
        title("t4", " ", Some("manual")),
    ]));
    assert_eq!(s.title(), "CI is green");
    let s = read_jsonl(&lines(&[u1]));
    assert_eq!((s.title_candidate.clone(), s.title()), (None, "fix the build".to_string()));
}

#[test]
fn prompts_as_the_cli_shows_them() {
    let hook = "<qwen:user-prompt-submit-context>\nrecalled: staging needs the VPN\n</qwen:user-prompt-submit-context>";
    let text = lines(&[
        // A hook's context is appended as a last part; without a payload it is dropped.
        rec("u1", None, "user", json!({"message": text_parts(&["deploy it", hook])})),
        // With `hookContext` in the payload, `displayText` is what was typed.
        rec("u2", Some("u1"), "user", json!({"message": text_parts(&["deploy it now (expanded)"]),
            "systemPayload": {"displayText": "deploy it now", "hookContext": ""}})),
        // Typed while tools ran.
        rec("u3", Some("u2"), "user", json!({"subtype": "mid_turn_user_message", "message": text_parts(&["also tag it"]),
            "systemPayload": {"displayText": "also tag it!"}})),
        // Not the person's words.
        rec("n1", Some("u3"), "user", json!({"subtype": "notification", "message": text_parts(&["Background agent completed"])})),
        rec("c1", Some("n1"), "user", json!({"subtype": "cron", "message": text_parts(&["nightly check"])})),
        rec("g1", Some("c1"), "user", json!({"subtype": "goal_runtime", "message": text_parts(&["keep going"])})),
        // Thoughts are not the reply; parts join by line breaks; calls are tool calls.
        rec("a1", Some("g1"), "assistant", json!({"message": {"role": "model", "parts": [
            {"text": "The user wants a deploy.", "thought": true},
            {"text": "Deploying now."},
            {"text": "Tagged v1.2."},
            {"functionCall": {"id": "call_9", "name": "run_shell_command", "args": {"command": "./deploy.sh"}}},
            {"functionCall": {"name": "agent", "args": {}}}]}})),
        rec("r1", Some("a1"), "tool_result", json!({"message": {"role": "user", "parts": [{"functionResponse": {"id": "call_9", "name": "run_shell_command", "response": {"output": "ok"}}}]}})),
        // A voice conversation.
        rec("v1", Some("r1"), "user", json!({"subtype": "realtime_message", "message": text_parts(&["spoken question"])})),
        rec("v2", Some("v1"), "assistant", json!({"subtype": "realtime_message", "message": text_parts(&["spoken answer"])})),
        // A compression checkpoint leaves what was said as it was.
        rec("z1", Some("v2"), "system", json!({"subtype": "chat_compression", "systemPayload": {"info": {}, "compressedHistory": [{"role": "user", "parts": [{"text": "summary"}]}]}})),
    ]);
    let s = read_jsonl(&text);
    assert_eq!(
        messages(&s),
        vec![
            ("u1".into(), Role::User, "deploy it".into()),
            ("u2".into(), Role::User, "deploy it now".into()),
            ("u3".into(), Role::User, "also tag it!".into()),
            ("a1".into(), Role::Assistant, "Deploying now.\nTagged v1.2.".into()),
            ("v1".into(), Role::User, "spoken question".into()),
            ("v2".into(), Role::Assistant, "spoken answer".into()),
        ]
    );
    let calls: Vec<(&str, &str, i64)> = s.tool_calls.iter().map(|c| (c.key.as_str(), c.name.as_str(), c.after)).collect();
    assert_eq!(calls, vec![("call_9", "run_shell_command", 3), ("a1#1", "agent", 3)]);
}

#[test]
fn glued_records_and_records_without_an_id() {
    let u1 = rec("u1", None, "user", json!({"message": text_parts(&["one"])}));
    let a1 = rec("a1", Some("u1"), "assistant", json!({"message": text_parts(&["two"])}));
    let mut no_id = rec("x", Some("a1"), "user", json!({"message": text_parts(&["no id"])}));
    no_id.as_object_mut().unwrap().remove("uuid");
    let s = read_jsonl(&format!("{u1}{a1}\n{no_id}\n"));
    assert_eq!(messages(&s), vec![("u1".into(), Role::User, "one".into()), ("a1".into(), Role::Assistant, "two".into())]);
}

const S1: &str = "3f2a9c1e-7b64-4d0a-9e21-5c8d0f4b6a17";
const S2: &str = "77aa88bb-1111-4222-8333-444455556666";
const S3: &str = "c0ffee00-aaaa-4bbb-8ccc-0123456789ab";

/// A legacy (0.1.x) session document.
fn legacy_doc(id: &str) -> String {
    serde_json::to_string_pretty(&json!({
        "sessionId": id, "projectHash": "5e55", "startTime": "2025-09-01T12:00:00.000Z", "lastUpdated": "2025-09-01T12:05:00.000Z",
        "messages": [
            {"id": "e1", "timestamp": "2025-09-01T12:00:01.000Z", "type": "user", "content": "Upgrade the app to Node 22"},
            {"id": "e2", "timestamp": "2025-09-01T12:00:09.000Z", "type": "qwen", "content": "",
             "thoughts": [{"subject": "Plan", "description": "check .nvmrc"}],
             "toolCalls": [{"id": "read_file-1", "name": "read_file", "displayName": "ReadFile", "args": {}, "status": "success"}]},
            {"id": "e3", "timestamp": "2025-09-01T12:00:20.000Z", "type": "qwen", "content": "I'll update `.nvmrc` and the CI matrix.",
             "tokens": {"input": 10, "output": 5}, "model": "qwen3-coder-plus"},
            {"id": "e4", "timestamp": "2025-09-01T12:01:00.000Z", "type": "info", "content": "Request cancelled."},
            {"id": "e5", "timestamp": "2025-09-01T12:02:00.000Z", "type": "user", "content": [{"text": "Also bump "}, {"text": "the engines field"}]}
        ]
    }))
    .unwrap()
}

fn project_hash(path: &str) -> String {
    use sha2::Digest;
    sha2::Sha256::digest(path.as_bytes()).iter().map(|b| format!("{b:02x}")).collect()
}

/// A `~/.qwen` with both layouts, an archived session, sidecars, a sub-agent transcript, and
/// legacy folders whose project path is known (from a newer session) or not.
fn layouts_home(home: &Path) {
    let q = ".qwen/projects/-home-ana-projects-atlas";
    put(home, &format!("{q}/chats/{S1}.jsonl"), &REAL_TOOL_AND_AT_FILE.replace("b34d8e61-4b94-4879-8701-5d3fefd97ce8", S1));
    put(home, &format!("{q}/chats/archive/{S2}.jsonl"), &REAL_RENAME_AND_REWIND.replace("1703a300-bc26-42bb-961e-d25657ab0354", S2));
    for sidecar in [".runtime.json", ".ledger.jsonl", ".worktree.json", ".pr.json"] {
        put(home, &format!("{q}/chats/{S1}{sidecar}"), "{}\n");
    }
    put(home, &format!("{q}/subagents/{S1}/agent-a1.jsonl"), &REAL_TOOL_AND_AT_FILE.replace("b34d8e61", "5ab5ab5a"));
    put(home, &format!("{q}/meta.json"), r#"{"version":1}"#);
    put(home, &format!(".qwen/tmp/{}/chats/session-2025-09-01T12-00-{}.json", project_hash(ATLAS), &S3[..8]), &legacy_doc(S3));
    put(home, &format!(".qwen/tmp/{}/chats/session-2025-08-01T09-00-aaaaaaaa.json", "ab".repeat(32)), &legacy_doc("aaaaaaaa-0000-4000-8000-000000000000"));
    put(home, &format!(".qwen/tmp/{}/logs.json", "ab".repeat(32)), "[]");
    put(home, &format!(".qwen/tmp/{}/checkpoint-release.json", "ab".repeat(32)), "[]");
}

#[test]
fn discover_reads_both_layouts_and_archived_sessions_and_nothing_else() {
    let dir = tempfile::tempdir().unwrap();
    let home = dir.path().join("home");
    layouts_home(&home);
    let root = home.join(".qwen");
    let (units, problems) = common::discover(qwen(), &root);
    assert!(problems.is_empty(), "{problems:?}");
    let got: Vec<(String, UnitKind, Option<&str>, Option<&str>)> = units
        .iter()
        .map(|u| {
            let rel = u.path.strip_prefix(&root).unwrap().to_string_lossy().replace('\\', "/");
            (rel, u.kind, u.workspace_hint.as_deref(), u.session_hint.as_deref())
        })
        .collect();
    let hash = project_hash(ATLAS);
    assert_eq!(
        got,
        vec![
            (format!("projects/-home-ana-projects-atlas/chats/{S1}.jsonl"), UnitKind::Jsonl, None, Some(S1)),
            (format!("projects/-home-ana-projects-atlas/chats/archive/{S2}.jsonl"), UnitKind::Jsonl, None, Some(S2)),
            // The legacy folder of a project path a newer session recorded, and one unknown.
            (format!("tmp/{}/chats/session-2025-08-01T09-00-aaaaaaaa.json", "ab".repeat(32)), UnitKind::Whole, None, None),
            (format!("tmp/{hash}/chats/session-2025-09-01T12-00-c0ffee00.json"), UnitKind::Whole, Some(ATLAS), None),
        ]
    );
    // The `projects` folder, or one project's, is a root too.
    let (projects, _) = common::discover(qwen(), &root.join("projects"));
    assert_eq!(projects, units[..2].to_vec());
    let (one, _) = common::discover(qwen(), &root.join("projects/-home-ana-projects-atlas"));
    assert_eq!(one, units[..2].to_vec());

    // Through the library: three sessions listed (the archived one too), one per file.
    let lib = common::library(&home, None);
    let list = lib.list_sessions(Default::default()).unwrap();
    let mut listed: Vec<(String, String, Option<String>)> =
        list.sessions.into_iter().map(|s| (s.session_id, s.title, s.workspace)).collect();
    listed.sort();
    assert_eq!(
        listed,
        vec![
            (S1.into(), "USE-TOOL please list the markdown files".into(), Some(ATLAS.into())),
            (S2.into(), "Deploy notes".into(), Some(ATLAS.into())),
            ("aaaaaaaa-0000-4000-8000-000000000000".into(), "Upgrade the app to Node 22".into(), None),
            (S3.into(), "Upgrade the app to Node 22".into(), Some(ATLAS.into())),
        ]
    );
}

#[test]
fn a_legacy_document() {
    let dir = tempfile::tempdir().unwrap();
    let path = put(dir.path(), "chats/session-2025-09-01T12-00-c0ffee00.json", &legacy_doc(S3));
    let mut unit = Unit::new(Source::QwenCode, path.clone(), UnitKind::Whole);
    unit.workspace_hint = Some("C:\\Users\\ana\\app".into());
    let s = common::read_one(qwen(), &unit);
    assert_eq!(s.session_id.as_deref(), Some(S3));
    assert_eq!(s.workspace.as_deref(), Some("C:\\Users\\ana\\app"));
    assert_eq!(
        messages(&s),
        vec![
            ("e1".into(), Role::User, "Upgrade the app to Node 22".into()),
            ("e3".into(), Role::Assistant, "I'll update `.nvmrc` and the CI matrix.".into()),
            ("e5".into(), Role::User, "Also bump the engines field".into()),
        ]
    );
    let calls: Vec<(&str, &str, i64)> = s.tool_calls.iter().map(|c| (c.key.as_str(), c.name.as_str(), c.after)).collect();
    assert_eq!(calls, vec![("read_file-1", "ReadFile", 0)]);
    assert_eq!((s.created, s.updated), (ms("2025-09-01T12:00:00.000Z"), ms("2025-09-01T12:05:00.000Z")));
    // Being rewritten: not a document yet, an error the index retries.
    std::fs::write(&path, "{\"sessionId\": \"c0ff").unwrap();
    assert!(read_unit(qwen(), &unit).is_err());
}

#[test]
fn windows_paths_are_kept_and_a_windows_legacy_hash_is_resolved() {
    // Qwen Code lower-cases the project path before hashing it on Windows.
    let dir = tempfile::tempdir().unwrap();
    let home = dir.path();
    let cwd = "C:\\Users\\Ana\\Projects\\Atlas";
    let first = rec("u1", None, "user", json!({"cwd": cwd, "message": text_parts(&["hello"])}));
    put(home, &format!(".qwen/projects/c--users-ana-projects-atlas/chats/{S1}.jsonl"), &lines(&[first]));
    let legacy = format!(".qwen/tmp/{}/chats/session-2025-09-01T12-00-c0ffee00.json", project_hash(&cwd.to_lowercase()));
    put(home, &legacy, &legacy_doc(S3));
    let (units, problems) = common::discover(qwen(), &home.join(".qwen"));
    assert!(problems.is_empty(), "{problems:?}");
    assert_eq!(common::unit_named(&units, "c0ffee00.json").workspace_hint.as_deref(), Some(cwd));
    let s = common::read_one(qwen(), &common::unit_named(&units, S1));
    assert_eq!(s.workspace.as_deref(), Some(cwd));
}

#[cfg(unix)]
#[test]
fn links_out_of_the_root_are_not_followed() {
    use std::os::unix::fs::symlink;
    let dir = tempfile::tempdir().unwrap();
    let home = dir.path().join("home");
    let outside = dir.path().join("elsewhere");
    put(&outside, &format!("chats/{S2}.jsonl"), REAL_TOOL_AND_AT_FILE);
    put(&home, &format!(".qwen/projects/p/chats/{S1}.jsonl"), REAL_TOOL_AND_AT_FILE);
    symlink(&outside, home.join(".qwen/projects/linked")).unwrap();
    symlink(outside.join(format!("chats/{S2}.jsonl")), home.join(format!(".qwen/projects/p/chats/{S3}.jsonl"))).unwrap();
    let (units, problems) = common::discover(qwen(), &home.join(".qwen"));
    assert_eq!(units.len(), 1);
    assert!(units[0].path.ends_with(format!("chats/{S1}.jsonl")));
    assert_eq!(problems.len(), 2, "{problems:?}");
}
