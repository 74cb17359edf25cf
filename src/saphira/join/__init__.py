"""saphira-openstack-setup-compute: join this host to a controller as a compute node.

facts (read-only planning facts), probes (route and identity), answers (flags,
answers file, prompts, token), render (the files' text), writer (files under
--root, kept unless --force), sudoers, units (systemd) and supervisor (where
systemd does not run), steps (the join), check (--check), cli (the main).
"""
