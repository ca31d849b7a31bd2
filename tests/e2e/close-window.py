#!/usr/bin/python3
"""Closes a top-level X11 window the way a window manager does when the person clicks
its close button: a WM_DELETE_WINDOW client message (WebDriver's "close window" kills
the WebKit process instead, which no real user action does).

Usage: close-window.py TITLE   (DISPLAY must point at the X server, e.g. under xvfb-run)
"""
import sys

from Xlib import X, display, protocol

from xwindow import topmost


def main():
    title = sys.argv[1]
    d = display.Display()
    target = topmost(d, title)
    protocols = d.intern_atom("WM_PROTOCOLS")
    delete = d.intern_atom("WM_DELETE_WINDOW")
    event = protocol.event.ClientMessage(window=target, client_type=protocols, data=(32, [delete, X.CurrentTime, 0, 0, 0]))
    target.send_event(event, event_mask=X.NoEventMask)
    d.flush()


if __name__ == "__main__":
    main()
