// Text with its secret-looking spans in <mark>, built from segments (never HTML).
import type { SecretMatch } from "./secrets";
import { segments } from "./secrets";

export function SecretText({ text, matches }: { text: string; matches: SecretMatch[] }) {
  return (
    <>
      {segments(text, matches).map((segment, index) =>
        segment.secret ? (
          <mark key={index} className="secret">
            {segment.text}
          </mark>
        ) : (
          <span key={index}>{segment.text}</span>
        ),
      )}
    </>
  );
}
