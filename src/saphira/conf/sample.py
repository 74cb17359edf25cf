"""Write or check etc/saphira.conf.sample with oslo-config-generator.

python -m saphira.conf.sample FILE          write the sample
python -m saphira.conf.sample --check FILE  fail if FILE is out of date
"""

from __future__ import annotations

import io
import sys

from oslo_config import generator

from saphira.conf import make_conf


def render() -> str:
    conf = make_conf()  # any ConfigOpts will do; the generator registers its own options
    generator.register_cli_opts(conf)
    conf(["--namespace", "saphira", "--wrap-width", "79"], project="saphira")
    out = io.StringIO()
    generator.generate(conf, output_file=out)
    return out.getvalue()


def main(argv: list[str]) -> int:
    check = "--check" in argv
    paths = [arg for arg in argv if arg != "--check"]
    if len(paths) != 1 or paths[0].startswith("-"):  # --help is asked, not a file to write
        print(__doc__, file=sys.stderr)
        return 2
    text = render()
    if check:
        with open(paths[0], encoding="utf-8") as handle:
            if handle.read() != text:
                print(f"{paths[0]} is stale: run python -m saphira.conf.sample {paths[0]}")
                return 1
        return 0
    with open(paths[0], "w", encoding="utf-8") as handle:
        handle.write(text)
    return 0


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
