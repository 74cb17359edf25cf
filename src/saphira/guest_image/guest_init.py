"""The guest's /init and helper scripts (busybox sh), kept as text here.

Every line the guest prints that a test or the compute driver looks for starts
with ``SAPHIRA-GUEST:`` and goes to /dev/console, the serial port named last on
the kernel command line.
"""

from saphira.guest_image import ssh

MARKER = "SAPHIRA-GUEST:"
BOOTED = f"{MARKER} booted"
READY = f"{MARKER} ready"
#: Printed when the ACPI power button (a graceful stop or soft reboot) is pressed.
POWER_OFF = f"{MARKER} acpi power button, powering off"
#: What the guest's HTTP server answers on port 80 (followed by its hostname).
HTTP_BODY = "saphira-tiny-guest OK"
HTTP_PORT = 80
#: The CGI path a test asks the guest through to reach other hosts, or to lie about itself.
PROBE_PATH = "/cgi-bin/probe"

INIT = r"""#!/bin/busybox sh
# Saphira tiny test guest: PID 1. Prints markers, gets DHCP, reads metadata, serves HTTP.
/bin/busybox --install -s /bin
export PATH=/bin
mount -t proc proc /proc
mount -t sysfs sysfs /sys
mount -t devtmpfs devtmpfs /dev 2>/dev/null
mkdir -p /dev/pts /run /tmp /root/.ssh /var/log
mount -t devpts devpts /dev/pts
say() { echo "SAPHIRA-GUEST: $*" > /dev/console; }
MEM_KB=$(awk '/^MemTotal/{print $2}' /proc/meminfo)
say "booted kernel=$(uname -r) uptime=$(cut -d' ' -f1 /proc/uptime) cpus=$(nproc) mem_kb=$MEM_KB"
for m in $(cat /etc/modules); do insmod "/lib/modules/$m" 2>/dev/null; done
hostname saphira-tiny
ip link set lo up
MD=http://169.254.169.254
for arg in $(cat /proc/cmdline); do
  case "$arg" in saphira.metadata=*) MD=${arg#saphira.metadata=};; esac
done
acpid -c /etc/acpi 2>/dev/null
if [ -e /sys/class/net/eth0 ]; then
  say "mac eth0 $(cat /sys/class/net/eth0/address)"
  if udhcpc -i eth0 -s /etc/udhcpc.script -O staticroutes -O mtu -n -q -t 4 -T 2 \
      >/var/log/udhcpc 2>&1; then
    say "ip eth0 $(ip -4 -o addr show eth0 | awk '{print $4}')"
  else
    say "dhcp failed on eth0"
  fi
else
  say "no eth0"
fi
# A drive labelled config-2 (the config drive) wins over the metadata service, as
# cloud-init's ConfigDrive source does; which one answered is printed on each line.
SOURCE=metadata-service
CFG=$(findfs LABEL=config-2 2>/dev/null)
if [ -n "$CFG" ] && mkdir -p /mnt/config && mount -t iso9660 -o ro "$CFG" /mnt/config; then
  SOURCE=config-drive
  say "config drive $CFG"
fi
# busybox-static's wget crashes in getaddrinfo (static glibc, no NSS): speak HTTP over nc.
HP=${MD#http://}; HOST=${HP%%:*}; PORT=80
case "$HP" in *:*) PORT=${HP#*:};; esac
fetch_http() {
  printf 'GET /openstack/latest/%s HTTP/1.0\r\nHost: %s\r\n\r\n' "$1" "$HP" \
    | nc -w 3 "$HOST" "$PORT" > /tmp/resp 2>/tmp/nc.err
  status=$(head -n1 /tmp/resp | tr -d '\r')
  if echo "$status" | grep -q '^HTTP/1.[01] 200'; then
    tr -d '\r' < /tmp/resp | sed '1,/^$/d' > "/tmp/$2"
  else
    echo "${status:-no answer} $(tr '\n' ' ' < /tmp/nc.err)" > /tmp/why
    return 1
  fi
}
fetch_drive() {
  cp "/mnt/config/openstack/latest/$1" "/tmp/$2" 2>/dev/null && return 0
  echo "not on the config drive" > /tmp/why
  return 1
}
fetch() {
  if [ "$SOURCE" = config-drive ]; then fetch_drive "$1" "$2"; else fetch_http "$1" "$2"; fi
  if [ $? -eq 0 ]; then
    say "$1 ($SOURCE) $(tr '\n' ' ' < "/tmp/$2" | head -c 2000)"
  else
    say "$1 unavailable ($SOURCE): $(cat /tmp/why)"
    rm -f "/tmp/$2"
  fi
}
fetch meta_data.json meta
fetch user_data user
if [ -s /tmp/meta ]; then
  # The server's "name", not a key's (Nova's "keys" list names each key too).
  n=$(sed 's/"keys": *\[[^]]*\]//' /tmp/meta | grep -o '"name": *"[^"]*"' | head -n1 \
    | sed 's/.*: *"//; s/"$//')
  # Nova's "hostname" (the name made a host name, maybe with the DHCP domain) as cloud-init
  # takes it, its first label; a document without one: the name.
  h=$(grep -o '"hostname": *"[^"]*"' /tmp/meta | head -n1 | sed 's/.*: *"//; s/"$//')
  h=${h%%.*}; [ -n "$h" ] && n=$h
  [ -n "$n" ] && hostname "$n" && say "hostname $n"
  # Every OpenSSH public key type (ssh-rsa, ssh-ed25519, ecdsa-sha2-*, sk-*: tempest's are ecdsa).
  KEY='(ssh-[a-z0-9-]+|ecdsa-sha2-nistp[0-9]+|sk-[a-z0-9@.-]+) [A-Za-z0-9+/=]+[^"\\]*'
  grep -oE "$KEY" /tmp/meta | sort -u > /root/.ssh/authorized_keys
  if [ -s /root/.ssh/authorized_keys ]; then
    say "ssh keys $(wc -l < /root/.ssh/authorized_keys)"
    say "ssh key ($SOURCE) $(head -n1 /root/.ssh/authorized_keys)"
  fi
fi
@SSH_START@mkdir -p /www
echo "@HTTP_BODY@ $(hostname)" > /www/index.html
httpd -p @HTTP_PORT@ -h /www
say "ready"
while true; do setsid cttyhack sh -l < /dev/console > /dev/console 2>&1; sleep 1; done
"""

