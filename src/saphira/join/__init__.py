"""saphira-openstack-setup-compute: join this host to a controller as a compute node.

runner (commands; ``ReadOnly`` for --facts and --check), facts and probes
(the read-only planning facts, the route and identity checks), answers
(flags, answers file, token, prompts), token (redeeming a join token), plan
(where files go, every reason to stop before writing), render (the files'
text), writer (files under --root, kept unless --force), sudoers, units
(systemd) and services/supervisor (where systemd does not run), bridge (the
provider bridge), steps (the join), controller and ending (the controller's
view and the bounded wait), check (--check), screen (what is printed),
machine (the host's parts, faked in tests) and cli (the main).
"""
