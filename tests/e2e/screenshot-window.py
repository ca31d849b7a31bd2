#!/usr/bin/python3
"""Saves a PNG of a top-level X11 window, read from the X server (XGetImage).

WebDriver's screenshot asks WebKit for a snapshot, which never answers when WebKitGTK's
compositing is off (the app's default on machines without a GPU, such as Xvfb); the X
server has the pixels either way.

Usage: screenshot-window.py TITLE|--screen FILE   (DISPLAY must point at the X server;
--screen takes the whole screen, the window and a notification over it alike)
"""
import struct
import sys
import zlib

from Xlib import X, display

from xwindow import topmost


def png(width, height, rows):
    def chunk(kind, data):
        body = kind + data
        return struct.pack(">I", len(data)) + body + struct.pack(">I", zlib.crc32(body) & 0xFFFFFFFF)

    raw = b"".join(b"\x00" + row for row in rows)
    header = struct.pack(">IIBBBBB", width, height, 8, 2, 0, 0, 0)  # 8-bit RGB
    return b"\x89PNG\r\n\x1a\n" + chunk(b"IHDR", header) + chunk(b"IDAT", zlib.compress(raw, 6)) + chunk(b"IEND", b"")


def main():
    title, path = sys.argv[1], sys.argv[2]
    d = display.Display()
    window = d.screen().root if title == "--screen" else topmost(d, title)
    geometry = window.get_geometry()
    width, height = geometry.width, geometry.height
    image = window.get_image(0, 0, width, height, X.ZPixmap, 0xFFFFFFFF)
    data = image.data  # 32 bits per pixel, B G R X on little-endian servers
    stride = len(data) // height
    rows = []
    for y in range(height):
        line = data[y * stride : y * stride + width * 4]
        rgb = bytearray(width * 3)
        rgb[0::3] = line[2::4]
        rgb[1::3] = line[1::4]
        rgb[2::3] = line[0::4]
        rows.append(bytes(rgb))
    with open(path, "wb") as out:
        out.write(png(width, height, rows))


if __name__ == "__main__":
    main()
