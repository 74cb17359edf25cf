"""The image service's backend: the data store, format inspection, the image
records with their status machine, members and quotas. No HTTP here: the
Glance v2 API in saphira.api.image translates requests to these calls."""
