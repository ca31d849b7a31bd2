// Secret detection for the "Remember…" dialog: what it must catch, and ordinary text it
// must leave alone.
import { describe, expect, it } from "vitest";
import { findSecrets, secretKinds, segments, type SecretKind } from "../src/sessions/secrets";

const kinds = (text: string) => secretKinds(findSecrets(text));
const matched = (text: string) => findSecrets(text).map((m) => text.slice(m.start, m.end));

describe("findSecrets: true positives", () => {
  const cases: [string, string, SecretKind][] = [
    ["OpenAI key", "use sk-proj-4fGh7Jk9LmNoPqRsTuVwXyZ012345 here", "openaiKey"],
    ["OpenAI legacy key", "OPENAI_KEY sk-abcdefghij1234567890ABCDEFGHIJ", "openaiKey"],
    ["Anthropic key", "sk-ant-api03-AbCdEfGhIjKlMnOpQrStUvWxYz0123456789", "anthropicKey"],
    ["Stripe key", "sk_live_51HxYzAbCdEfGhIjKlMn", "stripeKey"],
    ["GitHub classic token", "ghp_0123456789abcdefghijABCDEFGHIJ0123", "githubToken"],
    ["GitHub OAuth token", "gho_0123456789abcdefghijABCDEFGHIJ0123", "githubToken"],
    ["GitHub fine-grained", "github_pat_11ABCDEFG0123456789_abcdefghijklmnopqrstuvwxyz", "githubToken"],
    ["Slack bot token", "xoxb-123456789012-abcdefABCDEF", "slackToken"],
    ["Slack user token", "xoxp-1234-5678-abcdef", "slackToken"],
    ["AWS access key", "aws_access_key_id = AKIAIOSFODNN7EXAMPLE", "awsKey"],
    ["Google API key", "key=AIzaSyA1234567890abcdefghijklmnopqrstuv", "googleKey"],
    ["Memory Bank token", "MEMORY_BANK_TOKEN=mbk_Zm9vYmFyYmF6cXV4MTIzNDU2Nzg5MGFiY2RlZmdo", "memoryBankToken"],
    ["JWT", "eyJhbGciOiJIUzI1NiJ9.eyJzdWIiOiIxMjM0NTY3ODkwIn0.dozjgNryP4J3jVmNHl0w5N_XgL0n3I9PlFUP0THsR8U", "jwt"],
    ["private key", "-----BEGIN OPENSSH PRIVATE KEY-----\nb3BlbnNzaC1rZXktdjEAAAA\n-----END OPENSSH PRIVATE KEY-----", "privateKey"],
    ["RSA private key", "-----BEGIN RSA PRIVATE KEY-----\nMIIEpAIBAAKCAQEA", "privateKey"],
    ["password in a URL", "DATABASE_URL=postgres://app:s3cr3t-pw@db.internal:5432/app", "urlPassword"],
    ["password assignment", 'password = "hunter2!"', "assignment"],
    ["api_key assignment", "api_key: 9f8e7d6c5b4a", "assignment"],
    ["secret assignment", "CLIENT_SECRET=abcDEF123456", "assignment"],
    ["long passphrase", "password=correcthorsebatterystaple", "assignment"],
    ["Bearer token", "Authorization: Bearer abc123DEF456ghi789JKL", "bearer"],
  ];
  it.each(cases)("%s", (_name, text, kind) => {
    expect(kinds(text)).toContain(kind);
  });

  it("reports the exact span", () => {
    expect(matched("token ghp_0123456789abcdefghijABCDEFGHIJ0123 expired")).toEqual([
      "ghp_0123456789abcdefghijABCDEFGHIJ0123",
    ]);
    expect(matched("see https://alice:pw12345@git.example.com/repo.git")).toEqual([
      "https://alice:pw12345@git.example.com",
    ]);
  });

  it("an Anthropic key is one finding, not also an OpenAI one", () => {
    const found = findSecrets("sk-ant-api03-AbCdEfGhIjKlMnOpQrStUvWxYz0123456789");
    expect(found).toHaveLength(1);
    expect(found[0].kind).toBe("anthropicKey");
  });
});

