// A transcript message rendered as the Markdown the agent wrote: GitHub-flavoured
// (tables, task lists, strikethrough, autolinks), line breaks kept as written, code
// highlighted and long blocks folded. Untrusted text throughout: no raw HTML is ever
// parsed (react-markdown without rehype-raw; rehypeTranscript keeps it as literal text),
// links open only in the system browser, images are never loaded.
import { memo, useMemo } from "react";
import { useTranslation } from "react-i18next";
import Markdown, { type Components, type Options } from "react-markdown";
import remarkBreaks from "remark-breaks";
import remarkGfm from "remark-gfm";
import { CodeBlock } from "./CodeBlock";
import { transcriptUrlTransform } from "./links";
import { MarkdownImage } from "./MarkdownImage";
import { MarkdownLink } from "./MarkdownLink";
import { rehypeTranscript } from "./rehypeTranscript";
import { ScrollTable } from "./ScrollTable";
import { SecretMark } from "./SecretMark";
import { TaskCheckbox } from "./TaskCheckbox";
import "./markdown.css";

const REMARK_PLUGINS: Options["remarkPlugins"] = [remarkGfm, remarkBreaks];
const REHYPE_PLUGINS: Options["rehypePlugins"] = [rehypeTranscript];
const COMPONENTS: Components = {
  a: MarkdownLink,
  img: MarkdownImage,
  pre: CodeBlock,
  mark: SecretMark,
  input: TaskCheckbox,
  table: ScrollTable,
};

/** Re-rendered only when its text (or the language) changes: parsing is the costly part. */
export const MessageMarkdown = memo(function MessageMarkdown({ text }: { text: string }) {
  const { t } = useTranslation();
  const footnotes = t("markdown.footnotes");
  const remarkRehypeOptions = useMemo(
    () => ({ footnoteLabel: footnotes, footnoteLabelTagName: "p", footnoteLabelProperties: { className: ["md-footnotes-label"] } }),
    [footnotes],
  );
  return (
    <Markdown
      remarkPlugins={REMARK_PLUGINS}
      rehypePlugins={REHYPE_PLUGINS}
      remarkRehypeOptions={remarkRehypeOptions}
      components={COMPONENTS}
      urlTransform={transcriptUrlTransform}
    >
      {text}
    </Markdown>
  );
});