UDHCPC = r"""#!/bin/sh
# udhcpc hook: apply the lease to the interface.
case "$1" in
  deconfig) ip -4 addr flush dev "$interface"; ip link set "$interface" up ;;
  bound|renew)
    ip -4 addr flush dev "$interface"
    ip addr add "$ip/${mask:-24}" dev "$interface"
    [ -n "$mtu" ] && ip link set "$interface" mtu "$mtu"
    # Option 121 (the metadata route among them) wins over the router option (RFC 3442).
    if [ -n "$staticroutes" ]; then
      set -- $staticroutes
      while [ $# -ge 2 ]; do
        if [ "$2" = 0.0.0.0 ]; then ip route add "$1" dev "$interface"
        else ip route add "$1" via "$2" dev "$interface"; fi
        shift 2
      done
    else
      for r in $router; do ip route add default via "$r" dev "$interface"; break; done
    fi
    : > /etc/resolv.conf
    for d in $dns; do echo "nameserver $d" >> /etc/resolv.conf; done ;;
esac
exit 0
"""

# busybox acpid: the power button (libvirt's graceful shutdown) powers off cleanly.
ACPI_POWER = f"""#!/bin/sh
echo "{POWER_OFF}" > /dev/console
sync
poweroff -f
"""


# busybox httpd runs this for GET /cgi-bin/probe?ACTION=A,B. The tests need a
# guest's own view: whether it reaches a neighbour, and whether a packet it sends
# from an address or MAC that is not its port's ever leaves the host's bridge.
PROBE = r"""#!/bin/sh
echo "Content-Type: text/plain"
echo
action=${QUERY_STRING%%=*}; args=${QUERY_STRING#*=}
a=${args%%,*}; b=${args#*,}
result() { if "$@" > /tmp/probe.out 2>&1; then echo "$action ok"; else echo "$action failed"; fi; }
set_mac() {
  ip link set eth0 address "$1" 2>/dev/null \
    || { ip link set eth0 down; ip link set eth0 address "$1"; ip link set eth0 up; }
}
case "$action" in
  ping) result ping -c 2 -W 2 "$a" ;;
  tcp)
    printf 'GET / HTTP/1.0\r\n\r\n' | nc -w 3 "$a" "$b" > /tmp/tcp.out 2>&1
    if grep -q "@HTTP_BODY@" /tmp/tcp.out; then echo "tcp ok"; else echo "tcp failed"; fi ;;
  spoofip)
    ip addr add "$a/32" dev eth0
    result ping -c 3 -W 1 -I "$a" "$b"
    ip addr del "$a/32" dev eth0 ;;
  spoofmac)
    old=$(cat /sys/class/net/eth0/address)
    set_mac "$a"
    echo "mac was $old now $(cat /sys/class/net/eth0/address)"
    result ping -c 3 -W 1 "$b"
    set_mac "$old" ;;
  *) echo "unknown probe $action" ;;
esac
"""


def init_script() -> str:
    text = INIT.replace("@HTTP_BODY@", HTTP_BODY).replace("@HTTP_PORT@", str(HTTP_PORT))
    return text.replace("@SSH_START@", ssh.START)


def probe_script() -> str:
    return PROBE.replace("@HTTP_BODY@", HTTP_BODY)
