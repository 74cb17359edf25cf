"""Tools for tests and benches that ship with Saphira (``leftovers``: ending the
guests a throwaway cloud leaves). No product package imports this one (an
import-linter contract); the tiny guest image builder is ``saphira.guest_image``."""
