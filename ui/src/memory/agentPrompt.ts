// The instructions "Copy prompt" puts on the clipboard for the person's agent. English on
// purpose: it is read by a model, not shown in the UI, and the rules must not drift
// between translations.
export const AGENT_PROMPT = `## Memory Bank
You can save and look up durable facts in the user's Memory Bank.

Saving:
- Save only after the human confirms. First draft one crisp, self-contained sentence with the key fact, show it, and let the human confirm or edit it. Save exactly the confirmed sentence, never raw output.
- Optionally attach a short snippet of where it came from, with the session and message ids it cites.

Searching:
- Search only when the human asks you to recall something; never look up memories on your own. Use their words as the query and show only the relevant results.

Never store secrets, credentials, passwords, API keys, tokens or personal data, in the sentence or in any snippet. If something looks sensitive, point it out and leave it out.

Delete a memory only after the human confirms.
`;
