// Search input that reports a debounced query. IME-safe: while a composition is in
// progress (typing pinyin, for example) the text is not a query yet, so nothing is
// reported until compositionend.
import { useEffect, useId, useState } from "react";
import { useTranslation } from "react-i18next";
import { SearchIcon } from "./icons";

export const SEARCH_DEBOUNCE_MS = 250;

interface Props {
  onQuery: (query: string) => void;
  /** Defaults to the memory search's label and placeholder. */
  label?: string;
  placeholder?: string;
  /** The text to start with (a view coming back keeps its search). */
  initialText?: string;
}

export function SearchBox({ onQuery, label, placeholder, initialText = "" }: Props) {
  const { t } = useTranslation();
  const id = useId();
  const [text, setText] = useState(initialText);
  const [composing, setComposing] = useState(false);

  useEffect(() => {
    if (composing) return;
    const timer = setTimeout(() => onQuery(text.trim()), SEARCH_DEBOUNCE_MS);
    return () => clearTimeout(timer);
  }, [text, composing, onQuery]);

  return (
    <div className="search">
      <label htmlFor={id} className="visually-hidden">
        {label ?? t("memory.searchLabel")}
      </label>
      <SearchIcon />
      <input
        id={id}
        type="search"
        className="input"
        placeholder={placeholder ?? t("memory.searchPlaceholder")}
        value={text}
        autoComplete="off"
        spellCheck={false}
        onChange={(event) => setText(event.currentTarget.value)}
        onCompositionStart={() => setComposing(true)}
        onCompositionEnd={(event) => {
          // Some engines send the final input event before compositionend and some
          // after; take the value from the element so either order ends the same.
          setText(event.currentTarget.value);
          setComposing(false);
        }}
      />
    </div>
  );
}
