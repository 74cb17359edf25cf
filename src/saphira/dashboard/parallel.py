"""The calls of one page made in parallel on a small shared thread pool."""

from __future__ import annotations

from collections.abc import Callable, Iterable
from concurrent.futures import Future, ThreadPoolExecutor
from functools import partial
from typing import Any, TypeVar, overload

A = TypeVar("A")
B = TypeVar("B")
C = TypeVar("C")
D = TypeVar("D")
E = TypeVar("E")


class Calls:
    def __init__(self, workers: int) -> None:
        self.pool = ThreadPoolExecutor(max_workers=workers, thread_name_prefix="dashboard-call")

    @overload
    def gather(self, a: Callable[[], A], b: Callable[[], B], /) -> tuple[A, B]: ...

    @overload
    def gather(
        self, a: Callable[[], A], b: Callable[[], B], c: Callable[[], C], /
    ) -> tuple[A, B, C]: ...

    @overload
    def gather(
        self, a: Callable[[], A], b: Callable[[], B], c: Callable[[], C], d: Callable[[], D], /
    ) -> tuple[A, B, C, D]: ...

    @overload
    def gather(
        self,
        a: Callable[[], A],
        b: Callable[[], B],
        c: Callable[[], C],
        d: Callable[[], D],
        e: Callable[[], E],
        /,
    ) -> tuple[A, B, C, D, E]: ...

    def gather(self, *calls: Callable[[], Any]) -> tuple[Any, ...]:
        """Every call's result, in order; the first failure (in argument order) is
        raised once all have finished, so no call is left running behind the page."""
        futures: list[Future[Any]] = [self.pool.submit(call) for call in calls]
        results: list[Any] = []
        failure: Exception | None = None
        for future in futures:
            try:
                results.append(future.result())
            except Exception as error:
                failure = failure or error
        if failure is not None:
            raise failure
        return tuple(results)

    def each(self, call: Callable[[A], B], items: Iterable[A]) -> list[B]:
        """``call`` on every item in parallel (a call per row of a page), as ``gather``."""
        gather: Callable[..., tuple[B, ...]] = self.gather
        return list(gather(*(partial(call, item) for item in items)))

    def close(self) -> None:
        self.pool.shutdown(wait=False, cancel_futures=True)
