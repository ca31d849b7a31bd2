// A task list item's box ("- [x] done"). Markdown makes it a disabled checkbox, which a
// screen reader announces as a form field with no label; it is a mark, so it is shown as
// one, with its state as its name.
import { useTranslation } from "react-i18next";

export function TaskCheckbox({ checked }: { checked?: boolean }) {
  const { t } = useTranslation();
  return (
    <span className="md-task" role="img" aria-label={t(checked ? "markdown.taskDone" : "markdown.taskOpen")}>
      {checked ? "☑" : "☐"}
    </span>
  );
}
