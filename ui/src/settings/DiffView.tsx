// A unified diff as the person reviews it before Memory Bank changes an agent's settings.

/** A unified diff, added and removed lines marked (the +/- stay in the text). */
export function DiffView({ diff, label }: { diff: string; label: string }) {
  const lines = diff.replace(/\n$/, "").split("\n");
  return (
    // Focusable so a long diff can be scrolled with the keyboard.
    <div className="diff" role="region" aria-label={label} tabIndex={0}>
      <pre>
        {lines.map((line, index) => (
          <span
            key={index}
            className={
              line.startsWith("+++") || line.startsWith("---")
                ? "diff-file"
                : line.startsWith("@@")
                  ? "diff-hunk"
                  : line.startsWith("+")
                    ? "diff-add"
                    : line.startsWith("-")
                      ? "diff-del"
                      : undefined
            }
          >
            {line}
            {"\n"}
          </span>
        ))}
      </pre>
    </div>
  );
}
