#!/usr/bin/env python3
"""Rebuilds grader/data/camera.pgm, the photograph of lab 9, from Debian's python3-skimage.

    apt-get download python3-skimage            # 0.19.3-8 was used
    dpkg -x python3-skimage_*.deb skimage
    python3 grader/data/png_to_pgm.py \
        skimage/usr/lib/python3/dist-packages/skimage/data/camera.png grader/data/camera.pgm

A PNG decoder of the standard library's zlib, for the one kind of PNG it needs: 8-bit
grayscale, not interlaced. The kit's C code then reads a binary PGM (P5), which takes no
library."""
import struct
import sys
import zlib

PNG_SIGNATURE = b"\x89PNG\r\n\x1a\n"


def chunks(data):
    position = len(PNG_SIGNATURE)
    while position < len(data):
        (length,) = struct.unpack(">I", data[position : position + 4])
        kind = data[position + 4 : position + 8]
        yield kind, data[position + 8 : position + 8 + length]
        position += 12 + length


def paeth(left, up, up_left):
    estimate = left + up - up_left
    distances = (abs(estimate - left), abs(estimate - up), abs(estimate - up_left))
    return (left, up, up_left)[distances.index(min(distances))]


def unfilter(raw, width, height):
    """The pixels of 8-bit grayscale scanlines, each led by its filter type (PNG spec, 9.2)."""
    rows, previous = [], bytearray(width)
    for y in range(height):
        start = y * (width + 1)
        kind, line = raw[start], bytearray(raw[start + 1 : start + 1 + width])
        for x in range(width):
            left = line[x - 1] if x else 0
            up_left = previous[x - 1] if x else 0
            predictor = (0, left, previous[x], (left + previous[x]) // 2,
                         paeth(left, previous[x], up_left))[kind]
            line[x] = (line[x] + predictor) & 0xFF
        rows.append(bytes(line))
        previous = line
    return b"".join(rows)


def main(png_path, pgm_path):
    data = open(png_path, "rb").read()
    if not data.startswith(PNG_SIGNATURE):
        sys.exit(f"png_to_pgm: {png_path} is not a PNG file")
    found = list(chunks(data))
    width, height, depth, color, _, _, interlace = struct.unpack(">IIBBBBB", found[0][1])
    if (depth, color, interlace) != (8, 0, 0):
        sys.exit(f"png_to_pgm: {png_path} is not 8-bit grayscale without interlace")
    raw = zlib.decompress(b"".join(body for kind, body in found if kind == b"IDAT"))
    with open(pgm_path, "wb") as out:
        out.write(b"P5\n%d %d\n255\n" % (width, height) + unfilter(raw, width, height))


if __name__ == "__main__":
    if len(sys.argv) != 3:
        sys.exit("usage: png_to_pgm.py CAMERA.png OUT.pgm")
    main(sys.argv[1], sys.argv[2])
