"""Writes the examples of a Markdown page into a directory, one .c file each.

An example is a ```c block right after a line `<!-- example: NAME -->`; it is
written as DIR/NAME.c. Prints the names, one per line, and fails if there
are none (a page whose examples went missing would pass silently).
"""
import pathlib
import re
import sys


def main(page, out_dir):
    text = pathlib.Path(page).read_text()
    found = re.findall(r"<!-- example: ([\w-]+) -->\n```c\n(.*?)\n```", text,
                       re.S)
    if not found:
        sys.exit(f"{page}: no examples")
    out = pathlib.Path(out_dir)
    out.mkdir(parents=True, exist_ok=True)
    for name, code in found:
        (out / f"{name}.c").write_text(code + "\n")
        print(name)


if __name__ == "__main__":
    main(*sys.argv[1:])
