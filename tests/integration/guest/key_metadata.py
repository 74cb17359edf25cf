"""A one-request metadata responder (QEMU guestfwd runs it per connection) whose
meta_data.json carries the public key in the file named by its argument."""

import json
import sys

NAME = "ssh-vm"  # the host name the guest takes: the first label of Nova's "hostname"
UUID = "4f1c2d9e-0000-4000-8000-000000000022"


def meta_data(key: str) -> str:
    """The body served (no newline at its end, as the metadata API's)."""
    return json.dumps({"uuid": UUID, "name": "SSH VM", "hostname": f"{NAME}.novalocal",
                       "public_keys": {"k": key}})  # fmt: skip


def main() -> None:
    with open(sys.argv[1], encoding="utf-8") as source:
        key = source.read().strip()
    line = sys.stdin.buffer.readline().decode(errors="replace").split()
    path = line[1] if len(line) > 1 else "/"
    while sys.stdin.buffer.readline() not in (b"\r\n", b"\n", b""):
        pass
    body = meta_data(key).encode() if path == "/openstack/latest/meta_data.json" else b""
    status = b"200 OK" if body else b"404 Not Found"
    sys.stdout.buffer.write(b"HTTP/1.0 %s\r\nContent-Length: %d\r\n\r\n" % (status, len(body)))
    sys.stdout.buffer.write(body)
    sys.stdout.buffer.flush()


if __name__ == "__main__":
    main()
