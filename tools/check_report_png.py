#!/usr/bin/env python3
"""Checks a PNG screenshot of `ofj report` (python3 stdlib only): the expected size, a page that
is not blank, the energy chart's bars (their fill colour, in many separate columns, with a gap
where days have no entries) and the dashed goal line (its colour) in the upper part of the page.
Usage: check_report_png.py FILE WIDTH HEIGHT"""
import struct
import sys
import zlib

BAR = (0x2F, 0x6D, 0xB5)
GOAL = (0xE0, 0x7B, 0x00)


def read_png(path):
    data = open(path, "rb").read()
    if data[:8] != b"\x89PNG\r\n\x1a\n":
        sys.exit(f"{path}: not a PNG")
    pos, idat, header = 8, b"", None
    while pos < len(data):
        length, kind = struct.unpack(">I4s", data[pos:pos + 8])
        body = data[pos + 8:pos + 8 + length]
        if kind == b"IHDR":
            header = struct.unpack(">IIBBBBB", body)
        elif kind == b"IDAT":
            idat += body
        pos += 12 + length
    width, height, depth, colour, _, _, interlace = header
    if depth != 8 or colour not in (2, 6) or interlace:
        sys.exit(f"{path}: unexpected PNG format (depth {depth}, colour type {colour}, interlace {interlace})")
    bpp = 4 if colour == 6 else 3
    raw = zlib.decompress(idat)
    stride = width * bpp
    rows, prev, i = [], bytearray(stride), 0
    for _ in range(height):
        f, line = raw[i], bytearray(raw[i + 1:i + 1 + stride])
        i += 1 + stride
        for x in range(stride):
            a = line[x - bpp] if x >= bpp else 0
            b = prev[x]
            c = prev[x - bpp] if x >= bpp else 0
            if f == 1:
                line[x] = (line[x] + a) & 255
            elif f == 2:
                line[x] = (line[x] + b) & 255
            elif f == 3:
                line[x] = (line[x] + (a + b) // 2) & 255
            elif f == 4:
                p = a + b - c
                pa, pb, pc = abs(p - a), abs(p - b), abs(p - c)
                line[x] = (line[x] + (a if pa <= pb and pa <= pc else b if pb <= pc else c)) & 255
        rows.append(line)
        prev = line
    return width, height, bpp, rows


def near(px, colour, tol=24):
    return all(abs(px[k] - colour[k]) <= tol for k in range(3))


def main():
    path, want_w, want_h = sys.argv[1], int(sys.argv[2]), int(sys.argv[3])
    width, height, bpp, rows = read_png(path)
    problems = []
    if (width, height) != (want_w, want_h):
        problems.append(f"size {width}x{height}, expected {want_w}x{want_h}")
    non_white = bar = goal = 0
    bar_columns, goal_rows = set(), set()
    top = min(height, 700)  # the energy chart is the first figure, near the top
    for y in range(height):
        line = rows[y]
        for x in range(width):
            px = line[x * bpp:x * bpp + 3]
            if px[0] < 240 or px[1] < 240 or px[2] < 240:
                non_white += 1
            if y < top and near(px, BAR):
                bar += 1
                bar_columns.add(x)
            if y < top and near(px, GOAL):
                goal += 1
                goal_rows.add(y)
    share = non_white / float(width * height)
    if share < 0.02:
        problems.append(f"the page is nearly blank ({share:.1%} non-white pixels)")
    if bar < 2000:
        problems.append(f"only {bar} pixels of the energy bars' colour in the top {top} rows")
    # Separate bars: runs of bar columns with empty columns between them.
    runs = 0
    previous = None
    for x in sorted(bar_columns):
        if previous is None or x != previous + 1:
            runs += 1
        previous = x
    if runs < 15:
        problems.append(f"only {runs} separate bars in the energy chart")
    if goal < 100:
        problems.append(f"only {goal} pixels of the goal line's colour in the top {top} rows")
    if problems:
        sys.exit(f"{path}: " + "; ".join(problems))
    print(f"report render ok: {width}x{height}, {share:.0%} non-white, {runs} energy bars, {bar} bar pixels, {goal} goal-line pixels")


main()
