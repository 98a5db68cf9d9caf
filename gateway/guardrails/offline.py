"""Make every library the guardrails use work without the network.

tldextract (used by Presidio's email recognizer to validate domains) fetches the public suffix list over HTTPS the
first time it runs and writes it to a cache directory. Warden replaces its module-level extractor with one that uses
only the snapshot bundled in the wheel: no fetch, no disk cache, same answers on every machine.
"""

from __future__ import annotations

import threading

import tldextract
import tldextract.tldextract as _tldextract_module

_lock = threading.Lock()
_configured = False


def offline_tld_extractor() -> tldextract.TLDExtract:
    # suffix_list_urls=() disables fetching; cache_dir=None disables the disk cache; the bundled snapshot remains.
    return tldextract.TLDExtract(suffix_list_urls=(), cache_dir=None, fallback_to_snapshot=True)


def configure_offline() -> None:
    """Idempotently switch tldextract's module-level extractor (what `tldextract.extract` calls) to offline mode."""
    global _configured
    with _lock:
        if _configured:
            return
        # `tldextract.extract` looks TLD_EXTRACTOR up as a module global on every call, so rebinding it is enough.
        _tldextract_module.TLD_EXTRACTOR = offline_tld_extractor()
        _configured = True
