# SPDX-License-Identifier: GPL-2.0-only
"""A PNG decoder for the tests (no imaging library on the test hosts):
8-bit RGB or RGBA, not interlaced, which is what cairo and Chromium write.

decode(path) -> (width, height, channels, rows): rows[y] is a bytearray of
width * channels bytes. Raises ValueError for anything else.
"""
import struct
import zlib

SIGNATURE = b'\x89PNG\r\n\x1a\n'


def chunks(data):
    pos = 8
    while pos < len(data):
        n, kind = struct.unpack('>I4s', data[pos:pos + 8])
        yield kind, data[pos + 8:pos + 8 + n]
        pos += 12 + n


def unfilter(f, line, prev, bpp):
    for i in range(len(line)):
        a = line[i - bpp] if i >= bpp else 0
        b = prev[i]
        c = prev[i - bpp] if i >= bpp else 0
        if f == 1:
            line[i] = (line[i] + a) & 255
        elif f == 2:
            line[i] = (line[i] + b) & 255
        elif f == 3:
            line[i] = (line[i] + (a + b) // 2) & 255
        elif f == 4:
            p = a + b - c
            pa, pb, pc = abs(p - a), abs(p - b), abs(p - c)
            line[i] = (line[i] + (a if pa <= pb and pa <= pc else b if pb <= pc else c)) & 255
        elif f != 0:
            raise ValueError('filter %d' % f)
    return line


def decode(path):
    data = open(path, 'rb').read()
    if data[:8] != SIGNATURE:
        raise ValueError('not a PNG: %r' % data[:8])
    w, h, depth, ctype, _, _, interlace = struct.unpack('>IIBBBBB', data[16:29])
    if depth != 8 or ctype not in (2, 6) or interlace:
        raise ValueError('depth %d, colour type %d, interlace %d' % (depth, ctype, interlace))
    bpp = 3 if ctype == 2 else 4
    raw = zlib.decompress(b''.join(d for k, d in chunks(data) if k == b'IDAT'))
    stride = w * bpp
    rows, prev = [], bytearray(stride)
    for y in range(h):
        at = y * (stride + 1)
        prev = unfilter(raw[at], bytearray(raw[at + 1:at + 1 + stride]), prev, bpp)
        rows.append(prev)
    return w, h, bpp, rows


def shows(px, rgb, share=0.3):
    """Whether the pixel px (r, g, b) shows the colour rgb antialiased over
    white or grey: its chroma points along rgb's, at least share of it."""
    cm = sum(rgb) / 3
    ref = [v - cm for v in rgb]
    norm = sum(v * v for v in ref)
    m = sum(px[:3]) / 3
    return sum((px[k] - m) * ref[k] for k in range(3)) >= share * norm
