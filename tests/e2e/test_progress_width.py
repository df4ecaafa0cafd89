"""The live progress line fits the terminal and leaves nothing behind (issue 27, "Pages and terminal").

A real run of both tested profiles (`--jobs 2`, so the line shows both at once and is longest) with stderr on
a real pseudo-terminal whose window is set to 40, 60 or 200 columns (TIOCSWINSZ; $COLUMNS removed, so the
width is the terminal's). What the terminal received is played on a small terminal (`Screen`): no line may
reach past the width, and the screen the run leaves holds no progress line.
"""
import json
import re

import pytest

from support import run_in_terminal

CSI = re.compile(r"\x1b\[([0-9;]*)([A-Za-z])")


class Screen:
    """Just enough of a terminal for a progress line: printable characters with autowrap at the width (as
    xterm: a character after the last column goes to the start of the next row), \\r, \\n, ESC[K (erase to
    the end of the row) and ESC[2K (erase the row). Any other escape sequence or control character is
    refused, so that nothing the product writes goes unplayed."""

    def __init__(self, columns):
        self.columns = columns
        self.rows = [[]]
        self.row = self.col = 0
        self.wraps = 0  # times a character went past the last column to the next row

    def _line(self):
        line = self.rows[self.row]
        line.extend(" " * (self.col - len(line)))
        return line

    def feed(self, text):
        at = 0
        while at < len(text):
            escape = CSI.match(text, at)
            if escape:
                params, final = escape.groups()
                assert final == "K" and params in ("", "0", "2"), f"unplayed escape {escape.group()!r}"
                line = self.rows[self.row]
                del line[0 if params == "2" else self.col:]
                at = escape.end()
                continue
            char = text[at]
            at += 1
            if char == "\r":
                self.col = 0
            elif char == "\n":
                self.row += 1
                if self.row == len(self.rows):
                    self.rows.append([])
            else:
                assert char.isprintable(), f"unplayed control character {char!r}"
                if self.col >= self.columns:
                    self.wraps += 1
                    self.col = 0
                    self.row += 1
                    if self.row == len(self.rows):
                        self.rows.append([])
                line = self._line()
                if self.col < len(line):
                    line[self.col] = char
                else:
                    line.append(char)
                self.col += 1

    def text(self):
        return ["".join(row).rstrip() for row in self.rows]


def test_the_screen_sees_a_line_that_wraps_and_one_left_behind():
    # The checks below can fail: a 50-character line on 40 columns wraps, and "\r\x1b[K" clears one row only.
    screen = Screen(40)
    screen.feed("nnx: " + "x" * 45 + "\r\x1b[K")
    assert screen.wraps == 1 and screen.text() == ["nnx: " + "x" * 35, ""]
    screen = Screen(40)
    screen.feed("nnx: a\r\x1b[Knnx: b\r\x1b[2K")
    assert screen.wraps == 0 and screen.text() == [""]


@pytest.mark.parametrize("columns", [40, 60, 200])
def test_the_progress_line_fits_the_terminal_and_leaves_nothing_behind(tmp_path, columns):
    out = tmp_path / "report.json"
    code, stdout, shown = run_in_terminal("run", "--output", out, "--jobs", "2", columns=columns,
                                          env={"COLUMNS": None})
    assert code == 0, stdout + shown
    report = json.loads(out.read_text())
    profiles = [r["profile"] for r in report["profiles"]]
    assert len(profiles) == 2

    drawn = [CSI.sub("", part) for part in re.split(r"[\r\n]", shown)]
    assert any(part.startswith("nnx: ") for part in drawn), shown  # the line was shown
    too_long = [part for part in drawn if len(part) >= columns]
    assert too_long == [], f"lines reaching the last of {columns} columns: {too_long}"
    # Both profiles' line was drawn: whole where it fits, else cut with "…".
    whole = f"nnx: {profiles[0]}: dependencies | {profiles[1]}: dependencies"
    if len(whole) < columns:
        assert any(" | " in part for part in drawn) and not any(part.endswith("…") for part in drawn), drawn
    else:
        assert any(part.endswith("…") for part in drawn), drawn

    screen = Screen(columns)
    screen.feed(shown)
    assert screen.wraps == 0, screen.text()
    assert [row for row in screen.text() if row] == [], f"left on the screen: {screen.text()}"
    assert "nnx: " not in stdout and all(p in stdout for p in profiles)  # the summary is stdout's


def test_without_a_window_size_the_line_fits_columns(tmp_path):
    # A terminal that reports no width (0 columns): $COLUMNS is the width.
    code, stdout, shown = run_in_terminal("run", "--output", tmp_path / "report.json", "--jobs", "2", columns=0,
                                          env={"COLUMNS": "30"})
    assert code == 0, stdout + shown
    drawn = [CSI.sub("", part) for part in re.split(r"[\r\n]", shown)]
    assert any(part.startswith("nnx: ") for part in drawn) and max(map(len, drawn)) == 29, drawn
