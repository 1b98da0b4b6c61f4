"""Print one of the two set-up commands at the top of README.md ("demo" or "test").

The README opens with two fenced ``bash`` blocks of one line each: the first installs
and runs the demo tournament, the second installs the test extras and runs the suite.
"""

import pathlib
import re
import sys

README = pathlib.Path(__file__).resolve().parent.parent / "README.md"


def commands() -> dict[str, str]:
    blocks = re.findall(r"```bash\n(.*?)\n```", README.read_text(), flags=re.S)
    if len(blocks) < 2:
        raise SystemExit("README.md must open with two ```bash blocks (demo, then tests)")
    return {"demo": blocks[0].strip(), "test": blocks[1].strip()}


if __name__ == "__main__":
    print(commands()[sys.argv[1]])
