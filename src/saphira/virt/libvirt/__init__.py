"""The libvirt driver: typed domain configuration and its XML, the host, the driver."""