describe("findSecrets: what the service also finds, marked where it is in the text", () => {
  const key = "AKIAQWERTYUIOPASDFGH";
  const fullwidth = [...key].map((c) => String.fromCodePoint(c.codePointAt(0)! - 0x21 + 0xff01)).join("");
  const cases: [string, string, string][] = [
    ["run together with Japanese", `鍵は${key}です`, key],
    ["a zero-width space inside", "AKIAQWERTY\u200bUIOPASDFGH", "AKIAQWERTY\u200bUIOPASDFGH"],
    ["a soft hyphen inside", "AKIAQWERTY\u00adUIOPASDFGH", "AKIAQWERTY\u00adUIOPASDFGH"],
    ["broken over two lines", "the key AKIAQWERTY\nUIOPASDFGH, rotate it", "AKIAQWERTY\nUIOPASDFGH"],
    ["in fullwidth letters", `key ${fullwidth}`, fullwidth],
  ];
  it.each(cases)("%s", (_name, text, marked) => {
    expect(kinds(text)).toEqual(["awsKey"]);
    expect(matched(text)).toEqual([marked]);
  });

  it("an AWS secret key, and assignments inside longer names", () => {
    expect(kinds("aws_secret_access_key = wJalrXUtnFEMI/K7MDENG/bPxRfiCYEXAMPLEKEY")).toContain("awsSecret");
    for (const text of ["DB_PASSWORD=Tr0ub4dor&3", "export GITHUB_TOKEN=abc123def456"]) expect(kinds(text)).toEqual(["assignment"]);
  });
});

describe("findSecrets: false positives", () => {
  const clean = [
    "We deploy on Tuesdays after 14:00 UTC; ask in #ops first.",
    "The password policy requires twelve characters.",
    "password: required",
    "Set the secret: keep it in the keyring, never in the repo.",
    "api_key=$OPENAI_API_KEY and token={{ secrets.TOKEN }}",
    "password=process.env.DB_PASSWORD",
    "See https://docs.example.com/guide?user=alice and http://localhost:5173/",
    "Mail alice@example.com or visit https://example.com/a:b@c",
    "Use sk-learn? No: scikit-learn. Also task-sk and the sk_ prefix.",
    "sk-this-is-just-a-hyphenated-phrase-without-numbers",
    "A Bearer token goes in the Authorization header.",
    "eyJ is how base64 JSON starts.",
    "AKIA is the prefix of AWS access key ids.",
    "ghp_ tokens are GitHub personal access tokens.",
    "-----BEGIN PUBLIC KEY-----\nMFkwEwYHKoZIzj0CAQYIKoZIzj0DAQcDQgAE",
    "喜欢在周五下午安排团队回顾会议。",
    "set max_tokens: 100000 for long answers",
    "DB_PASSWORD=${DB_PASSWORD}",
    "two lines\nof ordinary words",
  ];
  it.each(clean)("%s", (text) => {
    expect(findSecrets(text)).toEqual([]);
  });
});

describe("segments", () => {
  it("cuts text into plain and secret parts that join back to the text", () => {
    const text = "a xoxb-123456789012-abc b AKIAIOSFODNN7EXAMPLE c";
    const parts = segments(text, findSecrets(text));
    expect(parts.map((part) => part.text).join("")).toBe(text);
    expect(parts.filter((part) => part.secret).map((part) => part.secret)).toEqual(["slackToken", "awsKey"]);
  });

  it("merges overlapping matches", () => {
    const text = "postgres://u:AKIAIOSFODNN7EXAMPLE@db";
    const found = findSecrets(text);
    expect(found).toHaveLength(1);
    expect(text.slice(found[0].start, found[0].end)).toBe(text);
  });
});
