#!/usr/bin/python3
"""Gives the keyboard focus to a top-level X11 window, or takes it from every window,
as a window manager does when the person clicks elsewhere (Xvfb has no window manager
to do it).

Usage: focus-window.py TITLE | --nowhere   (DISPLAY must point at the X server)
"""
import sys

from Xlib import X, display

from xwindow import topmost


def main():
    d = display.Display()
    if sys.argv[1] == "--nowhere":
        d.set_input_focus(X.NONE, X.RevertToNone, X.CurrentTime)
    else:
        d.set_input_focus(topmost(d, sys.argv[1]), X.RevertToParent, X.CurrentTime)
    d.sync()


if __name__ == "__main__":
    main()
