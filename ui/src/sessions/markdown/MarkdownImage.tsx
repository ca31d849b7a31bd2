// An image in a transcript is never loaded: a remote image would be a request to a
// server nobody chose (and a tracking pixel), and the app talks only to the memory
// service. It is shown as text: its description and where it points.
import { useTranslation } from "react-i18next";

interface Props {
  alt?: string;
  /** Already checked by `transcriptUrlTransform`: "" for a javascript:, data: … source. */
  src?: string;
}

export function MarkdownImage({ alt, src }: Props) {
  const { t } = useTranslation();
  return (
    <span className="md-image">
      <span className="md-image-label">{t("markdown.image")}</span> {alt}
      {src && <code className="md-image-src">{src}</code>}
    </span>
  );
}
