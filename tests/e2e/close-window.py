#!/usr/bin/python3
"""Closes a top-level X11 window the way a window manager does when the person clicks
its close button: a WM_DELETE_WINDOW client message (WebDriver's "close window" kills
the WebKit process instead, which no real user action does).

Usage: close-window.py TITLE   (DISPLAY must point at the X server, e.g. under xvfb-run)
"""
import sys

from Xlib import X, display, protocol


def find_all(window, title, found):
    if window.get_wm_name() == title:
        found.append(window)
    for child in window.query_tree().children:
        find_all(child, title, found)
    return found


def main():
    title = sys.argv[1]
    d = display.Display()
    # The topmost match: a window left behind by an earlier run sits below.
    matches = find_all(d.screen().root, title, [])
    if not matches:
        sys.exit(f"no window titled {title!r}")
    target = matches[-1]
    protocols = d.intern_atom("WM_PROTOCOLS")
    delete = d.intern_atom("WM_DELETE_WINDOW")
    event = protocol.event.ClientMessage(window=target, client_type=protocols, data=(32, [delete, X.CurrentTime, 0, 0, 0]))
    target.send_event(event, event_mask=X.NoEventMask)
    d.flush()


if __name__ == "__main__":
    main()
