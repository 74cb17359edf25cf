"""The all-in-one cloud: every HTTP service of the controller in one process.

``registry`` lists the services, ``runner`` serves them (one cheroot server
thread each), ``firstrun`` prepares the state directory on first start, and
``up`` ties them together for ``saphira up``.
"""
