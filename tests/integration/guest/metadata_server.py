"""A one-request HTTP responder run by QEMU's guestfwd for each guest connection.

It stands in for the metadata service at a slirp-internal address, so the guest
fetches metadata without any traffic leaving QEMU.
"""

import json
import sys

UUID = "4f1c2d9e-0000-4000-8000-000000000001"
NAME = "probe-vm"
META = {
    "uuid": UUID,
    "name": NAME,
    "public_keys": {"test": "ssh-ed25519 AAAAC3NzaC1lZDI1NTE5AAAAITEST test@saphira"},
}
USER_DATA = "#!/bin/sh\necho user-data-says-hello\n"


def main() -> None:
    line = sys.stdin.buffer.readline().decode(errors="replace").split()
    path = line[1] if len(line) > 1 else "/"
    while sys.stdin.buffer.readline() not in (b"\r\n", b"\n", b""):
        pass
    bodies = {
        "/openstack/latest/meta_data.json": json.dumps(META),
        "/openstack/latest/user_data": USER_DATA,
    }
    body = bodies.get(path, "").encode()
    status = b"200 OK" if body else b"404 Not Found"
    head = b"HTTP/1.0 %s\r\nContent-Length: %d\r\n\r\n" % (status, len(body))
    sys.stdout.buffer.write(head + body)
    sys.stdout.buffer.flush()


if __name__ == "__main__":
    main()
