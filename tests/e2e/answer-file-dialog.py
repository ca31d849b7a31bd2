#!/usr/bin/python3
"""Answers the system's file dialog the way a person does with the keyboard: waits for
the dialog titled TITLE, gives it the focus (Xvfb has no window manager), opens its
location field (Ctrl+L), replaces what it holds with PATH and presses Enter. Keys go
through the XTEST extension, so GTK sees ordinary key presses.

Usage: answer-file-dialog.py TITLE PATH   (DISPLAY must point at the X server)
"""
import sys
import time

from Xlib import X, XK, display
from Xlib.ext import xtest

from xwindow import find_all


def wait_for(d, title, seconds=20):
    deadline = time.time() + seconds
    while time.time() < deadline:
        found = find_all(d.screen().root, title, [])
        if found:
            return found[-1]
        time.sleep(0.2)
    sys.exit(f"no dialog titled {title!r} within {seconds} s")


def press(d, keysym_name, shift=False, ctrl=False):
    code = d.keysym_to_keycode(XK.string_to_keysym(keysym_name))
    if code == 0:
        sys.exit(f"no key for {keysym_name!r}")
    mods = [name for name, on in (("Shift_L", shift), ("Control_L", ctrl)) if on]
    for mod in mods:
        xtest.fake_input(d, X.KeyPress, d.keysym_to_keycode(XK.string_to_keysym(mod)))
    xtest.fake_input(d, X.KeyPress, code)
    xtest.fake_input(d, X.KeyRelease, code)
    for mod in reversed(mods):
        xtest.fake_input(d, X.KeyRelease, d.keysym_to_keycode(XK.string_to_keysym(mod)))
    d.sync()
    time.sleep(0.03)


NAMES = {"/": "slash", ".": "period", "-": "minus", "_": "underscore", " ": "space"}
SHIFTED = {"_"}


def type_text(d, text):
    for ch in text:
        if ch.isalnum() and ch.isascii():
            press(d, ch.lower(), shift=ch.isupper())
        elif ch in NAMES:
            press(d, NAMES[ch], shift=ch in SHIFTED)
        else:
            sys.exit(f"cannot type {ch!r}")


def main():
    title, path = sys.argv[1], sys.argv[2]
    d = display.Display()
    dialog = wait_for(d, title)
    time.sleep(1.0)  # let GTK finish mapping and populating the dialog
    d.set_input_focus(dialog, X.RevertToParent, X.CurrentTime)
    d.sync()
    time.sleep(0.3)
    press(d, "l", ctrl=True)
    time.sleep(0.3)
    press(d, "a", ctrl=True)
    type_text(d, path)
    time.sleep(0.3)
    press(d, "Return")


if __name__ == "__main__":
    main()
