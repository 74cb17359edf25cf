"""Per-API default policy rules as data; saphira.policy registers them all."""
