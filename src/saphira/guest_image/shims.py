"""Commands a cloud image has and busybox-static lacks, as small scripts in /usr/bin.

tempest's guest checks run ``curl URL`` and ``curl -X POST -d DATA URL`` against
the metadata service, ``sudo`` before a command, and ``blkid -L config-2 -o
device`` to find the config drive. busybox-static's wget cannot resolve
names (static glibc, no NSS) and its blkid has no ``-L``; these do exactly
what those commands need over busybox's nc and findfs, nothing more. Sessions
over SSH find them first (dropbear's PATH is /usr/bin:/bin).
"""

from __future__ import annotations

from saphira.guest_image import cpio

CURL = r"""#!/bin/sh
# curl [-s] [-X METHOD] [-d DATA] http://HOST[:PORT]/PATH: the body on stdout.
method=GET; data=; has_data=
while [ $# -gt 1 ]; do
  case "$1" in
    -X|--request) method=$2; shift 2 ;;
    -d|--data) data=$2; has_data=1; [ "$method" = GET ] && method=POST; shift 2 ;;
    -s|-f|-S|-L|-sf|-sS|-fsS|-sSf) shift ;;
    *) echo "curl (saphira): unsupported option $1" >&2; exit 2 ;;
  esac
done
rest=${1#http://}; hp=${rest%%/*}; path=/${rest#*/}
[ "$rest" = "$hp" ] && path=/
host=${hp%%:*}; port=80
case "$hp" in *:*) port=${hp#*:};; esac
out=/tmp/curl.$$
{
  printf '%s %s HTTP/1.0\r\nHost: %s\r\n' "$method" "$path" "$hp"
  if [ -n "$has_data" ]; then
    printf 'Content-Type: application/x-www-form-urlencoded\r\n'
    printf 'Content-Length: %s\r\n' "${#data}"
  fi
  printf '\r\n%s' "$data"
} | nc -w 5 "$host" "$port" > "$out" || { rm -f "$out"; exit 7; }
# The body: everything after the first empty line, byte for byte (read takes one byte
# at a time, so cat goes on from just after the headers).
cr=$(printf '\r')
{ while IFS= read -r line; do case "$line" in "$cr"|"") break ;; esac; done; cat; } < "$out"
rm -f "$out"
"""

SUDO = """#!/bin/sh
# Everyone here is root already.
exec "$@"
"""

BLKID = """#!/bin/sh
# blkid -L LABEL [-o device]: the device with that label; anything else: busybox's blkid.
if [ "$1" = -L ] && [ -n "$2" ]; then exec findfs "LABEL=$2"; fi
exec busybox blkid "$@"
"""


def entries() -> list[cpio.Entry]:
    return [
        cpio.directory("usr"),
        cpio.directory("usr/bin"),
        cpio.file("usr/bin/curl", CURL.encode(), 0o755),
        cpio.file("usr/bin/sudo", SUDO.encode(), 0o755),
        cpio.file("usr/bin/blkid", BLKID.encode(), 0o755),
    ]
