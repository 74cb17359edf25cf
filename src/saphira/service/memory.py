"""Keep the all-in-one process small under password load.

Every password check runs scrypt, which allocates 16 MiB (n=2**14, r=8) and
frees it. glibc raises its mmap threshold after such a free, so later
16 MiB blocks come from the per-thread heap arenas instead, and with one
arena per cheroot worker thread they stay resident: bench/tokens.py measured
RSS growing from 98 MiB to 520 MiB. A fixed threshold (which also turns the
dynamic one off) sends large blocks back to mmap, returned to the kernel on
free; the same load then ends at 91 MiB.

glibc also gives each thread that allocates an arena of its own, up to
eight per CPU, and an arena's freed memory mostly stays resident. The
all-in-one runs a couple of hundred threads (the APIs' workers, every RPC
server's pool), so the arenas are capped: bench/memory.py measured 185 MiB
after 300 builds with glibc's default and 163 MiB with two arenas.

The cyclic garbage collector runs a young collection every 700 net container
allocations and an older one every ten of those. A 1,000-server detail page
holds some 33,000 more containers than it has freed until its body is
written: with the default thresholds one request ran about 47 young
collections, 4 middle ones over the page built so far and, every other
request, a full one over the whole heap (counted in process with
gc.callbacks); tuned, none during a request. ``tune_gc`` freezes what
start-up made (modules, configuration, the services' objects: never
garbage, walked by every full collection otherwise) and raises the young
threshold so a request's short-lived objects are freed by reference
counting before a collection looks at them; cycles are still collected,
a little later.
"""

from __future__ import annotations

import ctypes
import ctypes.util
import gc
import logging

LOG = logging.getLogger(__name__)
M_MMAP_THRESHOLD = -3  # glibc <malloc.h>
M_ARENA_MAX = -8
THRESHOLD = 1024 * 1024  # bytes; blocks of this size or more are mmap'ed
ARENAS = 2
GC_THRESHOLDS = (50_000, 20, 10)  # young, middle, old (Python's defaults: 700, 10, 10)


def _mallopt(param: int, value: int) -> bool:
    """glibc's mallopt; False (and nothing changed) on other C libraries."""
    name = ctypes.util.find_library("c")
    if not name:
        return False
    try:
        mallopt = ctypes.CDLL(name).mallopt
    except (OSError, AttributeError):
        return False
    mallopt.argtypes = [ctypes.c_int, ctypes.c_int]
    mallopt.restype = ctypes.c_int
    return bool(mallopt(param, value))


def fix_mmap_threshold(threshold: int = THRESHOLD) -> bool:
    """Set glibc's mmap threshold; False (and nothing changed) on other C libraries."""
    done = _mallopt(M_MMAP_THRESHOLD, threshold)
    LOG.debug("mmap threshold %s", f"fixed at {threshold} bytes" if done else "unchanged")
    return done


def limit_arenas(arenas: int = ARENAS) -> bool:
    """Cap glibc's malloc arenas (threads started later share them); False elsewhere."""
    done = _mallopt(M_ARENA_MAX, arenas)
    LOG.debug("malloc arenas %s", f"capped at {arenas}" if done else "unchanged")
    return done


def tune_gc(thresholds: tuple[int, int, int] = GC_THRESHOLDS) -> None:
    """Once the services have started: freeze what exists, raise the thresholds."""
    gc.collect()  # what start-up left as garbage is freed, not frozen
    gc.freeze()
    gc.set_threshold(*thresholds)
    LOG.debug("gc: %d objects frozen, thresholds %s", gc.get_freeze_count(), thresholds)
