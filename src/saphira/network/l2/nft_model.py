"""The nftables objects the Linux bridge agent owns, rendered as one nft script.

Each chain's last rule carries a digest of the chain and of the sets it
reads, as its comment. ``nft -j list table`` shows rule comments (nftables
1.0 drops table and chain comments from JSON), so a reconcile tells which
chains differ from a listing without having to parse nft's own spelling of
our rules back.
"""

from __future__ import annotations

import hashlib
from collections.abc import Iterable, Sequence
from dataclasses import dataclass
from typing import Any

# skb mark bits carrying the connection state from the IP hooks (where
# conntrack is) to the bridge family's hooks (where the ports are): kernels
# without nf_conntrack_bridge cannot match ``ct state`` in a bridge table.
CT_ESTABLISHED = 0x00100000  # established or related
CT_INVALID = 0x00200000
CT_BITS = CT_ESTABLISHED | CT_INVALID

Fingerprint = dict[str, tuple[str, int]]  # chain name -> (digest, number of rules)


@dataclass(frozen=True)
class NftSet:
    name: str
    type: str  # "ipv4_addr", "ether_addr . ipv6_addr", "ifname"...
    elements: tuple[str, ...] = ()
    interval: bool = True  # prefixes and ranges allowed (then none may overlap)

    def render(self) -> str:
        body = [f"type {self.type};"]
        if self.interval:
            body.append("flags interval;")
        if self.elements:
            body.append(f"elements = {{ {', '.join(self.elements)} }};")
        return f"set {self.name} {{ {' '.join(body)} }}"


@dataclass(frozen=True)
class Chain:
    name: str
    rules: tuple[str, ...]
    hook: str | None = None  # "type filter hook forward priority filter; policy accept;"
    sets: tuple[NftSet, ...] = ()  # the named sets its rules read

    @property
    def digest(self) -> str:
        text = "\n".join([self.hook or "", *self.rules, *(s.render() for s in self.sets)])
        return hashlib.sha256(text.encode()).hexdigest()[:16]

    @property
    def fingerprint(self) -> tuple[str, int]:
        return (self.digest if self.rules else "", len(self.rules))

    def render(self) -> list[str]:
        lines = [f"\tchain {self.name} {{"]
        if self.hook:
            lines.append(f"\t\t{self.hook}")
        lines += [f"\t\t{rule}" for rule in self.rules[:-1]]
        if self.rules:
            lines.append(f'\t\t{self.rules[-1]} comment "{self.digest}"')
        return [*lines, "\t}"]


@dataclass(frozen=True)
class Table:
    family: str
    name: str
    chains: tuple[Chain, ...]

    @property
    def fingerprint(self) -> Fingerprint:
        return {chain.name: chain.fingerprint for chain in self.chains}

    def render(self) -> str:
        sets = {s.name: s for chain in self.chains for s in chain.sets}
        lines = [f"table {self.family} {self.name} {{"]
        lines += [f"\t{sets[name].render()}" for name in sorted(sets)]
        for chain in self.chains:
            lines += chain.render()
        return "\n".join([*lines, "}"])


def replace_script(tables: Sequence[Table]) -> str:
    """Replace each table whole; ``nft -f`` runs it as one transaction ("" for no tables).

    Creating before deleting makes the delete valid when the table is new.
    """
    lines = [f"table {t.family} {t.name}\ndelete table {t.family} {t.name}" for t in tables]
    return "".join(f"{line}\n" for line in [*lines, *(t.render() for t in tables)])


def listed_fingerprint(items: Iterable[dict[str, Any]]) -> Fingerprint:
    """The fingerprint of a table as ``privsep.nft.list_table`` returns it."""
    found: Fingerprint = {}
    for item in items:
        if "chain" in item:
            found.setdefault(item["chain"]["name"], ("", 0))
        elif "rule" in item:
            rule = item["rule"]
            _, count = found.get(rule["chain"], ("", 0))
            found[rule["chain"]] = (rule.get("comment", ""), count + 1)
    return found
