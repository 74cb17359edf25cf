"""Enforce decisions remembered while the policy rules stay as they were loaded.

An oslo.policy enforce walks the rule's check tree and asks
``inspect.getfullargspec`` at every node: 110-160 us of CPU for servers:show,
paid again at every poll of the same server by the same caller. A rule whose
checks are all pure (role:, a generic field:value, rule:, and/or/not, @ and !)
decides from the credentials and the target alone, so the same rule, the
same credentials and the same target give the same decision until the rules
are loaded again. ``Decisions`` remembers those decisions for one load of the
rules: ``saphira.policy`` makes a new one each time oslo.policy reads the
files, so nothing decided under old rules survives. A rule with any other
check (http:, a check a plugin registered) is evaluated every time, and so is
a call whose credentials or target hold a value that cannot be a dictionary
key. Only oslo.policy's public API is used: the check classes it exports and,
for the leaves it does not export, the classes its own parser gives a
``RuleDefault``'s check string.
"""

from __future__ import annotations

from collections.abc import Callable, Hashable, Mapping
from typing import Any

from oslo_policy import policy

MAX_DECISIONS = 4096  # one generation's bound; a full one starts over


def _leaf(check_str: str) -> type:
    return type(policy.RuleDefault("saphira_probe", check_str).check)


# role:, field:value, @, !: checks that read nothing but the credentials and the target.
_PURE_LEAVES = frozenset(
    _leaf(text) for text in ("role:probe", "saphira_probe_field:probe", "@", "!")
)


def _pure(check: Any, rules: Mapping[str, Any], seen: frozenset[str]) -> bool:
    kind = type(check)
    if kind in (policy.AndCheck, policy.OrCheck):
        return all(_pure(inner, rules, seen) for inner in check.rules)
    if kind is policy.NotCheck:
        return _pure(check.rule, rules, seen)
    if kind is policy.RuleCheck:
        name = check.match
        return name not in seen and name in rules and _pure(rules[name], rules, seen | {name})
    return kind in _PURE_LEAVES


def _frozen(values: Mapping[str, Any]) -> tuple[tuple[str, type, Hashable], ...]:
    """The items as a key; a value's type is part of it (True and 1 format differently)."""
    return tuple(
        (name, type(value), tuple(value) if type(value) is list else value)
        for name, value in sorted(values.items(), key=lambda item: item[0])
    )


class Decisions:
    """The decisions of pure rules, for one load of ``rules`` (oslo.policy's Rules)."""

    def __init__(self, rules: Mapping[str, Any]) -> None:
        self._rules = rules
        self._pure: dict[str, bool] = {}
        self._decided: dict[Hashable, bool] = {}
        self.evaluated = 0  # how often a decision was asked of oslo.policy (tests, bench)

    def __len__(self) -> int:
        return len(self._decided)

    def pure(self, rule: str) -> bool:
        found = self._pure.get(rule)
        if found is None:
            check = self._rules.get(rule)
            found = self._pure[rule] = check is not None and _pure(check, self._rules, frozenset())
        return found

    def decide(
        self,
        rule: str,
        target: Mapping[str, Any],
        credentials: Mapping[str, Any],
        evaluate: Callable[[], bool],
    ) -> bool:
        """``evaluate()``'s answer, remembered when ``rule`` is pure and the call can be a key."""
        key = self._key(rule, target, credentials) if self.pure(rule) else None
        if key is None:
            return self._evaluate(evaluate)
        found = self._decided.get(key)
        if found is None:
            if len(self._decided) >= MAX_DECISIONS:
                self._decided.clear()
            found = self._decided[key] = self._evaluate(evaluate)
        return found

    def _evaluate(self, evaluate: Callable[[], bool]) -> bool:
        self.evaluated += 1
        return evaluate()

    @staticmethod
    def _key(
        rule: str, target: Mapping[str, Any], credentials: Mapping[str, Any]
    ) -> Hashable | None:
        key = (rule, _frozen(credentials), _frozen(target))
        try:
            hash(key)
        except TypeError:
            return None
        return key
