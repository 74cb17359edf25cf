"""saphira-manage: the operator's commands (nova-manage's and keystone-manage's)."""
