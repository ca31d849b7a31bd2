"""Finding the app's top-level X11 window by title, for the E2E helper scripts."""
import sys


def find_all(window, title, found):
    if window.get_wm_name() == title:
        found.append(window)
    for child in window.query_tree().children:
        find_all(child, title, found)
    return found


def topmost(display, title):
    """The topmost window titled `title` (a window left behind by an earlier run sits
    below); exits with a message when there is none."""
    matches = find_all(display.screen().root, title, [])
    if not matches:
        sys.exit(f"no window titled {title!r}")
    return matches[-1]
